// dsh-agents plugin for DSH 0.1.0-rc.8: a Cordis plugin that starts one
// `dsh-agents bridge` for this DSH process and wires it to rc.8's own calls.
//
//   residency  agent/created, agent/status, agent/disposed  -> hold / status / release
//   resume     sessionPersistence.prepare(id)  -> hold first (the lock), then read
//   delivery   bridge `deliver` -> agent.steer / agent.followup, or
//              ctx.subagents.followup(parent, child, …) for a cold child
//   interrupt  bridge `interrupt` -> agent.cancel(cause, { keepInbox: true })
//
// It stays thin: which message to deliver, when, and what a claim is are
// decided by the bridge (the dsh-agents crate), never here.
import { dirname } from 'node:path'
import { BridgeClient } from './bridge-client.mjs'

export const name = 'dsh-agents'
export const inject = ['agents', 'sessionPersistence', 'subagents']

/**
 * @typedef {object} Config
 * @property {string} [binary] the dsh-agents executable (default: `$DSH_AGENTS_BIN`, else `dsh-agents` on PATH)
 * @property {string} [store] the session store root (default: the JSONL persistence root)
 */

/**
 * @param {any} ctx the Cordis context of the DSH process
 * @param {Config} [config]
 */
export function apply (ctx, config = {}) {
  const log = (/** @type {string} */ msg) => ctx.logger?.warn?.(`dsh-agents: ${msg}`)
  const persistence = ctx.sessionPersistence
  /** @param {any} agent @returns {string | undefined} the session directory */
  const dirOf = agent => {
    const path = persistence.locate?.(agent.session.header)?.path
    return path === undefined ? undefined : dirname(path)
  }
  const store = config.store ?? persistence.root ?? process.env.DSH_STORE
  if (typeof store !== 'string') throw new Error('dsh-agents: no store root (set the plugin config "store")')
  const binary = config.binary ?? process.env.DSH_AGENTS_BIN ?? 'dsh-agents'
  const bridge = new BridgeClient({ binary, store, log, onEvent: event => { handle(event) } })

  /** @param {any} event */
  async function handle (event) {
    if (event.event === 'deliver') return deliver(event)
    if (event.event === 'interrupt') {
      ctx.agents.get(event.agent)?.cancel(event.cause, { keepInbox: true })
      return
    }
    if (event.event === 'conflict') log(`agent ${event.agent}: ${event.error}`)
  }

  /** @param {{ agent: string, via: string | null, target: string, message: any }} event */
  async function deliver ({ agent: id, via, target, message }) {
    try {
      if (via) {
        const parent = ctx.agents.get(via)
        if (parent === undefined) throw new Error(`parent agent ${via} is not resident`)
        await ctx.subagents.followup(parent, id, message.content, { source: message.source, signal: new AbortController().signal })
      } else {
        const agent = ctx.agents.get(id)
        if (agent === undefined) throw new Error(`agent ${id} is not resident`)
        if (target === 'next-step') agent.steer(message)
        else agent.followup(message)
      }
      await bridge.request({ op: 'delivered', agent: id, message: message.id })
    } catch (error) {
      bridge.notify({ op: 'failed', agent: id, message: message.id, error: String(error?.message ?? error) })
    }
  }

  ctx.on('agent/created', async ({ agent }) => {
    const reply = await bridge.request({ op: 'hold', agent: agent.id, dir: dirOf(agent), status: agent.status })
    if (!reply.ok) log(`agent ${agent.id} is resident here but ${reply.error}`)
  })
  ctx.on('agent/status', ({ agent, status }) => {
    bridge.notify({ op: 'status', agent: agent.id, status })
  })
  ctx.on('agent/disposed', ({ agent }) => {
    bridge.notify({ op: 'release', agent: agent.id })
  })

  // rc.8 has no hook before a stored log is read for resume: wrap prepare so
  // the lock is ours before the first read, and refuse when another holds it.
  const prepare = persistence.prepare
  persistence.prepare = async function (/** @type {string} */ id, /** @type {AbortSignal} */ signal) {
    const reply = await bridge.request({ op: 'hold', agent: String(id) })
    if (!reply.ok) throw new Error(`dsh-agents: cannot resume ${id}: ${reply.error}`)
    try {
      return await prepare.call(this, id, signal)
    } catch (error) {
      if (ctx.agents.get(id) === undefined) bridge.notify({ op: 'release', agent: String(id) })
      throw error
    }
  }

  ctx.effect(() => () => {
    persistence.prepare = prepare
    return bridge.close()
  })
}
