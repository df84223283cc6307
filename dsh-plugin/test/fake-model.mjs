// A fake DeepSeek (OpenAI-compatible, streaming) chat-completions server on
// 127.0.0.1 for the end-to-end tests: the real `dsh` CLI's DeepSeek provider
// talks to it. Every model request is held until the test answers it, so a
// test decides exactly when an agent is running and what it does next.
// Session-title side requests are answered at once.
import http from 'node:http'

/**
 * @typedef {object} Request
 * @property {string} session the harness session id (`x-deepseek-harness-session-id`)
 * @property {any[]} messages the OpenAI-style messages the model was sent
 * @property {string} all every message's text, joined by newlines
 * @property {string[]} tools the names of the tools the model was offered
 * @property {(text: string) => void} text answer with assistant text (ends the turn)
 * @property {(name: string, args: object) => void} tool answer with one tool call
 * @property {Promise<void>} closed resolves when the client went away (an aborted turn)
 */

const contentText = c => typeof c === 'string' ? c : Array.isArray(c) ? c.map(b => b?.text ?? '').join('') : ''
/** Every message's text, tool results and tool-call arguments included. */
export const allText = messages => messages.map(m => [contentText(m.content), ...(m.tool_calls ?? []).map(c => c.function?.arguments ?? '')].join('\n')).join('\n')
/** How often `needle` occurs in `hay`. */
export const count = (hay, needle) => hay.split(needle).length - 1

export async function startFakeModel () {
  /** @type {Request[]} */
  const requests = []
  /** @type {Request[]} */
  const open = []
  /** @type {{ pred: (r: Request) => boolean, resolve: (r: Request) => void }[]} */
  const takers = []
  let seq = 0
  const chunk = (choice) => ({ id: `fake-${++seq}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: 'fake', choices: [{ index: 0, ...choice }] })
  const usage = { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }
  const sse = (res, chunks) => {
    if (res.destroyed) return
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`)
    res.end('data: [DONE]\n\n')
  }
  const textChunks = t => [
    chunk({ delta: { role: 'assistant', content: t }, finish_reason: null }),
    { ...chunk({ delta: {}, finish_reason: 'stop' }), usage },
  ]
  const toolChunks = (name, args) => [
    chunk({ delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${++seq}`, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }, finish_reason: null }),
    { ...chunk({ delta: {}, finish_reason: 'tool_calls' }), usage },
  ]
  /** @type {((r: Request) => void) | undefined} */
  let auto
  const offer = r => {
    if (auto) return auto(r)
    const i = takers.findIndex(t => t.pred(r))
    if (i < 0) return open.push(r)
    takers.splice(i, 1)[0].resolve(r)
  }
  const server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', d => { raw += d })
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) { res.writeHead(404); res.end('{}'); return }
      const body = JSON.parse(raw)
      const isTitle = (body.tools ?? []).length === 0 && (body.max_tokens ?? 0) <= 256
      if (isTitle) return sse(res, textChunks('Fake Title'))
      const messages = body.messages ?? []
      /** @type {Request} */
      const r = {
        session: String(req.headers['x-deepseek-harness-session-id']),
        messages,
        all: allText(messages),
        tools: (body.tools ?? []).map(t => t.function?.name),
        text: t => sse(res, textChunks(t)),
        tool: (name, args) => sse(res, toolChunks(name, args)),
        closed: new Promise(resolve => res.on('close', () => resolve())),
      }
      requests.push(r)
      offer(r)
    })
  })
  await new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    /**
     * The next unanswered request matching `pred` (waiting for one to arrive).
     * @param {string} what
     * @param {(r: Request) => boolean} pred
     * @returns {Promise<Request>}
     */
    take (what, pred = () => true, ms = 30000) {
      const i = open.findIndex(pred)
      if (i >= 0) return Promise.resolve(open.splice(i, 1)[0])
      return new Promise((resolve, reject) => {
        const t = { pred, resolve: r => { clearTimeout(timer); resolve(r) } }
        const timer = setTimeout(() => { takers.splice(takers.indexOf(t), 1); reject(new Error(`timed out waiting for the model request: ${what}`)) }, ms)
        takers.push(t)
      })
    },
    /** Answer every request (waiting and future) with `f` from now on; `undefined` stops. */
    auto (f) {
      auto = f
      if (f) for (const r of open.splice(0)) f(r)
    },
    close () { server.closeAllConnections(); server.close() },
  }
}
