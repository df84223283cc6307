// What the plugin's end-to-end tests read of a store, through the
// dsh-agents binary: states, inboxes, the raw events of a log, and how
// often each message id reached the model.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dshAgents, waitFor } from './harness.mjs'

/** A command that must succeed: its stdout. */
export const ok = (r, what) => { assert.equal(r.code, 0, `${what}: ${r.stderr}`); return r.stdout }
/** Every member's state, by session id. */
export const states = store => {
  const out = dshAgents(store, '--json', 'tree', '--all').stdout
  return Object.fromEntries((out ? JSON.parse(out) : []).flatMap(t => t.members.map(m => [m.id, m.state])))
}
export const untilState = (store, id, state, ms) => waitFor(`${id} ${state}`, () => states(store)[id] === state, ms)
export const inbox = (store, id) => JSON.parse(dshAgents(store, '--json', 'inbox', id).stdout)
/** The path of `id`'s session log. */
export const logOf = (store, id) => JSON.parse(dshAgents(store, '--json', 'log', id).stdout.split('\n')[0]).log
/** The session log of `id` (raw): every event. */
export const events = (store, id) => readFileSync(logOf(store, id), 'utf8').split('\n').filter(Boolean).slice(1).map(l => JSON.parse(l))
/** How many `user/message` events of `id`'s log carry each message id. */
export const inTranscript = (store, id) => {
  const n = new Map()
  for (const e of events(store, id)) {
    if (e.type !== 'user/message') continue
    for (const k of new Set([e.data.id, e.data.source?.dshAgentsMessageId])) if (k) n.set(k, (n.get(k) ?? 0) + 1)
  }
  return n
}
/** Nothing pending anywhere for `id`, and it is idle. */
export const drained = (store, id) => {
  const i = inbox(store, id)
  return i.nextTurn.length === 0 && i.nextStep.length === 0 && i.handing.length === 0 &&
    i.dsh.nextTurn.length === 0 && i.dsh.nextStep.length === 0 && states(store)[id] === 'idle'
}
