// End to end: the real `dsh` 0.1.0-rc.8 CLI with this plugin loaded through
// a `--patch` row, its model the fake server, and the shell driving it with
// the real dsh-agents binary — as a user runs it.
import { test } from 'node:test'
import { readFileSync, statSync } from 'node:fs'
import { spawn } from 'node:child_process'
import assert from 'node:assert/strict'
import { startFakeModel, count } from './fake-model.mjs'
import { startDsh } from './cli.mjs'
import { BIN, dshAgents, waitFor, sleep } from './harness.mjs'

const ok = (r, what) => { assert.equal(r.code, 0, `${what}: ${r.stderr}`); return r.stdout }
/** `id -> state` over every tree in the store. */
const states = store => {
  const out = dshAgents(store, '--json', 'tree', '--all').stdout
  return Object.fromEntries((out ? JSON.parse(out) : []).flatMap(t => t.members.map(m => [m.id, m.state])))
}
const untilState = (store, id, state) => waitFor(`${id} ${state}`, () => states(store)[id] === state)
const endings = (store, id) => dshAgents(store, '--json', 'log', id).stdout.split('\n').filter(Boolean).map(l => JSON.parse(l)).filter(e => e.kind === 'turn-end').map(e => e.ending)
const logSize = (store, id) => statSync(JSON.parse(dshAgents(store, '--json', 'log', id).stdout.split('\n')[0]).log).size
/** Every pending message of `list` is handed to rc.8 (in flight or claimed already). */
const handed = (store, id, list) => {
  const inbox = JSON.parse(dshAgents(store, '--json', 'inbox', id).stdout)
  return inbox[list].every(m => inbox.handing.includes(m.id))
}
const parentFrame = (child, text) => `[Subagent message from ${child}]\nThis is a peer message from a delegated child, not the human user. Treat it as a task update.\n---\n${text}`

