// The plugin's end of the `dsh-agents bridge` protocol: one JSON object per
// line each way. Requests that carry `req` get a `{"reply": req, "ok": …}`;
// events (`deliver`, `interrupt`, `conflict`, `ready`) go to `onEvent`.
// Only transport lives here: every inbox and liveness rule is in the bridge.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

/**
 * @typedef {{ event: string, [key: string]: unknown }} BridgeEvent
 * @typedef {{ reply: number | null, ok: boolean, error?: string }} BridgeReply
 */

export class BridgeClient {
  /**
   * @param {{ binary: string, store: string, onEvent: (e: BridgeEvent) => void, log?: (msg: string) => void }} options
   */
  constructor ({ binary, store, onEvent, log = () => {} }) {
    this.next = 0
    /** @type {Map<number, { resolve: (r: BridgeReply) => void }>} */
    this.waiting = new Map()
    this.closed = false
    this.child = spawn(binary, ['--store', store, 'bridge'], { stdio: ['pipe', 'pipe', 'inherit'] })
    this.exited = new Promise(resolve => this.child.on('exit', resolve))
    this.child.on('error', e => { log(`dsh-agents bridge could not start: ${e.message}`); this.fail(e.message) })
    this.child.on('exit', code => { if (!this.closed) log(`dsh-agents bridge exited (${code})`); this.fail('the bridge exited') })
    this.child.stdin.on('error', () => {})
    const lines = createInterface({ input: this.child.stdout })
    lines.on('line', line => {
      let msg
      try { msg = JSON.parse(line) } catch { return log(`bridge sent a line that is not JSON: ${line}`) }
      if ('reply' in msg && typeof msg.reply === 'number') {
        const w = this.waiting.get(msg.reply)
        this.waiting.delete(msg.reply)
        w?.resolve(msg)
      } else if (typeof msg.event === 'string') {
        onEvent(msg)
      }
    })
  }

  /** @param {string} why */
  fail (why) {
    for (const w of this.waiting.values()) w.resolve({ reply: null, ok: false, error: why })
    this.waiting.clear()
  }

  /** Send without waiting. @param {Record<string, unknown>} message */
  notify (message) {
    if (this.closed || this.child.exitCode !== null) return
    this.child.stdin.write(JSON.stringify(message) + '\n')
  }

  /** Send and wait for the reply. @param {Record<string, unknown>} message @returns {Promise<BridgeReply>} */
  request (message) {
    if (this.closed || this.child.exitCode !== null) return Promise.resolve({ reply: null, ok: false, error: 'the bridge is not running' })
    const req = ++this.next
    return new Promise(resolve => {
      this.waiting.set(req, { resolve })
      this.child.stdin.write(JSON.stringify({ ...message, req }) + '\n')
    })
  }

  /** Close stdin: the bridge releases every lock and exits. */
  async close () {
    this.closed = true
    this.child.stdin.end()
    await this.exited
  }
}
