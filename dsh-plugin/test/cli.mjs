// The real `dsh` 0.1.0-rc.8 CLI (the pinned devDependency), run as a user
// runs it: its DeepSeek provider pointed at the fake model on 127.0.0.1,
// the JSONL store under a temporary root, and this plugin loaded through a
// `--patch` row. `dsh --profile headless` runs one task; `dsh web` stays up
// with the test's stand-in user (fixtures/user.mjs) starting a root.
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BIN, tempStore, waitFor } from './harness.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
export const DSH = join(dirname(require.resolve('@deepseek-ai/dsh/package.json')), 'lib', 'bin.js')
const PLUGIN = join(here, '..', 'index.mjs')
const USER = join(here, 'fixtures', 'user.mjs')

/**
 * One `dsh` process. `mode` is `headless` (args: the task) or `web`
 * (the stand-in user starts root `session` with `prompt`).
 * `home` is its DSH_HOME (by default one beside the store); `pluginStore`, when given, is the plugin's `store` setting (by default the plugin takes DSH's persistence root).
 * @param {{ model: { url: string }, mode: 'headless' | 'web', task?: string, session?: string, prompt?: string, resume?: boolean, store?: string, plugin?: boolean, binary?: string, cwd?: string, env?: object, pluginStore?: string, home?: string }} o
 */
export function startDsh ({ model, mode, task = '', session, prompt, resume = false, store = tempStore(), plugin = true, binary = BIN, cwd = store, env = {}, pluginStore, home = join(store, '..', `${store.split('/').at(-1)}-home`) }) {
  mkdirSync(home, { recursive: true })
  const patch = join(home, 'test.yml')
  const rows = [
    '- id: agent-default-model',
    '  config: { provider: deepseek-official, model: fake-model }',
    '- id: llm-deepseek',
    '  config: { thinking: disabled, retryPolicy: { mode: normal } }',
    '- id: session-persistence-jsonl',
    `  config: { root: ${JSON.stringify(store)}, compression: none }`,
  ]
  // A new plugin is an `insert` row (patch rows only target existing ids).
  const insert = (id, path, config) => rows.push(`- insert: [{ id: ${id}, name: ${JSON.stringify(path)}, config: ${JSON.stringify(config)} }]`)
  // The store is the plugin's default: the JSONL persistence root.
  if (plugin) insert('dsh-agents', PLUGIN, pluginStore === undefined ? { binary } : { binary, store: pluginStore })
  if (mode === 'web') insert('dsh-agents-test-user', USER, { session, prompt, resume })
  writeFileSync(patch, rows.join('\n') + '\n')
  const args = mode === 'web'
    ? [DSH, 'web', '--patch', patch, '--no-open', '--port', '0']
    : [DSH, '--profile', 'headless', '--patch', patch, task]
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, DSH_HOME: home, DEEPSEEK_BASE_URL: model.url, DEEPSEEK_API_KEY: 'x', DSH_TELEMETRY_DISABLED: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', d => { stdout += d })
  child.stderr.on('data', d => { stderr += d })
  const exited = new Promise(resolve => child.on('exit', (code, signal) => resolve({ code, signal })))
  return {
    store,
    child,
    exited,
    get stdout () { return stdout },
    get stderr () { return stderr },
    /** SIGTERM, as a user stops `dsh web`; resolves with the exit code. */
    async stop () {
      child.kill('SIGTERM')
      return (await this.exit()).code
    },
    /** Resolves with the exit status; rejects (with what dsh printed) after `ms`. */
    async exit (ms = 30000) {
      let timer
      const late = new Promise((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`dsh did not exit\n${stderr}`)), ms) })
      try { return await Promise.race([exited, late]) } finally { clearTimeout(timer) }
    },
  }
}

export { waitFor }
