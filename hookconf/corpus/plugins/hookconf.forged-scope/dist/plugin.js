// One worker message with one field of its invocation scope forged (§6, §8; H3, H21).
// The invocation's metadata key `hookconf.forge` holds `{message, field, fault, generation}`:
//   message:    `call` with `capability`, `method` and `args` (the wire call the host gets;
//               an argument `{"$version": true}` is the storage version of key
//               'forged-scope' read first through the SDK), or `exit-ok` / `exit-error`
//   field:      `invocationId` | `callChainId` | `permissionGeneration`
//   fault:      `missing` (the field left out), `foreign` (another entry's id), `stale` (the
//               previous invocation's id in this worker; one generation less), `future`
//               (one generation more)
//   generation: the permission generation this invocation is bound to
// Every other field is the invocation's own scope: {invocationId, callChainId: invocationId,
// permissionGeneration: generation} (a guest.run invocation is a call chain of its own).
// After posting it logs 'after forgery' and returns.
// Without `forge`: key `hookconf.read` logs 'storage read' with {value} of key 'forged-scope';
// otherwise it sets that key to 'seed' through the SDK and logs 'benign'.
import { hooks, log, storage } from 'motrix:plugin-api'

const KEY = 'forged-scope'
let previous = null

function valueOf(read) {
  if (read && typeof read === 'object' && 'value' in read) return read.value
  return read === undefined ? null : read
}

function versionOf(read) {
  return read && typeof read === 'object' && 'version' in read ? read.version : read
}

function scopeFor(plan, own, stale) {
  const scope = { invocationId: own, callChainId: own, permissionGeneration: plan.generation }
  if (plan.fault === 'missing') delete scope[plan.field]
  else if (plan.field === 'permissionGeneration') {
    scope.permissionGeneration = plan.generation + (plan.fault === 'future' ? 1 : -1)
  } else if (plan.fault === 'foreign') {
    scope[plan.field] = plan.field === 'invocationId' ? own + '-other' : 'chain-of-another-entry'
  } else {
    scope[plan.field] = stale
  }
  return scope
}

async function forged(plan, scope) {
  if (plan.message === 'exit-ok') {
    return { type: 'event', event: 'hookExit', ...scope, ok: true,
      effects: { schemaVersion: 1, contextPatches: [{ filePath: '/downloads/forged-scope.bin' }],
        metadataOperations: [{ op: 'set', key: 'forged-scope', value: true }] } }
  }
  if (plan.message === 'exit-error') {
    return { type: 'event', event: 'hookExit', ...scope, ok: false,
      error: { code: 'guest.forged', message: 'forged error exit' } }
  }
  let args = plan.args
  if (args.some((a) => a && typeof a === 'object' && a.$version === true)) {
    const version = versionOf(await storage.get(KEY))
    args = args.map((a) => (a && typeof a === 'object' && a.$version === true ? version : a))
  }
  return { type: 'call', id: 9201, capability: plan.capability, method: plan.method, args, ...scope }
}

hooks.beforeFinalize(async (ctx) => {
  const own = ctx.invocationId
  const stale = previous
  previous = own
  const plan = ctx.metadata.get('hookconf.forge')
  if (plan) {
    globalThis.__motrixHost.post(await forged(plan, scopeFor(plan, own, stale)))
    log.info('after forgery')
    return
  }
  if (ctx.metadata.get('hookconf.read')) {
    log.info('storage read', { value: valueOf(await storage.get(KEY)) })
    return
  }
  await storage.set(KEY, 'seed')
  log.info('benign', { stale: stale !== null })
})
