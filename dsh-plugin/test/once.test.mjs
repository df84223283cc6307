// The plugin's own record of what it handed rc.8 in this process, against a
// stand-in bridge and stand-in agents: a repeat of a message is answered
// from the record and never reaches rc.8 again, unless the bridge says what
// makes it new (a proven drop, or a retry after a failed hand-off).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { tempStore, waitFor } from './harness.mjs'
import * as Plugin from '../index.mjs'

const FAKE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'fake-bridge.mjs')

/** A Cordis-like context holding one agent whose followups are counted. */
function fakeContext (store, { failFirst = 0 } = {}) {
  const calls = []
  let failures = failFirst
  const agent = {
    id: 'lead',
    status: 'idle',
    followup: m => {
      if (failures-- > 0) throw new Error('rc.8 said no')
      calls.push(m.id)
    },
    steer: m => calls.push(m.id),
  }
  const cleanups = []
  const ctx = {
    agents: { get: id => (id === 'lead' ? agent : undefined), list: () => [agent] },
    sessionPersistence: { root: store, prepare: async () => {} },
    subagents: { followup: async () => {} },
    on: () => {},
    effect: f => cleanups.push(f()),
  }
  return { ctx, calls, close: () => Promise.all(cleanups.map(c => c())) }
}

const deliver = (id, again = null) => JSON.stringify({ event: 'deliver', agent: 'lead', via: null, target: 'next-turn', again, message: { id, content: [], source: { kind: 'user' }, role: 'user' } })

async function run (events, options) {
  const dir = tempStore()
  const script = join(dir, 'script.jsonl')
  const heard = join(dir, 'heard.jsonl')
  writeFileSync(script, events.join('\n') + '\n')
  writeFileSync(heard, '')
  process.env.FAKE_BRIDGE_SCRIPT = script
  process.env.FAKE_BRIDGE_HEARD = heard
  const f = fakeContext(dir, options)
  Plugin.apply(f.ctx, { binary: FAKE })
  const answers = () => readFileSync(heard, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l)).filter(m => m.op === 'delivered' || m.op === 'failed')
  await waitFor('every deliver answered', () => answers().length === events.length)
  await f.close()
  return { calls: f.calls, answers: answers().map(a => `${a.op} ${a.message}`) }
}

test('a message handed again by a bridge started anew reaches rc.8 once, and is answered as delivered', async () => {
  const r = await run([deliver('m-1'), deliver('m-1'), deliver('m-2'), deliver('m-1')])
  assert.deepEqual(r.calls, ['m-1', 'm-2'])
  assert.deepEqual(r.answers, ['delivered m-1', 'delivered m-1', 'delivered m-2', 'delivered m-1'])
})

test('a proven drop hands the message again, once for each drop', async () => {
  const r = await run([deliver('m-1'), deliver('m-1', { drop: 7 }), deliver('m-1', { drop: 7 }), deliver('m-1'), deliver('m-1', { drop: 9 })])
  assert.deepEqual(r.calls, ['m-1', 'm-1', 'm-1'])
})

test('a failed hand-off is answered as failed until the bridge retries it', async () => {
  const r = await run([deliver('m-1'), deliver('m-1'), deliver('m-1', 'failed'), deliver('m-1', 'failed')], { failFirst: 1 })
  assert.deepEqual(r.calls, ['m-1'])
  assert.deepEqual(r.answers, ['failed m-1', 'failed m-1', 'delivered m-1', 'delivered m-1'])
})

test('a configured store that is not DSH\'s is refused at boot', () => {
  const dir = tempStore()
  const f = fakeContext(dir)
  assert.throws(() => Plugin.apply(f.ctx, { binary: FAKE, store: join(dir, 'elsewhere') }), /is not DSH's session store/)
})
