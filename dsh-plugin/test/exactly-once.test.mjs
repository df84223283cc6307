// Exactly once into the real `dsh` 0.1.0-rc.8 CLI: SIGKILL mid-burst,
// delivery to a grandchild, and every misconfiguration loud — each against
// the real CLI with this plugin loaded and the fake model.
import { test } from 'node:test'
import { readFileSync, readdirSync, chmodSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import assert from 'node:assert/strict'
import { startFakeModel } from './fake-model.mjs'
import { startDsh } from './cli.mjs'
import { dshAgents, waitFor, tempStore, sleep } from './harness.mjs'
import { ok, states, untilState, inbox, logOf, inTranscript, drained } from './views.mjs'


const ROUNDS = Number(process.env.BURST_ROUNDS ?? 3)

test(`SIGKILL mid-burst, ${ROUNDS} rounds of 50 followups: every acknowledged message reaches the model exactly once`, async () => {
  const model = await startFakeModel()
  model.auto(r => r.text('OK'))
  const root = 'session-burst-lead'
  // Every bridge traces its protocol lines here: a failure shows what each
  // id went through.
  const trace = join(tempStore(), 'bridge.trace')
  const env = { DSH_AGENTS_BRIDGE_TRACE: trace }
  let dsh = startDsh({ model, mode: 'web', session: root, prompt: 'BURST-TASK', env })
  const { store } = dsh
  const acked = []
  try {
    await untilState(store, root, 'idle', 60000)
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < 50; i++) {
        const id = `burst-${round}-${i}`
        const r = dshAgents(store, 'followup', '--id', id, root, `BURST ${id} END`)
        assert.equal(r.code, 0, r.stderr)
        acked.push(id)
        // Let rc.8 take some of the burst, then kill it with messages in every state.
        if (i === 24) {
          await waitFor('some of the burst in the log', () => inTranscript(store, root).size > round * 50 + 5, 30000)
          dsh.child.kill('SIGKILL')
          await dsh.exit()
        }
      }
      dsh = startDsh({ model, mode: 'web', session: root, resume: true, store, env })
      await waitFor(`round ${round} drained`, () => drained(store, root), 90000)
        .catch(e => { throw new Error(`${e.message}\n${JSON.stringify(inbox(store, root))}\n${dsh.stderr}`) })
    }
    const seen = inTranscript(store, root)
    const lost = acked.filter(id => !seen.has(id))
    const twice = acked.filter(id => (seen.get(id) ?? 0) > 1)
    const story = ids => {
      const lines = (() => { try { return readFileSync(trace, 'utf8').split('\n') } catch { return [] } })()
      const log = readFileSync(logOf(store, root), 'utf8').split('\n')
      return ids.map(id => [`== ${id}`, ...lines.filter(l => l.includes(`"${id}"`)), '-- log:', ...log.filter(l => l.includes(`"${id}"`)).map(l => l.slice(0, 300))].join('\n')).join('\n')
    }
    assert.deepEqual({ lost, twice }, { lost: [], twice: [] }, story([...lost, ...twice]))
    const asked = acked.filter(id => !model.requests.some(q => q.all.includes(`BURST ${id} END`)))
    assert.deepEqual(asked, [], 'every message was in a model request')
    assert.equal(await dsh.stop(), 0)
    assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
  } finally {
    dsh.child.kill('SIGKILL')
    model.close()
  }
})

const GRAND_RUNS = Number(process.env.GRAND_RUNS ?? 1)

