// dsh-agents plugin for DSH 0.1.0-rc.8: a Cordis plugin that starts one
// `dsh-agents bridge` for this DSH process (and starts it again when it
// dies) and wires it to rc.8's own calls.
//
//   residency  agent/created, agent/status, agent/disposed  -> created / status / release
//   resume     sessionPersistence.prepare(id)  -> hold first (the lock), then read
//   delivery   bridge `deliver` -> agent.steer / agent.followup, or
//              ctx.subagents.followup(parent, child, …) for a cold child
//   interrupt  bridge `interrupt` -> agent.cancel(cause, { keepInbox: true })
//
// It stays thin: which message to deliver, when, and what a claim is are
// decided by the bridge (the dsh-agents crate), never here. What goes wrong
// is written to DSH's stderr (the rc.8 CLI prints nothing of `ctx.logger`).
import { spawnSync } from 'node:child_process'
import { BridgeClient } from './bridge-client.mjs'

export const name = 'dsh-agents'
export const inject = ['agents', 'sessionPersistence', 'subagents']

/**
 * @typedef {object} Config
 * @property {string} [binary] the dsh-agents executable (default: `$DSH_AGENTS_BIN`, else `dsh-agents` on PATH)
 * @property {string} [store] the session store root (default: the JSONL persistence root)
 */

/**
 * Refuse to start DSH with a bridge that cannot run: without it nothing
 * protects DSH's logs from a second writer. @param {string} binary
 */
function checkBinary (binary) {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10000 })
  const why = r.error
    ? r.error.message
    : r.status !== 0 || !/^dsh-agents /.test(r.stdout ?? '')
      ? `\`${binary} --version\` exited ${r.status ?? r.signal} without naming dsh-agents${r.stderr ? `: ${r.stderr.trim()}` : ''}`
      : undefined
  if (why !== undefined) {
    throw new Error(`dsh-agents plugin: the bridge binary "${binary}" cannot run (${why}); set the plugin's "binary" or $DSH_AGENTS_BIN to the dsh-agents executable`)
  }
}

/**
 * @param {any} ctx the Cordis context of the DSH process
 * @param {Config} [config]
 */
export function apply (ctx, config = {}) {
  const log = (/** @type {string} */ msg) => {
    process.stderr.write(`dsh-agents: ${msg}\n`)
    ctx.logger?.warn?.(`dsh-agents: ${msg}`)
  }
  const persistence = ctx.sessionPersistence
  const store = config.store ?? persistence.root ?? process.env.DSH_STORE
  if (typeof store !== 'string') throw new Error('dsh-agents plugin: no store root (set the plugin config "store")')
  const binary = config.binary ?? process.env.DSH_AGENTS_BIN ?? 'dsh-agents'
  checkBinary(binary)

  /** Tell a (new) bridge every agent this process holds. */
  const announce = () => {
    for (const agent of ctx.agents.list?.() ?? []) created(agent)
  }
  const bridge = new BridgeClient({ binary, store, log, onEvent: event => { handle(event) }, onReady: announce })

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
      bridge.notify({ op: 'delivered', agent: id, message: message.id })
    } catch (error) {
      bridge.notify({ op: 'failed', agent: id, message: message.id, error: String(error?.message ?? error) })
    }
  }

  /** @param {any} agent */
  async function created (agent) {
    const reply = await bridge.request({ op: 'created', agent: String(agent.id), status: agent.status === 'running' ? 'running' : 'idle' })
    if (!reply.ok) log(`agent ${agent.id} is resident here but not protected: ${reply.error}`)
  }

  ctx.on('agent/created', ({ agent }) => { created(agent) })
  ctx.on('agent/status', ({ agent, status }) => {
    bridge.notify({ op: 'status', agent: String(agent.id), status: status === 'running' ? 'running' : 'idle' })
  })
  ctx.on('agent/disposed', ({ agent }) => {
    bridge.notify({ op: 'release', agent: String(agent.id) })
  })

  // rc.8 has no hook before a stored log is read for resume: wrap prepare so
  // the lock is ours before the first read, and refuse when another holds it.
  const prepare = persistence.prepare
  persistence.prepare = async function (/** @type {string} */ id, /** @type {AbortSignal} */ signal) {
    // A holder that is going away (the bridge of a DSH process that just
    // died lets go when it sees its stdin close) gets a moment to do so.
    let reply = await bridge.request({ op: 'hold', agent: String(id) })
    for (let tries = 0; !reply.ok && tries < 10; tries++) {
      await new Promise(resolve => setTimeout(resolve, 200))
      reply = await bridge.request({ op: 'hold', agent: String(id) })
    }
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
