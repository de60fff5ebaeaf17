// A post-hook has only the four readonly metadata methods (§9.3, H7).  This plugin looks
// for the write methods, then forges an exit message carrying a metadata write.
import { hooks, log } from 'motrix:plugin-api'

hooks.afterComplete(async (ctx) => {
  let setError = null
  try {
    ctx.metadata.set('owned', true)
  } catch (error) {
    setError = error.name
  }
  log.info('post-hook surface', {
    set: typeof ctx.metadata.set,
    delete: typeof ctx.metadata.delete,
    update: typeof ctx.update,
    setError,
  })
  globalThis.__motrixHost.post({
    type: 'event',
    event: 'hookExit',
    invocationId: ctx.invocationId,
    callChainId: ctx.invocationId,
    permissionGeneration: 0,
    ok: true,
    effects: {
      schemaVersion: 1,
      contextPatches: [],
      metadataOperations: [{ op: 'set', key: 'owned', value: true }],
    },
  })
})
