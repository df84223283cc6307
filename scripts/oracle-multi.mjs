// Differential oracle driver (optional, never CI): for each request line
// {"root","caller","scope","compression"} on stdin, print one JSON line
// {"isError","text"} with DSH rc.8's list_agents result. Needs the rc.8
// install made by ../shared/tools/dsh-rc8/setup.sh; run from that directory.
import { createInterface } from 'node:readline'
import { SessionId } from '@deepseek-ai/dsh-session'
import { CallId } from '@deepseek-ai/dsh-llm'
import { boot } from './boot.mjs'

const contexts = new Map()
const rl = createInterface({ input: process.stdin })
for await (const line of rl) {
  if (!line.trim()) continue
  const req = JSON.parse(line)
  const key = `${req.root}\0${req.compression ?? 'none'}`
  let out
  try {
    if (!contexts.has(key)) contexts.set(key, await boot({ root: req.root, compression: req.compression ?? 'none' }))
    const ctx = contexts.get(key)
    const result = await ctx.tools.execute({
      signal: new AbortController().signal,
      callId: CallId('c'),
      name: 'list_agents',
      arguments: req.scope === undefined ? {} : { scope: req.scope },
      agent: { id: SessionId(req.caller) },
    })
    out = { isError: result.isError, text: result.content.filter(b => b.type === 'text').map(b => b.text).join('') }
  } catch (error) {
    out = { isError: true, text: `THROWN: ${error.message}` }
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}
process.exit(0)
