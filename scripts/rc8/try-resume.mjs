import { boot, SessionId } from './live.mjs'
const env = await boot({ root: process.argv[2] })
for (const id of process.argv.slice(3)) {
  try { const h = await env.ctx.agents.resume({ resumeSessionId: SessionId(id), agentOptions: { provider: 'mock', model: 'mock' } }); console.log(id, 'resumed') }
  catch (e) { console.log(id, 'ERR', String(e.message), e.cause ? String(e.cause.message ?? e.cause) : '') }
}
process.exit(0)