test(`a grandchild is reached through its resident parent, by id and by the name tree shows (${GRAND_RUNS} run(s))`, async () => {
  for (let run = 0; run < GRAND_RUNS; run++) {
    const model = await startFakeModel()
    const root = `session-grand-lead-${run}`
    const dsh = startDsh({ model, mode: 'web', session: root, prompt: 'GRAND-ROOT' })
    const { store } = dsh
    try {
      const r = await model.take('the root task', q => q.session === root && q.all.includes('GRAND-ROOT'))
      r.tool('subagent', { description: 'middle child', prompt: 'CHILD-TASK' })
      const c = await model.take('the child task', q => q.session !== root && q.all.includes('CHILD-TASK'))
      const child = c.session
      c.tool('subagent', { description: 'grandchild', prompt: 'GRAND-TASK' })
      const g = await model.take('the grandchild task', q => q.all.includes('GRAND-TASK') && q.session !== child)
      const grand = g.session
      ;(await model.take('the root after spawning', q => q.session === root)).text('ROOT-WAITS')
      g.text('GRAND-DONE-1')
      // The child keeps running (resident); the grandchild is cold.
      const c2 = await model.take('the child after spawning', q => q.session === child)
      await untilState(store, grand, 'inactive')
      ok(dshAgents(store, 'followup', '--id', `to-grand-${run}`, grand, 'TO-GRAND-BY-ID'), 'followup to the grandchild')
      const g2 = await model.take('the grandchild turn by id', q => q.session === grand && q.all.includes('TO-GRAND-BY-ID'))
      g2.text('GRAND-DONE-2')
      await untilState(store, grand, 'inactive')
      await waitFor('the claim', () => inbox(store, grand).nextTurn.length === 0)
      // The name `tree` shows for the unnamed grandchild addresses it.
      const trees = [JSON.parse(dshAgents(store, '--json', 'tree', root).stdout)].flat()
      const name = trees.flatMap(t => t.members).find(m => m.id === grand).name
      ok(dshAgents(store, 'send-message', '--as', root, name, 'TO-GRAND-BY-NAME'), `v2 send to ${name}`)
      const g3 = await model.take('the grandchild turn by name', q => q.session === grand && q.all.includes('TO-GRAND-BY-NAME'))
      g3.text('GRAND-DONE-3')
      await untilState(store, grand, 'inactive')
      assert.equal(model.requests.filter(q => q.session === grand && q.all.includes('TO-GRAND-BY-NAME')).length, 1)
      // So does the path of ids through the unnamed child.
      ok(dshAgents(store, 'send-message', '--as', root, `${child}/${grand}`, 'TO-GRAND-BY-PATH'), 'v2 send by the id path')
      const g4 = await model.take('the grandchild turn by path', q => q.session === grand && q.all.includes('TO-GRAND-BY-PATH'))
      g4.text('GRAND-DONE-4')
      await untilState(store, grand, 'inactive')
      const seen = inTranscript(store, grand)
      assert.equal(seen.get(`to-grand-${run}`), 1)
      c2.text('CHILD-DONE')
      // The grandchild's settlement notices wake the child again: let it finish.
      model.auto(q => q.text('DONE'))
      await untilState(store, child, 'inactive')
      assert.equal(await dsh.stop(), 0)
      assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
    } finally {
      dsh.child.kill('SIGKILL')
      model.close()
    }
  }
})

test('a bridge binary that cannot run stops DSH with a clear message', async () => {
  const model = await startFakeModel()
  const dir = tempStore()
  const script = join(dir, 'not-executable')
  writeFileSync(script, '#!/bin/sh\nexit 0\n')
  chmodSync(script, 0o644)
  try {
    for (const binary of [join(dir, 'missing'), script, '/bin/false']) {
      const dsh = startDsh({ model, mode: 'headless', task: 'NEVER', binary, store: join(dir, 'store'), cwd: dir })
      const exit = await dsh.exit()
      assert.notEqual(exit.code, 0, `${binary}: dsh ran`)
      assert.match(dsh.stderr, /dsh-agents plugin: the bridge binary .* cannot run/, binary)
      assert.equal(model.requests.length, 0, 'no agent ran unprotected')
    }
  } finally {
    model.close()
  }
})

