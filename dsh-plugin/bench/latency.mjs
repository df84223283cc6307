// Followup -> model request latency through the real `dsh` rc.8 CLI: a
// `dsh web` root held idle, then N times `dsh-agents followup` and the time
// until the fake model receives the request holding that text. Prints the
// median and p95 in ms. Run from dsh-plugin/ after `scripts/test-plugin.sh`
// installed the packages:  node bench/latency.mjs [N]
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { startFakeModel } from '../test/fake-model.mjs'
import { startDsh } from '../test/cli.mjs'
import { BIN, dshAgents, waitFor } from '../test/harness.mjs'

const run = promisify(execFile)
const N = Number(process.argv[2] ?? 40)
const model = await startFakeModel()
const root = 'session-bench-lead'
const dsh = startDsh({ model, mode: 'web', session: root, prompt: 'BENCH-TASK' })
const { store } = dsh
const state = () => JSON.parse(dshAgents(store, '--json', 'tree', '--all').stdout || '[]')
  .flatMap(t => t.members).find(m => m.id === root)?.state
try {
  (await model.take('the first prompt', q => q.session === root)).text('READY')
  await waitFor('idle', () => state() === 'idle')
  const times = []
  for (let i = 0; i < N; i++) {
    const text = `BENCH-${i}-END`
    const t0 = performance.now()
    // Asynchronously, so the fake model's server is not blocked meanwhile.
    const sent = run(BIN, ['--store', store, 'followup', root, text])
    const r = await model.take(text, q => q.session === root && q.all.includes(text))
    times.push(performance.now() - t0)
    await sent
    r.text('DONE')
    await waitFor('idle', () => state() === 'idle')
  }
  times.sort((a, b) => a - b)
  const at = q => times[Math.min(times.length - 1, Math.floor(q * times.length))]
  console.log(`followup -> model request over ${N} followups: median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms, min ${times[0].toFixed(1)} ms, max ${times.at(-1).toFixed(1)} ms`)
} finally {
  dsh.child.kill('SIGTERM')
  await dsh.exit().catch(() => {})
  model.close()
}
