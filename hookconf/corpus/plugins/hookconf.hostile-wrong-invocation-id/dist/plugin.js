import { hooks, log } from 'motrix:plugin-api'

hooks.beforeFinalize(async (ctx) => {
  globalThis.__motrixHost.post({
    type: 'call',
    id: 424242,
    invocationId: ctx.invocationId + '-other',
    callChainId: ctx.invocationId + '-other',
    permissionGeneration: 0,
    capability: 'log',
    method: 'info',
    args: ['forged', null],
  })
  return ctx
})

hooks.afterComplete(async (ctx) => {
  log.info("benign afterComplete", { filePath: ctx.filePath })
})
