// A hostile guest forging worker messages on the raw worker port (§8, §9.1, §12; H3, H4).
// The invocation's metadata key `forge` says what to post, `{message, fault}`:
//   message: `log` | `storage` (capability calls), `exit-ok` | `exit-error` (hook exits)
//   fault:   `foreign` (another invocation id), `stale` (the previous invocation's id),
//            `missing` (no invocationId), `chain` (another call chain), `partial` (no
//            callChainId: an incomplete invocation scope)
// Without `forge` it logs through the SDK and returns, remembering its invocation id.
import { hooks, log } from 'motrix:plugin-api'

let previous = null

function scopeFor(fault, own, stale) {
  const scope = { invocationId: own, callChainId: own, permissionGeneration: 0 }
  if (fault === 'foreign') scope.invocationId = own + '-other'
  if (fault === 'stale') { scope.invocationId = stale; scope.callChainId = stale }
  if (fault === 'missing') delete scope.invocationId
  if (fault === 'chain') scope.callChainId = 'chain-of-another-entry'
  if (fault === 'partial') delete scope.callChainId
  return scope
}

function forged(message, scope) {
  if (message === 'log') {
    return { type: 'call', id: 9001, capability: 'log', method: 'info',
      args: ['forged log', { forged: true }], ...scope }
  }
  if (message === 'storage') {
    return { type: 'call', id: 9002, capability: 'storage', method: 'set',
      args: ['forged', true], ...scope }
  }
  if (message === 'exit-ok') {
    return { type: 'event', event: 'hookExit', ...scope, ok: true,
      effects: { schemaVersion: 1, contextPatches: [{ filePath: '/downloads/forged.bin' }],
        metadataOperations: [{ op: 'set', key: 'forged', value: true }] } }
  }
  return { type: 'event', event: 'hookExit', ...scope, ok: false,
    error: { code: 'guest.forged', message: 'forged error exit' } }
}

hooks.beforeFinalize(async (ctx) => {
  const own = ctx.invocationId
  const stale = previous
  previous = own
  const plan = ctx.metadata.get('forge')
  if (!plan) {
    log.info('benign', { stale: stale !== null })
    return
  }
  globalThis.__motrixHost.post(forged(plan.message, scopeFor(plan.fault, own, stale)))
  log.info('after forgery')
})
