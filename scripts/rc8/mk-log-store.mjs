// Build an rc.8-written store with: a parent, a child with two turns, a child turn
// aborted by its parent (interrupt), and (phase 2, separate process) a crashed turn.
import { boot, sleep, waitFor } from './live.mjs'
const root = process.argv[2]
const phase = process.argv[3]
const env = await boot({ root })
if (phase === 'one') {
  const parent = env.createParent('parent-1')
  const child = await env.start(parent, 'worker', 'First task for the worker')
  await sleep(500)
  console.log(Object.keys(child), JSON.stringify(child).slice(0,300))
  const id = String(child.childId)
  console.log('child', id)
  // a second turn: followup through the coordinator
  await env.call('send', 'send_message', { subagent_id: id, message: 'Second task' }, parent)
  await sleep(500)
  // a third turn, gated, then interrupted by the parent
  const g = env.adapter.gate('GATED')
  await env.call('send', 'send_message', { subagent_id: id, message: 'GATED third task' }, parent)
  await sleep(400)
  await env.call('interrupt', 'interrupt_agent', { agent_id: id }, parent)
  await sleep(400)
  g.release()
  await sleep(300)
  // crash setup: a gated turn left running when the process is killed
  env.adapter.gate('CRASH')
  await env.call('send', 'send_message', { subagent_id: id, message: 'CRASH fourth task' }, parent)
  await sleep(600)
  console.log('killing')
  process.kill(process.pid, 'SIGKILL')
} else {
  // phase two: resume the parent, then message the child again: rc.8 repairs the crashed turn
  const parent = await env.resumeAgent('parent-1')
  const id = process.argv[4]
  await env.call('send', 'send_message', { subagent_id: id, message: 'Fifth task after the crash' }, parent)
  await sleep(1500)
  process.exit(0)
}