test('headless: steer, v1 and v2 sends, subagent-parent-message reach rc.8 once; running and ready; interrupts; serve and resume refused', async () => {
  const model = await startFakeModel()
  const dsh = startDsh({ model, mode: 'headless', task: 'ROOT-TASK' })
  const { store } = dsh
  try {
    const r1 = await model.take('the root task', r => r.all.includes('ROOT-TASK'))
    const root = r1.session
    await untilState(store, root, 'running')
    r1.tool('subagent', { description: 'probe child', prompt: 'CHILD-TASK' })
    const c1 = await model.take('the child task', r => r.session !== root && r.all.includes('CHILD-TASK'))
    const child = c1.session
    let r = await model.take('the root after spawning', r => r.session === root)
    await untilState(store, child, 'running')
    assert.match(ok(dshAgents(store, '--contract', 'v1', 'list-agents', '--as', root), 'v1 list'), new RegExp(`${child} \\[running\\]`))

    // The child ends its turn: rc.8 disposes it, and it lists ready.
    c1.text('CHILD-ANSWER-1')
    await untilState(store, child, 'inactive')
    assert.match(ok(dshAgents(store, '--contract', 'v1', 'list-agents', '--as', root), 'v1 list'), new RegExp(`${child} \\[ready\\]`))

    // The root is running: steer lands at its next step, in the same turn.
    ok(dshAgents(store, 'steer', root, 'STEER-ONE'), 'steer')
    ok(dshAgents(store, 'subagent-parent-message', '--as', child, '--mode', 'steer', 'UP-ONE'), 'subagent-parent-message')
    await waitFor('the steer handed to rc.8', () => handed(store, root, 'nextStep'))
    r.tool('list_agents', {})
    r = await model.take('the root next step', r => r.session === root)
    assert.equal(count(r.all, 'STEER-ONE'), 1, 'steer seen once')
    assert.equal(count(r.all, parentFrame(child, 'UP-ONE')), 1, 'the framed parent message seen once')

    // The child is cold: v1 and v2 sends reach it through its resident parent, next-turn.
    ok(dshAgents(store, '--contract', 'v1', 'send-message', '--as', root, child, 'V1-ONE'), 'v1 send')
    let c = await model.take('the child v1 turn', q => q.session === child && q.all.includes('V1-ONE'))
    assert.equal(count(c.all, 'V1-ONE'), 1)
    c.text('CHILD-ANSWER-2')
    await untilState(store, child, 'inactive')
    ok(dshAgents(store, 'send-message', '--as', root, child, 'V2-ONE'), 'v2 send')
    c = await model.take('the child v2 turn', q => q.session === child && q.all.includes('V2-ONE'))
    assert.equal(count(c.all, 'Agent lead sent a message: V2-ONE'), 1, 'v2 framing, once')
    assert.equal(count(c.all, 'V1-ONE'), 1, 'the earlier message is history, not redelivered')

    // interrupt-agent stops the child's running turn; the root keeps running.
    await untilState(store, child, 'running')
    ok(dshAgents(store, 'interrupt-agent', '--as', root, child), 'interrupt-agent')
    await c.closed
    // rc.8 (like its own interrupt_agent on a child) ends the step, disposes the
    // child and leaves the turn open; the next send repairs it as interrupted.
    await untilState(store, child, 'inactive')
    assert.deepEqual(endings(store, child), ['completed', 'completed'])
    assert.match(dshAgents(store, 'inbox', child).stdout, /parked by an interrupt/)
    await sleep(300)
    assert.equal(model.requests.filter(q => q.session === child).length, 3, 'nothing runs while parked')
    ok(dshAgents(store, '--contract', 'v1', 'send-message', '--as', root, child, 'AFTER-INTERRUPT'), 'v1 send after the interrupt')
    c = await model.take('the child turn after the interrupt', q => q.session === child && q.all.includes('AFTER-INTERRUPT'))
    c.text('CHILD-ANSWER-4')
    await untilState(store, child, 'inactive')
    assert.deepEqual(endings(store, child), ['completed', 'completed', 'interrupted', 'completed'])

    // serve on a DSH-resident agent is refused.
    const serve = dshAgents(store, 'serve', '--as', root, '--once', '--', 'true')
    assert.equal(serve.code, 3, serve.stderr)
    assert.match(serve.stderr, /already live/)

    // DSH resuming an agent serve holds is refused, and neither log is damaged.
    const served = spawn(BIN, ['--store', store, 'serve', '--as', child, '--', 'cat'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let servedErr = ''
    served.stderr.on('data', d => { servedErr += d })
    // (Probing with a second serve would race this one for the lock.)
    await waitFor('serve holds the child', () => states(store)[child] === 'idle')
      .catch(e => { throw new Error(`${e.message}: ${servedErr}`) })
    const sizeBefore = logSize(store, child)
    r.tool('send_message', { subagent_id: child, message: 'FROM-THE-MODEL' })
    r = await model.take('the root after send_message', q => q.session === root)
    // rc.8 renders the plugin's refusal from prepare() as "unavailable".
    const refusal = r.messages.filter(m => m.role === 'tool').at(-1)
    assert.equal(refusal.content, `Error: subagent "${child}" is unavailable`)
    assert.equal(logSize(store, child), sizeBefore, 'the served log is untouched')
    assert.match(dsh.stderr, new RegExp(`refused to hold agent ${child}: .*already live`))
    assert.equal(model.requests.filter(q => q.session === child && q.all.includes('FROM-THE-MODEL')).length, 0)
    served.kill('SIGTERM')
    await new Promise(resolve => served.on('exit', resolve))

    r.text('ROOT-FINAL')
    const exit = await dsh.exit()
    assert.equal(exit.code, 0, dsh.stderr)
    assert.match(dsh.stdout, /ROOT-FINAL/)
    // The process is gone: nothing is live any more.
    assert.equal(states(store)[root], 'inactive')
    assert.equal(states(store)[child], 'inactive')
    assert.match(ok(dshAgents(store, '--contract', 'v1', 'list-agents', '--as', root), 'v1 list'), new RegExp(`${child} \\[ready\\]`))
    assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
  } finally {
    dsh.child.kill('SIGKILL')
    model.close()
  }
})

test('dsh web: an idle root gets a new turn, a running one the steer; interrupt parks the queue until the next message; idle, then inactive', async () => {
  const model = await startFakeModel()
  const root = 'session-web-lead'
  const dsh = startDsh({ model, mode: 'web', session: root, prompt: 'WEB-TASK' })
  const { store } = dsh
  try {
    let r = await model.take('the typed prompt', q => q.session === root && q.all.includes('WEB-TASK'))
    await untilState(store, root, 'running')
    r.text('WEB-DONE-1')
    await untilState(store, root, 'idle')

    // Idle and resident: a followup starts a new turn.
    ok(dshAgents(store, 'followup', root, 'FOLLOW-ONE'), 'followup')
    r = await model.take('the followup turn', q => q.session === root && q.all.includes('FOLLOW-ONE'))
    assert.equal(count(r.all, 'FOLLOW-ONE'), 1)
    await untilState(store, root, 'running')
    // Running: a steer lands at the next step of the same turn.
    ok(dshAgents(store, 'steer', root, 'STEER-TWO'), 'steer')
    await waitFor('the steer handed to rc.8', () => handed(store, root, 'nextStep'))
    r.tool('list_agents', {})
    r = await model.take('the next step', q => q.session === root && q.all.includes('STEER-TWO'))
    assert.equal(count(r.all, 'STEER-TWO'), 1)
    assert.equal(count(r.all, 'FOLLOW-ONE'), 1)

    // A followup queued behind the running turn, then an interrupt: the turn
    // stops (the rc.8 CLI writes `step/end` and leaves the turn open, no
    // `turn/end`), the agent sits idle, and the queued message stays parked
    // in DSH's own inbox.
    ok(dshAgents(store, 'followup', root, 'QUEUED-ONE'), 'followup while running')
    await waitFor('the followup handed to rc.8', () => handed(store, root, 'nextTurn'))
    ok(dshAgents(store, 'interrupt', root), 'interrupt')
    await r.closed
    await untilState(store, root, 'idle')
    const dshInbox = () => JSON.parse(dshAgents(store, '--json', 'inbox', root).stdout).dsh
    await waitFor('the queued message in the log', () => dshInbox().nextTurn.length === 1)
    assert.deepEqual(dshInbox().nextTurn.map(m => m.content[0].text), ['QUEUED-ONE'])
    assert.equal(dshInbox().parked, true)
    assert.match(dshAgents(store, 'tree', '--all').stdout, /lead +idle .* 0\+1d parked/)
    await sleep(300)
    assert.equal(model.requests.filter(q => q.all.includes('QUEUED-ONE')).length, 0, 'nothing runs while parked')
    // The next message wakes it: the parked one runs first (FIFO).
    ok(dshAgents(store, 'followup', root, 'WAKE-ONE'), 'followup after the interrupt')
    r = await model.take('the parked message', q => q.session === root && q.all.includes('QUEUED-ONE'))
    assert.equal(count(r.all, 'WAKE-ONE'), 0)
    r.text('WEB-DONE-2')
    r = await model.take('the waking message', q => q.session === root && q.all.includes('WAKE-ONE'))
    assert.equal(count(r.all, 'QUEUED-ONE'), 1)
    r.text('WEB-DONE-3')
    await untilState(store, root, 'idle')
    const serve = dshAgents(store, 'serve', '--as', root, '--once', '--', 'true')
    assert.equal(serve.code, 3, serve.stderr)
    assert.match(serve.stderr, /already live/)

    assert.equal(await dsh.stop(), 0)
    assert.equal(states(store)[root], 'inactive')
    assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
  } finally {
    dsh.child.kill('SIGKILL')
    model.close()
  }
})

test('SIGKILL of dsh between delivery and claim: after a restart the message reaches the model exactly once', async () => {
  const model = await startFakeModel()
  const root = 'session-kill-lead'
  // The fault kills the bridge once rc.8 accepted the delivery, before the claim.
  let dsh = startDsh({ model, mode: 'web', session: root, prompt: 'KILL-TASK', env: { DSH_AGENTS_FAULT: 'bridge-before-claim' } })
  const { store } = dsh
  try {
    let r = await model.take('the typed prompt', q => q.session === root && q.all.includes('KILL-TASK'))
    r.text('KILL-DONE-1')
    await untilState(store, root, 'idle')
    ok(dshAgents(store, 'followup', '--id', 'kill-msg-1', root, 'ONCE-ONLY'), 'followup')
    r = await model.take('the delivered message', q => q.session === root && q.all.includes('ONCE-ONLY'))
    const log = JSON.parse(dshAgents(store, '--json', 'log', root).stdout.split('\n')[0]).log
    await waitFor('rc.8 recorded the message id', () => readFileSync(log, 'utf8').includes('"kill-msg-1"'))
    const pending = () => JSON.parse(dshAgents(store, '--json', 'inbox', root).stdout).nextTurn.map(m => m.id)
    assert.deepEqual(pending(), ['kill-msg-1'], 'no claim was written')
    dsh.child.kill('SIGKILL')
    await dsh.exit()
    await untilState(store, root, 'inactive')

    // A user reopens the session in a new dsh process.
    dsh = startDsh({ model, mode: 'web', session: root, resume: true, store })
    await untilState(store, root, 'idle')
    await waitFor('the bridge claimed it from the log, without delivering', () => pending().length === 0)
    await sleep(300)
    assert.deepEqual(endings(store, root).slice(-1), ['interrupted'], 'rc.8 repaired the killed turn')
    ok(dshAgents(store, 'followup', root, 'AFTER-RESTART'), 'followup after the restart')
    r = await model.take('the next turn', q => q.session === root && q.all.includes('AFTER-RESTART'))
    assert.equal(count(r.all, 'ONCE-ONLY'), 1, 'in the history once, never delivered again')
    assert.equal(model.requests.filter(q => q.all.includes('ONCE-ONLY') && !q.all.includes('AFTER-RESTART')).length, 1, 'the model got it once before the kill, and no other request since')
    r.text('KILL-DONE-2')
    await untilState(store, root, 'idle')
    assert.equal(await dsh.stop(), 0)
    assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
  } finally {
    dsh.child.kill('SIGKILL')
    model.close()
  }
})
