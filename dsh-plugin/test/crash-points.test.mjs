// Exactly once into the real `dsh` 0.1.0-rc.8 CLI at the crash points the
// SIGKILL burst does not reach: the bridge killed alone while its DSH
// process keeps running (a new bridge must not take "not written yet" for
// "lost"), a cold child whose message DSH had queued when it died (nothing
// but a hand-off through its parent resumes it), and a store the bridge
// cannot serve (DSH must not start). Each runs quiet and, with LOAD=1 (as
// scripts/test-plugin.sh runs them a second time), beside two CPU-bound
// loops: the windows these tests aim at widen under load.
import { test } from 'node:test'
import { readFileSync, symlinkSync, mkdirSync, chmodSync } from 'node:fs'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import assert from 'node:assert/strict'
import { startFakeModel } from './fake-model.mjs'
import { startDsh } from './cli.mjs'
import { dshAgents, waitFor, tempStore } from './harness.mjs'
import { ok, states, untilState, inbox, logOf, inTranscript, drained } from './views.mjs'

/** Two CPU-bound loops for the test's length when LOAD=1; stop() ends them. */
function load () {
  if (process.env.LOAD !== '1') return { stop () {} }
  const loops = [0, 1].map(() => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }))
  return { stop () { for (const l of loops) l.kill('SIGKILL') } }
}
const label = process.env.LOAD === '1' ? ' (loaded)' : ''

test(`the bridge alone SIGKILLed 3 times mid-burst while DSH runs: every acknowledged message reaches the model exactly once${label}`, async () => {
  const busy = load()
  const model = await startFakeModel()
  model.auto(r => r.text('OK'))
  const root = 'session-bridgekill-lead'
  const dsh = startDsh({ model, mode: 'web', session: root, prompt: 'BRIDGEKILL-TASK' })
  const { store } = dsh
  const acked = []
  try {
    await untilState(store, root, 'idle', 60000)
    const livePid = () => { try { return JSON.parse(readFileSync(join(logOf(store, root), '..', 'live.json'), 'utf8')).pid } catch { return undefined } }
    for (let i = 0; i < 120; i++) {
      const id = `bk-${i}`
      ok(dshAgents(store, i % 3 === 0 ? 'steer' : 'followup', '--id', id, root, `BK ${id} END`), `send ${id}`)
      acked.push(id)
      if (i === 30 || i === 60 || i === 90) {
        // Kill the bridge while rc.8 is taking messages into its turns.
        await waitFor('some of the burst taken', () => inTranscript(store, root).size > i - 25, 30000)
        const pid = livePid()
        assert.ok(pid, 'a bridge holds the root')
        process.kill(pid, 'SIGKILL')
        await waitFor('a new bridge holding the root', () => { const p = livePid(); return p !== undefined && p !== pid }, 30000)
      }
    }
    await waitFor('every message run', () => drained(store, root) && acked.every(id => inTranscript(store, root).has(id)), 120000)
      .catch(e => { throw new Error(`${e.message}\n${JSON.stringify(inbox(store, root))}\n${dsh.stderr}`) })
    const seen = inTranscript(store, root)
    const lost = acked.filter(id => !seen.has(id))
    const twice = acked.filter(id => (seen.get(id) ?? 0) > 1)
    assert.deepEqual({ lost, twice }, { lost: [], twice: [] })
    assert.match(dsh.stderr, /bridge exited .*starting it again/)
    assert.equal(await dsh.stop(), 0)
    assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
  } finally {
    busy.stop()
    dsh.child.kill('SIGKILL')
    model.close()
  }
})

test(`a cold child whose message DSH had queued when it was killed is resumed through its parent and runs it once${label}`, async () => {
  const busy = load()
  const model = await startFakeModel()
  const root = 'session-coldq-lead'
  let dsh = startDsh({ model, mode: 'web', session: root, prompt: 'COLDQ-ROOT' })
  const { store } = dsh
  try {
    const r = await model.take('the root task', q => q.session === root && q.all.includes('COLDQ-ROOT'))
    r.tool('subagent', { description: 'worker', prompt: 'COLDQ-CHILD' })
    const c = await model.take('the child task', q => q.session !== root && q.all.includes('COLDQ-CHILD'))
    const child = c.session
    c.text('CHILD-DONE-1')
    model.auto(q => { if (q.session === root) q.text('ROOT-DONE') })
    await untilState(store, child, 'inactive')
    await untilState(store, root, 'idle')
    model.auto(undefined)
    // The first message resumes the child through the root; its turn is held open.
    ok(dshAgents(store, 'followup', '--id', 'coldq-1', child, 'COLDQ-ONE'), 'followup one')
    await model.take('the child running the first', q => q.session === child && q.all.includes('COLDQ-ONE'))
    // The second is queued in the child's own inbox while it runs; then DSH dies.
    ok(dshAgents(store, 'followup', '--id', 'coldq-2', child, 'COLDQ-TWO'), 'followup two')
    await waitFor('the second queued in DSH\'s inbox', () => inbox(store, child).dsh.nextTurn.length === 1, 30000)
    dsh.child.kill('SIGKILL')
    await dsh.exit()
    // A new DSH process resumes the root only: nothing but the bridge resumes the child.
    model.auto(q => q.text(q.session === child ? 'CHILD-DONE' : 'ROOT-DONE'))
    dsh = startDsh({ model, mode: 'web', session: root, resume: true, store })
    await waitFor('the queued message run', () => inTranscript(store, child).get('coldq-2') >= 1 && inbox(store, child).nextTurn.length === 0, 60000)
      .catch(e => { throw new Error(`${e.message}\n${JSON.stringify(inbox(store, child))}\n${dsh.stderr}`) })
    await untilState(store, child, 'inactive', 30000)
    assert.equal(inTranscript(store, child).get('coldq-2'), 1)
    assert.equal(model.requests.filter(q => q.session === child && q.messages.at(-1) && JSON.stringify(q.messages.at(-1)).includes('COLDQ-TWO')).length, 1, 'one model request ends with it')
    assert.equal(await dsh.stop(), 0)
    assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
  } finally {
    busy.stop()
    dsh.child.kill('SIGKILL')
    model.close()
  }
})

