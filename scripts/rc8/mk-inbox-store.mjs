// An rc.8-written store whose logs hold DSH's own pending inbox items:
//   parked:  a child's turn aborted by its parent while a followup waited (queue parked);
//   crashed: a child killed mid-turn (SIGKILL) with a followup waiting behind the turn.
import { boot, sleep } from './live.mjs'
const root = process.argv[2]
const env = await boot({ root })
const parent = env.createParent('inbox-parent')
const parked = (await env.start(parent, 'parked child', 'Task for the parked child')).childId
const crashed = (await env.start(parent, 'crashed child', 'Task for the crashed child')).childId
await sleep(500)
console.log(JSON.stringify({ parked, crashed }))
env.adapter.gate('HOLD-A')
await env.call('send', 'send_message', { subagent_id: parked, message: 'HOLD-A running turn' }, parent)
await sleep(300)
await env.call('send', 'send_message', { subagent_id: parked, message: 'queued behind the running turn' }, parent)
await sleep(200)
await env.call('interrupt', 'interrupt_agent', { agent_id: parked }, parent)
await sleep(400)
env.adapter.gate('HOLD-B')
await env.call('send', 'send_message', { subagent_id: crashed, message: 'HOLD-B running turn' }, parent)
await sleep(300)
await env.call('send', 'send_message', { subagent_id: crashed, message: 'queued when the process died' }, parent)
await sleep(300)
process.kill(process.pid, 'SIGKILL')
