// docs/bridge.md's walk-through, run for real: `dsh web` (the pinned rc.8 CLI in
// dsh-plugin/node_modules) with the plugin loaded by a patch file, its model
// the project's fake DeepSeek server, and a shell session driving the agents
// with dsh-agents. Prints each shell command and what it printed.
//   PATH=<node 22>:$PATH node scripts/rc8/walkthrough.mjs [--try]
// With --try (what scripts/try-plugin.sh runs) it stops after the first turn,
// prints the commands to type in another terminal, and waits for Ctrl-C.
// A real user points DSH at DeepSeek and types the first prompt in the web UI;
// here the test stand-in (dsh-plugin/test/fixtures/user.mjs) types it.
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startFakeModel } from '../../dsh-plugin/test/fake-model.mjs'
import { startDsh } from '../../dsh-plugin/test/cli.mjs'
import { BIN, sleep, waitFor } from '../../dsh-plugin/test/harness.mjs'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const model = await startFakeModel()
const root = 'session-demo'
const dsh = startDsh({ model, mode: 'web', session: root, prompt: 'Review src/parser.rs' })
const { store } = dsh
const sh = cmd => {
  console.log(`$ ${cmd}`)
  let out
  try {
    out = execFileSync('bash', ['-c', cmd], { encoding: 'utf8', env: { ...process.env, PATH: `${dirname(BIN)}:${process.env.PATH}`, DSH_STORE: store, COLUMNS: '90' }, stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (e) { out = `${e.stdout}${e.stderr}[exit ${e.status}]\n` }
  process.stdout.write(out.replace(new RegExp(store, 'g'), '~/.dsh/sessions'))
}
const last = r => r.messages.filter(m => m.role === 'user' && !text(m.content).startsWith('Current runtime context')).at(-1)?.content
const text = c => typeof c === 'string' ? c : c.map(b => b.text ?? '').join('')
// The model: the root delegates to a reviewer child, everyone answers briefly.
;(async () => {
  for (;;) {
    const r = await model.take('any', () => true, 3600000).catch(() => undefined)
    if (r === undefined) return
    const said = text(last(r) ?? '')
    if (r.session === root && !r.all.includes('started subagent')) r.tool('subagent', { description: 'reviewer', prompt: 'Read src/parser.rs and list its bugs' })
    else if (said.includes('LONG')) r.closed.then(() => {}) // held until interrupted
    else r.text(`Done: ${said.slice(0, 48)}`)
  }
})()
const tree = () => { try { return execFileSync(BIN, ['--store', store, '--json', 'tree'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }) } catch { return '[]' } }
await waitFor('the first turn', () => { const t = JSON.parse(tree()); return t[0]?.members.length === 2 && t[0].members.every(m => m.state !== 'running') && t[0].members[0].state === 'idle' }, 60000).catch(e => { console.error(dsh.stderr, dsh.stdout); throw e })
await sleep(500)
if (process.argv.includes('--try')) {
  // The offline recipe (docs/bridge.md): DSH stays up with its scripted
  // model until Ctrl-C, for commands typed in another terminal.
  const child = JSON.parse(tree())[0].members[1].id
  console.log(`DSH (the pinned rc.8 CLI, its model the scripted fake) is running with the plugin; root ${root}, child ${child}.
In another terminal:
  export DSH_STORE=${store} PATH=${dirname(BIN)}:$PATH
  dsh-agents tree
  dsh-agents send-message --as ${root} ${child} "Also check the error paths"   # a model tool: the whole id
  dsh-agents log ${child.slice(0, 8)} --last 1
  dsh-agents followup ${root} "LONG: refactor the lexer"     # the model holds this turn open
  dsh-agents interrupt ${root}
Ctrl-C here stops DSH.`)
  await new Promise(resolve => { process.once('SIGINT', resolve); process.once('SIGTERM', resolve) })
  dsh.child.kill('SIGTERM')
  await dsh.exit()
  model.close()
  console.log('DSH stopped.')
  process.exit(0)
}
sh('dsh-agents tree')
const child = JSON.parse(tree())[0].members[1].id
sh(`dsh-agents list-agents --as ${root}`)
sh(`dsh-agents send-message --as ${root} ${child} "Also check the error paths"`)
await sleep(1500)
sh(`dsh-agents log ${child.slice(0, 8)} --last 1`)
sh(`dsh-agents followup ${root} "LONG: refactor the lexer"`)
await sleep(1000)
sh('dsh-agents tree')
sh(`dsh-agents interrupt ${root}`)
await sleep(1000)
sh(`dsh-agents tree`)
sh(`dsh-agents serve --as ${root} -- cat`)
dsh.child.kill('SIGTERM')
await dsh.exit()
sh('dsh-agents tree')
model.close()
process.exit(0)
