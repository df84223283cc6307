// The plugin's end of the `dsh-agents bridge` protocol: one JSON object per
// line each way. Requests that carry `req` get a `{"reply": req, "ok": …}`;
// events (`deliver`, `interrupt`, `conflict`, `ready`) go to `onEvent`.
// The client supervises the bridge: when it exits it is started again (with
// backoff), and `onReady` runs each time one is up, so the plugin can tell
// the new bridge what DSH holds. Requests made while no bridge is up wait
// for the next one (up to `waitMs`). Only transport lives here: every inbox
// and liveness rule is in the bridge.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

/**
 * @typedef {{ event: string, [key: string]: unknown }} BridgeEvent
 * @typedef {{ reply: number | null, ok: boolean, error?: string }} BridgeReply
 */

export class BridgeClient {
  /**
   * @param {{ binary: string, store: string, onEvent: (e: BridgeEvent) => void, onReady?: () => void, log?: (msg: string) => void, waitMs?: number }} options
   */
  constructor ({ binary, store, onEvent, onReady = () => {}, log = () => {}, waitMs = 30000 }) {
    Object.assign(this, { binary, store, onEvent, onReady, log, waitMs })
    this.next = 0
    /** @type {Map<number, { resolve: (r: BridgeReply) => void }>} */
    this.waiting = new Map()
    /** @type {(() => void)[]} run once a bridge is ready */
    this.queued = []
    this.closed = false
    this.ready = false
    this.failures = 0
    /** @type {import('node:child_process').ChildProcess | undefined} */
    this.child = undefined
    this.exited = Promise.resolve()
    this.start()
  }

  start () {
    if (this.closed) return
    const child = spawn(this.binary, ['--store', this.store, 'bridge'], { stdio: ['pipe', 'pipe', 'inherit'] })
    this.child = child
    this.exited = new Promise(resolve => child.on('close', resolve))
    let failed = false
    const down = (/** @type {string} */ why) => {
      if (failed) return
      failed = true
      this.ready = false
      for (const w of this.waiting.values()) w.resolve({ reply: null, ok: false, error: why })
      this.waiting.clear()
      if (this.closed) return
      this.failures++
      const delay = Math.min(100 * 2 ** Math.min(this.failures, 6), 5000)
      this.log(`${why}; starting it again in ${delay} ms`)
      setTimeout(() => this.start(), delay).unref?.()
    }
    child.on('error', e => down(`the dsh-agents bridge (${this.binary}) could not start: ${e.message}`))
    child.on('exit', (code, signal) => down(`the dsh-agents bridge exited (${signal ?? code})`))
    child.stdin.on('error', () => {})
    const lines = createInterface({ input: child.stdout })
    lines.on('line', line => {
      let msg
      try { msg = JSON.parse(line) } catch { return this.log(`the bridge sent a line that is not JSON: ${line}`) }
      if ('reply' in msg && typeof msg.reply === 'number') {
        const w = this.waiting.get(msg.reply)
        this.waiting.delete(msg.reply)
        w?.resolve(msg)
      } else if (msg.event === 'ready') {
        if (this.failures > 0) this.log('the dsh-agents bridge is running again')
        this.failures = 0
        this.ready = true
        this.onReady()
        for (const run of this.queued.splice(0)) run()
      } else if (typeof msg.event === 'string') {
        this.onEvent(msg)
      }
    })
  }

  /** Send without waiting (dropped while no bridge is up: `onReady` restates what matters). @param {Record<string, unknown>} message */
  notify (message) {
    if (this.closed || !this.ready) return
    this.child?.stdin?.write(JSON.stringify(message) + '\n')
  }

  /** Send and wait for the reply, waiting for a bridge first. @param {Record<string, unknown>} message @returns {Promise<BridgeReply>} */
  request (message) {
    if (this.closed) return Promise.resolve({ reply: null, ok: false, error: 'the bridge is closed' })
    return new Promise(resolve => {
      /** @type {NodeJS.Timeout | undefined} */
      let timer
      const send = () => {
        clearTimeout(timer)
        const req = ++this.next
        this.waiting.set(req, { resolve })
        this.child?.stdin?.write(JSON.stringify({ ...message, req }) + '\n')
      }
      if (this.ready) return send()
      this.queued.push(send)
      timer = setTimeout(() => {
        const i = this.queued.indexOf(send)
        if (i >= 0) this.queued.splice(i, 1)
        resolve({ reply: null, ok: false, error: `the dsh-agents bridge is not running (waited ${this.waitMs} ms)` })
      }, this.waitMs)
      timer.unref?.()
    })
  }

  /** Close stdin: the bridge releases every lock and exits. */
  async close () {
    this.closed = true
    this.child?.stdin?.end()
    await this.exited
  }
}