test('a store the bridge cannot serve stops DSH at boot, before any agent runs', async () => {
  const model = await startFakeModel()
  const base = tempStore()
  try {
    // A plugin store that is not DSH's own (a typo, another DSH_HOME).
    const store = join(base, 'sessions')
    mkdirSync(store)
    let dsh = startDsh({ model, mode: 'headless', task: 'NEVER', store, cwd: base, pluginStore: join(base, 'sesions') })
    let exit = await dsh.exit()
    assert.notEqual(exit.code, 0, 'dsh ran')
    assert.match(dsh.stderr, /dsh-agents plugin: the configured store .*sesions is not DSH's session store/)
    // A store that cannot be read. A loop of links is unreadable even to
    // root: DSH's own persistence refuses it at boot, or the plugin does.
    const loop = join(base, 'loop')
    symlinkSync(loop, loop)
    dsh = startDsh({ model, mode: 'headless', task: 'NEVER', store: loop, cwd: base })
    exit = await dsh.exit()
    assert.notEqual(exit.code, 0, 'dsh ran')
    assert.match(dsh.stderr, /ELOOP|too many symbolic links|cannot serve the store/)
    // A project directory DSH does not read at boot but the bridge must:
    // only a user other than root can be kept out of one.
    if (process.getuid?.() !== 0) {
      const project = join(store, 'locked-project')
      mkdirSync(project)
      chmodSync(project, 0)
      try {
        dsh = startDsh({ model, mode: 'headless', task: 'NEVER', store, cwd: base })
        exit = await dsh.exit()
        assert.notEqual(exit.code, 0, 'dsh ran')
        assert.match(dsh.stderr, /dsh-agents plugin: the bridge cannot serve the store .*locked-project/)
      } finally {
        chmodSync(project, 0o755)
      }
    }
    assert.equal(model.requests.length, 0, 'no agent ran')
  } finally {
    model.close()
  }
})

/**
 * The fake model's answer for a tree that builds itself: a task holding
 * `SPAWN:a,b` starts one subagent per name (`TASK a`, with `SPAWN:…` of its
 * own from `kids`), one per request; then every request is answered `OK`,
 * except that while `hold.on` the requests of the agents whose task names
 * one of `hold.names` are kept open in `hold.open` (the agent stays running).
 */
const builder = (kids, hold) => q => {
  const wanted = /SPAWN:([\w,-]+)/.exec(q.all)?.[1].split(',') ?? []
  const made = q.messages.filter(m => m.role === 'assistant' && m.tool_calls?.length).length
  if (made < wanted.length) {
    const name = wanted[made]
    return q.tool('subagent', { description: name, prompt: `TASK ${name}${kids[name] ? ` SPAWN:${kids[name]}` : ''}` })
  }
  const task = JSON.stringify(q.messages.find(m => m.role === 'user')?.content ?? '')
  if (hold.on && hold.names.some(n => task.includes(`TASK ${n}`))) return hold.open.push(q)
  q.text('OK')
}

test(`three DSH processes on one store, 15 agents, 300 sends by name path, one process killed and restarted: each acknowledged message runs exactly once${label}`, async () => {
  const busy = load()
  const model = await startFakeModel()
  const procs = ['p1', 'p2', 'p3']
  const kids = Object.fromEntries(procs.map(p => [`${p}-c1`, `${p}-g1`]))
  // rc.8 resumes a subagent only through its live direct parent: each
  // grandchild is reached while its parent runs, so the parents' turns
  // are held open through the burst.
  const hold = { on: false, names: procs.map(p => `${p}-c1`), open: [] }
  model.auto(builder(kids, hold))
  const store = tempStore()
  const homes = Object.fromEntries(procs.map(p => [p, join(tempStore(), 'home')]))
  const roots = Object.fromEntries(procs.map(p => [p, `session-three-${p}`]))
  // Each process's bridge traces its protocol lines: a failure shows what
  // each id went through.
  const traces = Object.fromEntries(procs.map(p => [p, join(tempStore(), `bridge-${p}.trace`)]))
  const start = (p, resume = false) => startDsh({
    model, mode: 'web', store, home: homes[p], session: roots[p], resume,
    prompt: `ROOT ${p} SPAWN:${p}-c1,${p}-c2,${p}-c3`,
    env: { DSH_AGENTS_BRIDGE_TRACE: traces[p] },
  })
  const dsh = Object.fromEntries(procs.map(p => [p, start(p)]))
  const acked = new Map()
  try {
    // Every process built its tree: a root, 3 children, a grandchild.
    const members = () => (JSON.parse(dshAgents(store, '--json', 'tree', '--all').stdout || '[]')).flatMap(t => t.members.map(m => ({ ...m, root: t.root ?? t.members[0].id })))
    await waitFor('15 agents, all settled', () => {
      const m = members()
      return m.length === 15 && m.every(x => x.state === 'idle' || x.state === 'inactive')
    }, 120000).catch(e => { throw new Error(`${e.message}\n${JSON.stringify(members())}\n${Object.values(dsh).map(d => d.stderr).join('\n')}`) })
    const all = members()
    const rootOf = id => { let m = all.find(x => x.id === id); while (m.parent) m = all.find(x => x.id === m.parent); return m.id }
    const parents = all.filter(m => all.some(x => x.parent === m.id) && m.parent)
    assert.equal(parents.length, 3, 'one child with a grandchild per tree')
    hold.on = true
    let n = 0
    for (const m of parents) {
      const id = `three-${n++}`
      ok(dshAgents(store, 'send-message', '--as', rootOf(m.id), '--id', id, m.name, `THREE ${id} END`), `wake ${m.name}`)
      acked.set(id, m.id)
    }
    await waitFor('the grandchildren\'s parents running', () => parents.every(m => states(store)[m.id] === 'running'), 60000)
    for (let round = 0; round < 20; round++) {
      for (const m of all) {
        const id = `three-${n++}`
        const caller = rootOf(m.id)
        const r = m.id === caller
          ? dshAgents(store, round % 2 ? 'steer' : 'followup', '--id', id, m.id, `THREE ${id} END`)
          : dshAgents(store, 'send-message', '--as', caller, '--id', id, m.name, `THREE ${id} END`)
        ok(r, `send ${id} to ${m.name}`)
        acked.set(id, m.id)
        if (n === 150) {
          // One process dies mid-burst and is started again (its held
          // turns die with it; the next message to its child resumes it).
          dsh.p2.child.kill('SIGKILL')
          await dsh.p2.exit()
          dsh.p2 = start('p2', true)
        }
      }
    }
    const pendingOf = id => { const i = inbox(store, id); return i.nextTurn.length + i.nextStep.length + i.handing.length + i.dsh.nextTurn.length + i.dsh.nextStep.length }
    const report = () => `${JSON.stringify(members().map(x => [x.name, x.state, inbox(store, x.id)]))}\n${Object.values(dsh).map(d => d.stderr).join('\n')}`
    // Everything but the held parents drains while they run (the
    // grandchildren through them); then they finish.
    await waitFor('every message but the held parents\' run', () => members().every(x => parents.some(p => p.id === x.id) || pendingOf(x.id) === 0), 240000)
      .catch(e => { throw new Error(`${e.message}\n${report()}`) })
    hold.on = false
    for (const q of hold.open.splice(0)) q.text('OK')
    const settled = () => members().every(x => (x.state === 'idle' || x.state === 'inactive') && pendingOf(x.id) === 0)
    await waitFor('every message run and every agent settled', settled, 240000)
      .catch(e => { throw new Error(`${e.message}\n${report()}`) })
    const seen = new Map(all.map(m => [m.id, inTranscript(store, m.id)]))
    const lost = [...acked].filter(([id, to]) => !seen.get(to).has(id)).map(([id]) => id)
    const twice = [...acked].filter(([id, to]) => (seen.get(to).get(id) ?? 0) > 1).map(([id]) => id)
    const story = ids => ids.map(id => {
      const lines = procs.flatMap(p => { try { return readFileSync(traces[p], 'utf8').split('\n').filter(l => l.includes(`"${id}"`)).map(l => `${p}: ${l}`) } catch { return [] } })
      const log = readFileSync(logOf(store, acked.get(id)), 'utf8').split('\n').filter(l => l.includes(id)).map(l => l.slice(0, 300))
      return [`== ${id} to ${acked.get(id)}`, ...lines, '-- log:', ...log].join('\n')
    }).join('\n')
    assert.deepEqual({ lost, twice }, { lost: [], twice: [] }, story([...lost, ...twice]))
    for (const p of procs) assert.equal(await dsh[p].stop(), 0)
    assert.match(ok(dshAgents(store, 'check'), 'check'), /ok/)
  } finally {
    busy.stop()
    for (const d of Object.values(dsh)) d.child.kill('SIGKILL')
    model.close()
  }
})
