// End to end: the real `dsh` 0.1.0-rc.8 CLI with this plugin loaded through
// a `--patch` row, its model the fake server, and the shell driving it with
// the real dsh-agents binary — as a user runs it.
import { test } from 'node:test'
import { statSync } from 'node:fs'
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
    await waitFor('the steer handed to rc.8', () => JSON.parse(dshAgents(store, '--json', 'inbox', root).stdout).nextStep.length === 0)
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
    const served = spawn(BIN, ['--store', store, 'serve', '--as', child, '--', 'cat'], { stdio: 'ignore' })
    await waitFor('serve holds the child', () => /already live/.test(dshAgents(store, 'serve', '--as', child, '--once', '--', 'true').stderr))
    const sizeBefore = logSize(store, child)
    r.tool('send_message', { subagent_id: child, message: 'FROM-THE-MODEL' })
    r = await model.take('the root after send_message', q => q.session === root)
    // rc.8 renders the plugin's refusal from prepare() as "unavailable".
    const refusal = r.messages.filter(m => m.role === 'tool').at(-1)
    assert.equal(refusal.content, `Error: subagent "${child}" is unavailable`)
    assert.equal(logSize(store, child), sizeBefore, 'the served log is untouched')
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
