// Forged calls whose answers carry another invocation's id (§8; H3).
// The invocation's metadata key `hookconf.forge` names the id to forge, `foreign` (the current
// id with '-other' appended) or `stale` (the previous invocation's id in this worker).  The
// plugin first posts, on the raw worker port, an `http.request` call (a capability it is not
// granted) with that invocation id for each call id 1…`ids`, so whatever id its own next call
// takes, a refusal answering a forged call carries the same call id; then it makes that call,
// `storage.get('forged-response')`, and logs `answer` with `{outcome: 'resolved'}` or
// `{outcome: 'rejected', code}`.  A forged call must not settle the invocation's own call: an
// answer carrying another invocation's id is not the answer to this invocation's call.
// Without `hookconf.forge` it only logs `benign`, remembering its invocation id.
import { hooks, log, storage } from 'motrix:plugin-api'

let previous = null

hooks.beforeFinalize(async (ctx) => {
  const own = ctx.invocationId
  const stale = previous
  previous = own
  const plan = ctx.metadata.get('hookconf.forge')
  if (!plan) {
    log.info('benign')
    return
  }
  const other = plan.fault === 'stale' ? stale : own + '-other'
  for (let id = 1; id <= plan.ids; id++) {
    globalThis.__motrixHost.post({ type: 'call', id, capability: 'http', method: 'request',
      args: [{ method: 'GET', url: 'https://api.example/forged', responseType: 'text' }],
      invocationId: other, callChainId: other, permissionGeneration: 0 })
  }
  try {
    await storage.get('forged-response')
    log.info('answer', { outcome: 'resolved' })
  } catch (error) {
    log.info('answer', { outcome: 'rejected', code: String(error && error.code) })
  }
})