test('a fresh store that does not exist yet works on the first start; a killed bridge is started again and still protects', async () => {
  const model = await startFakeModel()
  const base = tempStore()
  const store = join(base, 'sessions')
  const cwd = join(base, 'work')
  mkdirSync(cwd)
  const root = 'session-fresh-lead'
  const dsh = startDsh({ model, mode: 'web', session: root, prompt: 'FRESH-TASK', store, cwd })
  try {
    let r = await model.take('the first prompt', q => q.session === root)
    r.text('FRESH-DONE')
    await untilState(store, root, 'idle')
    ok(dshAgents(store, 'followup', root, 'FRESH-FOLLOW'), 'followup')
    r = await model.take('the followup', q => q.session === root && q.all.includes('FRESH-FOLLOW'))
    r.text('FRESH-DONE-2')
    await untilState(store, root, 'idle')
    // Kill the bridge: the plugin starts another, which holds the root again.
    const dir = join(store, readdirSync(store)[0], root)
    const pid = JSON.parse(readFileSync(join(dir, 'live.json'), 'utf8')).pid
    process.kill(pid, 'SIGKILL')
    await waitFor('a new bridge holding the root', () => {
      try { return JSON.parse(readFileSync(join(dir, 'live.json'), 'utf8')).pid !== pid } catch { return false }
    })
    assert.match(dsh.stderr, /bridge exited .*starting it again/)
    const serve = dshAgents(store, 'serve', '--as', root, '--once', '--', 'true')
    assert.equal(serve.code, 3, serve.stderr)
    assert.match(serve.stderr, /already live/)
    ok(dshAgents(store, 'followup', root, 'AFTER-RESTART'), 'followup after the bridge restarted')
    r = await model.take('the followup after the restart', q => q.session === root && q.all.includes('AFTER-RESTART'))
    r.text('FRESH-DONE-3')
    await untilState(store, root, 'idle')
    assert.equal(await dsh.stop(), 0)
    assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
  } finally {
    dsh.child.kill('SIGKILL')
    model.close()
  }
})

test('cancel racing delivery: a cancel that says yes never reaches the model; a refused one reaches it once', async () => {
  const model = await startFakeModel()
  model.auto(r => r.text('OK'))
  const root = 'session-cancel-lead'
  // The bridge pauses 200 ms before it hands messages on, so cancels win some races.
  const dsh = startDsh({ model, mode: 'web', session: root, prompt: 'CANCEL-TASK', env: { DSH_AGENTS_FAULT: 'bridge-slow-hand' } })
  const { store } = dsh
  try {
    await untilState(store, root, 'idle')
    const canceled = []
    const kept = []
    for (let i = 0; i < 30; i++) {
      const id = `race-${i}`
      ok(dshAgents(store, 'followup', '--id', id, root, `RACE ${id} END`), 'followup')
      // A growing pause, so cancels land before, during and after the hand-off.
      await sleep(i * 15)
      const c = dshAgents(store, 'cancel', '--to', root, id)
      if (c.code === 0) {
        canceled.push(id)
      } else {
        assert.equal(c.code, 2, c.stderr)
        assert.match(c.stderr, /already being delivered|no longer pending/)
        kept.push(id)
      }
    }
    await waitFor('drained', () => drained(store, root), 60000)
    const seen = inTranscript(store, root)
    for (const id of canceled) {
      assert.equal(seen.get(id) ?? 0, 0, `${id} was canceled yet reached the transcript`)
      assert.ok(!model.requests.some(q => q.all.includes(`RACE ${id} END`)), `${id} was canceled yet reached the model`)
    }
    for (const id of kept) assert.equal(seen.get(id), 1, `${id}: refused to cancel, so delivered once`)
    assert.ok(canceled.length > 0 && kept.length > 0, `both outcomes: ${canceled.length} canceled, ${kept.length} refused`)
    assert.equal(await dsh.stop(), 0)
  } finally {
    dsh.child.kill('SIGKILL')
    model.close()
  }
})
