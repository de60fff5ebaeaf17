// Capability calls carrying another permission generation (§6, §8; H21).
// The invocation's metadata key `hookconf.forge` says what to post on the raw worker port,
// `{capability, generation, url?}`: a `log` (info 'forged generation'), `storage`
// (set 'forged-generation' to true) or `http` (GET `url`) call in the invocation's own scope
// (its invocationId and call chain) whose permissionGeneration is `generation`, or that has no
// permissionGeneration at all when `generation` is null.  After posting it logs 'posted'.
// Every invocation then reads storage key 'forged-generation' through the SDK and logs
// 'storage read' with `{value}` (null when unset), so a write that landed is seen.
import { hooks, log, storage } from 'motrix:plugin-api'

function forged(plan, ctx) {
  const scope = { invocationId: ctx.invocationId, callChainId: ctx.invocationId }
  if (plan.generation !== null) scope.permissionGeneration = plan.generation
  if (plan.capability === 'log') {
    return { type: 'call', id: 9101, capability: 'log', method: 'info',
      args: ['forged generation', { forged: true }], ...scope }
  }
  if (plan.capability === 'storage') {
    return { type: 'call', id: 9102, capability: 'storage', method: 'set',
      args: ['forged-generation', true], ...scope }
  }
  return { type: 'call', id: 9103, capability: 'http', method: 'request',
    args: [{ method: 'GET', url: plan.url, responseType: 'text' }], ...scope }
}

async function run(ctx) {
  const plan = ctx.metadata.get('hookconf.forge')
  if (plan) {
    globalThis.__motrixHost.post(forged(plan, ctx))
    log.info('posted', { capability: plan.capability })
  }
  let value = null
  try {
    const read = await storage.get('forged-generation')
    value = read && typeof read === 'object' && 'value' in read ? read.value : (read === undefined ? null : read)
  } catch (error) {
    value = 'error:' + String(error && error.code)
  }
  log.info('storage read', { value })
}

hooks.beforeFinalize(run)
hooks.afterComplete(run)
