// An rc.8 runtime in one Node process for the plugin's tests: the real
// published @deepseek-ai/* 0.1.0-rc.8 packages (agent loop, subagent runtime,
// spawn provider, JSONL persistence, subagent-control tools) with a scripted
// model whose `requests` record every model request, and this plugin loaded.
import { Context } from '@deepseek-ai/cordis'
import LlmRuntime, { CallId, LlmAdapter } from '@deepseek-ai/dsh-llm'
import SessionStore, { SessionId } from '@deepseek-ai/dsh-session'
import SystemPrompt from '@deepseek-ai/dsh-system-prompt'
import ToolRuntime from '@deepseek-ai/dsh-tools'
import AgentRegistry from '@deepseek-ai/dsh-agent'
import AgentLoop from '@deepseek-ai/dsh-agent-loop'
import JsonlSessionPersistence from '@deepseek-ai/dsh-session-persistence-jsonl'
import SessionProjectionRegistry from '@deepseek-ai/dsh-session-projection'
import SubagentRuntime from '@deepseek-ai/dsh-subagent'
import * as SubagentSpawn from '@deepseek-ai/dsh-subagent-spawn-in-process'
import * as Control from '@deepseek-ai/dsh-tool-subagent-control'
import * as ListAgents from '@deepseek-ai/dsh-tool-subagent-control/list-agents'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as Plugin from '../index.mjs'

export { SessionId, CallId }
const here = dirname(fileURLToPath(import.meta.url))
/** The dsh-agents binary under test: `$DSH_AGENTS_BIN`, else the crate's debug build. */
export const BIN = process.env.DSH_AGENTS_BIN ?? join(here, '..', '..', 'target', 'debug', 'dsh-agents')
export const sleep = ms => new Promise(r => setTimeout(r, ms))
export const waitFor = async (what, pred, ms = 15000) => {
  const t = Date.now()
  while (!(await pred())) { if (Date.now() - t > ms) throw new Error(`timed out waiting for ${what}`); await sleep(20) }
}
export const gate = () => { let r; const p = new Promise(res => { r = res }); return { p, release: () => r(undefined) } }

const text = t => [
  { type: 'block-start', index: 0, blockType: 'text' },
  { type: 'text-delta', index: 0, text: t },
  { type: 'block-end', index: 0, block: { type: 'text', text: t } },
  { type: 'usage', usage: { inputTokens: 10, outputTokens: 1 } },
  { type: 'finish', reason: { kind: 'stop' } },
]
export const msgText = m => (m.content ?? []).map(b => b.type === 'text' ? b.text : `[${b.type}]`).join(' | ')

/** Replies "reply#N"; a request whose text holds a gate keyword waits for it (or an abort). */
export class Scripted extends LlmAdapter {
  requests = []
  gates = new Map()
  async * stream (options) {
    this.requests.push(options)
    const all = options.messages.map(msgText).join('\n')
    for (const [kw, g] of this.gates) if (all.includes(kw)) {
      this.gates.delete(kw)
      const aborted = new Promise(res => options.signal?.addEventListener('abort', res, { once: true }))
      await Promise.race([g.p, aborted])
      if (options.signal?.aborted) throw new Error('aborted')
    }
    for (const c of text(`reply#${this.requests.length}`)) { if (options.signal?.aborted) throw new Error('aborted'); yield c }
  }
  gate (kw) { const g = gate(); this.gates.set(kw, g); return g }
  /** Requests of one session whose messages contain `needle`. */
  seen (sessionId, needle) {
    return this.requests.filter(r => r.sessionId === sessionId && r.messages.some(m => msgText(m).includes(needle)))
  }
}

// Every store a test made, and the DSH home beside it (cli.mjs), is removed
// when the test file's process ends, however its tests ended.
const made = []
process.on('exit', () => {
  for (const dir of made) {
    for (const path of [dir, `${dir}-home`]) {
      try { rmSync(path, { recursive: true, force: true }) } catch {}
    }
  }
})
export function tempStore () {
  const dir = mkdtempSync(join(tmpdir(), 'dsh-plugin-test-'))
  made.push(dir)
  return dir
}

/** Run the dsh-agents binary; returns { code, stdout, stderr }. */
export function dshAgents (store, ...args) {
  try {
    const stdout = execFileSync(BIN, ['--store', store, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    return { code: 0, stdout, stderr: '' }
  } catch (e) {
    return { code: e.status, stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? '') }
  }
}

export async function boot ({ root, plugin = true, cwd = process.cwd() }) {
  const ctx = new Context()
  await ctx.plugin(LlmRuntime); await ctx.plugin(SessionStore); await ctx.plugin(SystemPrompt, {})
  await ctx.plugin(ToolRuntime, {}); await ctx.plugin(AgentRegistry)
  await ctx.plugin(JsonlSessionPersistence, { root, compression: 'none' })
  await ctx.plugin(AgentLoop, { agents: [] })
  await ctx.plugin(SessionProjectionRegistry); await ctx.plugin(SubagentRuntime)
  await ctx.plugin(SubagentSpawn, { providerName: 'spawn' })
  await ctx.plugin(Control); await ctx.plugin(ListAgents)
  const adapter = new Scripted()
  ctx.llm.registerAdapter(['mock'], adapter)
  if (plugin) await ctx.plugin(Plugin, { binary: BIN, store: root })
  const env = { ctx, adapter, cwd }
  env.createRoot = id => ctx.agentLoop.create(SessionId(id), { provider: 'mock', model: 'mock' }, { cwd })
  env.start = (parent, label, prompt = label) => ctx.subagents.startContinuable({ provider: 'spawn', label, request: { prompt: [{ type: 'text', text: prompt }], parent }, signal: new AbortController().signal })
  env.resume = async id => (await ctx.agents.resume({ resumeSessionId: SessionId(id), agentOptions: { provider: 'mock', model: 'mock' } })).agent
  env.dispose = () => ctx.scope.dispose?.() ?? ctx.registry?.dispose?.()
  return env
}
