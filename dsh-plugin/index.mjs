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
import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { BridgeClient } from './bridge-client.mjs'

export const name = 'dsh-agents'
export const inject = ['agents', 'sessionPersistence', 'subagents']

/**
 * @typedef {object} Config
 * @property {string} [binary] the dsh-agents executable (default: `$DSH_AGENTS_BIN`, else `dsh-agents` on PATH)
 * @property {string} [store] the session store root: DSH's JSONL persistence root (the default; any other is refused)
 */

/**
 * Refuse to start DSH with a bridge that cannot run, or that cannot read
 * its store: without it nothing protects DSH's logs from a second writer.
 * Whether the store will do is the bridge's rule (`bridge --check`).
 * @param {string} binary @param {string} store
 */
function checkBridge (binary, store) {
  const r = spawnSync(binary, ['--store', store, 'bridge', '--check'], { encoding: 'utf8', timeout: 10000 })
  if (r.error || !/^dsh-agents /.test(r.stdout ?? '')) {
    const why = r.error
      ? r.error.message
      : `\`${binary} bridge --check\` exited ${r.status ?? r.signal} without naming dsh-agents${r.stderr ? `: ${r.stderr.trim()}` : ''}`
    throw new Error(`dsh-agents plugin: the bridge binary "${binary}" cannot run (${why}); set the plugin's "binary" or $DSH_AGENTS_BIN to the dsh-agents executable`)
  }
  if (r.status !== 0) throw new Error(`dsh-agents plugin: the bridge cannot serve the store ${store}: ${r.stderr.trim()}`)
}

/**
 * The store the bridge serves: DSH's own JSONL persistence root. A `store`
 * configured apart from it is refused: the bridge would watch a directory
 * DSH never writes, and every message sent to DSH's agents would wait
 * forever while their logs stood unprotected.
 * @param {string | undefined} configured @param {string | undefined} root
 */
function storeOf (configured, root) {
  const same = (/** @type {string} */ a, /** @type {string} */ b) => {
    const real = (/** @type {string} */ p) => { try { return realpathSync(p) } catch { return resolve(p) } }
    return real(a) === real(b)
  }
  if (typeof root === 'string') {
    if (typeof configured === 'string' && !same(configured, root)) {
      throw new Error(`dsh-agents plugin: the configured store ${configured} is not DSH's session store ${root}; remove the plugin's "store" (it defaults to DSH's) or make them the same`)
    }
    return root
  }
  return configured ?? process.env.DSH_STORE
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
  const store = storeOf(config.store, persistence.root)
  if (typeof store !== 'string') throw new Error('dsh-agents plugin: no store root (set the plugin config "store")')
  const binary = config.binary ?? process.env.DSH_AGENTS_BIN ?? 'dsh-agents'
  checkBridge(binary, store)

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

  /**
   * What this process did with each message it was handed: rc.8 gets a
   * message once per process. A bridge that is started again knows nothing
   * of what the last one handed, so it may hand a message again; the repeat
   * is answered from here unless it says what makes it new (`again`: the
   * last hand-off threw, or the log proves rc.8 dropped it unrun at splice
   * `drop`). Which repeats are new is the bridge's rule; this only keeps
   * the record.
   * @type {Map<string, { state: 'pending' | 'accepted' | 'failed', error?: string, drop?: number }>}
   */
  const handed = new Map()

  /** @param {{ agent: string, via: string | null, target: string, again?: null | 'failed' | { drop: number }, message: any }} event */
  async function deliver ({ agent: id, via, target, again, message }) {
    const prior = handed.get(message.id)
    const drop = typeof again === 'object' && again !== null ? again.drop : undefined
    const renewed = drop !== undefined ? (prior?.drop ?? -1) < drop : again === 'failed' && prior?.state === 'failed'
    if (prior !== undefined && !renewed) {
      // Still under way: its own answer will come.
      if (prior.state === 'accepted') bridge.notify({ op: 'delivered', agent: id, message: message.id })
      if (prior.state === 'failed') bridge.notify({ op: 'failed', agent: id, message: message.id, error: prior.error })
      return
    }
    const record = { state: /** @type {'pending' | 'accepted' | 'failed'} */ ('pending'), drop: drop ?? prior?.drop }
    handed.set(message.id, record)
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
      record.state = 'accepted'
      bridge.notify({ op: 'delivered', agent: id, message: message.id })
    } catch (error) {
      record.state = 'failed'
      record.error = String(error?.message ?? error)
      bridge.notify({ op: 'failed', agent: id, message: message.id, error: record.error })
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
