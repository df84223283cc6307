// The plugin in a real rc.8 runtime (in-process, scripted model), driving the
// real dsh-agents binary from the shell side.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { boot, tempStore, dshAgents, waitFor, sleep } from './harness.mjs'

test('shell messages reach a resident root and a cold child; interrupts stop the turn; serve is refused', async () => {
  const root = tempStore()
  const env = await boot({ root })
  const lead = env.createRoot('lead-1')
  const { childId } = await env.start(lead, 'worker', 'CHILD-FIRST')
  await waitFor('child first turn', () => env.adapter.seen(childId, 'CHILD-FIRST').length > 0)
  await waitFor('child disposed', () => env.ctx.agents.get(childId) === undefined)
  const rootState = () => JSON.parse(dshAgents(root, '--json', 'tree').stdout || '[]')[0]?.members[0]?.state
  // The bridge takes the lock on its next pass once the root's log exists.
  await waitFor('a resident idle root', () => rootState() === 'idle')

  assert.equal(dshAgents(root, 'followup', 'lead-1', 'HELLO-FROM-SHELL').code, 0)
  await waitFor('root got it', () => env.adapter.seen('lead-1', 'HELLO-FROM-SHELL').length > 0)
  assert.equal(dshAgents(root, 'send-message', '--as', 'lead-1', childId, 'CHILD-MSG-FROM-SHELL').code, 0)
  await waitFor('cold child got it', () => env.adapter.seen(childId, 'CHILD-MSG-FROM-SHELL').length > 0)
  await sleep(500)
  assert.equal(env.adapter.seen('lead-1', 'HELLO-FROM-SHELL').filter(r => r.messages.at(-2) !== undefined).length >= 1, true)
  const inbox = JSON.parse(dshAgents(root, '--json', 'inbox', childId).stdout)
  assert.deepEqual([inbox.nextStep.length, inbox.nextTurn.length], [0, 0], 'claimed once delivered')

  env.adapter.gate('GATED-WORK')
  dshAgents(root, 'followup', 'lead-1', 'GATED-WORK now')
  await waitFor('gated turn running', () => env.adapter.seen('lead-1', 'GATED-WORK').length > 0)
  await sleep(100)
  assert.equal(rootState(), 'running')
  assert.equal(dshAgents(root, 'interrupt', 'lead-1').code, 0)
  await waitFor('turn aborted', () => dshAgents(root, '--json', 'log', 'lead-1').stdout.includes('"ending":"aborted"'))

  const serve = dshAgents(root, 'serve', '--as', 'lead-1', '--once', '--', 'true')
  assert.equal(serve.code, 3)
  assert.match(serve.stderr, /already live/)
  process.exit(0)
})
