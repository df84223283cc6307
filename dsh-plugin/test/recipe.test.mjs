// The offline recipe of docs/bridge.md, as a new user follows it: run
// `scripts/rc8/walkthrough.mjs --try` (what scripts/try-plugin.sh runs once
// Node and the packages are in place), type the commands it prints in another
// shell, and stop it with Ctrl-C. Every printed command must work, and Ctrl-C
// must leave no DSH process behind.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { waitFor, sleep } from './harness.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const walkthrough = join(repo, 'scripts', 'rc8', 'walkthrough.mjs')

test('the offline recipe: every command it prints works, and Ctrl-C stops DSH', async () => {
  const child = spawn(process.execPath, [walkthrough, '--try'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', d => { out += d })
  child.stderr.on('data', d => { err += d })
  const exited = new Promise(resolve => child.on('exit', (code, signal) => resolve({ code, signal })))
  try {
    await waitFor('the recipe to print its commands', () => out.includes('Ctrl-C here stops DSH.'), 120000)
      .catch(e => { throw new Error(`${e.message}\n${out}\n${err}`) })
    const exportLine = out.split('\n').find(l => l.trim().startsWith('export DSH_STORE='))
    assert.ok(exportLine, out)
    const [, store, path] = exportLine.trim().match(/^export DSH_STORE=(\S+) PATH=(\S+):\$PATH$/)
    const env = { ...process.env, DSH_STORE: store, PATH: `${path}:${process.env.PATH}` }
    const commands = out.split('\n')
      .map(l => l.trim())
      .filter(l => l.startsWith('dsh-agents '))
      .map(l => l.replace(/\s+#.*$/, ''))
    assert.equal(commands.length, 5, out)
    const said = []
    for (const cmd of commands) {
      const r = (() => {
        try {
          return { code: 0, stdout: execFileSync('bash', ['-c', cmd], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) }
        } catch (e) { return { code: e.status, stdout: `${e.stdout}${e.stderr}` } }
      })()
      assert.equal(r.code, 0, `${cmd}: ${r.stdout}`)
      said.push(r.stdout)
      // Each step settles before the next, as a person typing would wait.
      if (cmd.includes('send-message')) {
        await waitFor('the child to run the message', () =>
          execFileSync('bash', ['-c', commands.find(c => c.includes(' log '))], { env, encoding: 'utf8' }).includes('Also check the error paths'), 60000)
      } else await sleep(300)
    }
    assert.match(said[0], /^tree session-demo/, said[0])
    assert.match(said[1], /^message delivered to agent /)
    assert.match(said[2], /Agent lead sent a message: Also check the error paths/)
    assert.match(said[3], /^message queued as the next turn for agent session-demo/)
    assert.match(said[4], /^interrupt requested for agent session-demo/)
  } finally {
    child.kill('SIGINT')
  }
  let timer
  const late = new Promise(resolve => { timer = setTimeout(() => resolve({ code: 'timeout' }), 60000) })
  const { code } = await Promise.race([exited, late])
  clearTimeout(timer)
  if (code === 'timeout') child.kill('SIGKILL')
  assert.equal(code, 0, `${out}\n${err}`)
  assert.match(out, /DSH stopped\./)
})
