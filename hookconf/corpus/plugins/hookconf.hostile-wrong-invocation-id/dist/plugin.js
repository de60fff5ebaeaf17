// Posts a log call on the raw worker port with an invocation id other than the current
// one (§8, H3), in a pre-hook or a post-hook.
//
// The snapshot key 'hookconf.forge' says which id: 'foreign' (the current id plus '-other'),
// 'stale' (the previous invocation's id in this worker) or 'missing' (no invocationId); the
// call chain and permission generation are the invocation's own, so only the id is wrong.
// Without it, beforeFinalize forges a foreign id and afterComplete is benign.  Either hook
// then logs a benign record and remembers its id.
import { hooks, log } from 'motrix:plugin-api'

let previousId = null

function forge(ctx, fault) {
  const message = { type: 'call', id: 424242, invocationId: ctx.invocationId + '-other',
    callChainId: ctx.invocationId, permissionGeneration: 0, capability: 'log', method: 'info',
    args: ['forged', null] }
  if (fault === 'stale') message.invocationId = previousId === null ? 'inv-none' : previousId
  if (fault === 'missing') delete message.invocationId
  globalThis.__motrixHost.post(message)
}

function fault(ctx, fallback) {
  const found = ctx.metadata.get('hookconf.forge')
  return found === undefined ? fallback : found
}

hooks.beforeFinalize(async (ctx) => {
  const wanted = fault(ctx, 'foreign')
  if (wanted) forge(ctx, wanted)
  log.info('benign beforeFinalize', { invocationId: ctx.invocationId })
  previousId = ctx.invocationId
  return ctx
})

hooks.afterComplete(async (ctx) => {
  const wanted = fault(ctx, null)
  if (wanted) forge(ctx, wanted)
  log.info("benign afterComplete", { filePath: ctx.filePath })
  previousId = ctx.invocationId
})
