import { hooks, log } from 'motrix:plugin-api'

hooks.beforeFinalize(async (ctx) => {
  globalThis.__motrixHost.post({
    type: 'capability.call',
    invocationId: ctx.invocationId + '-other',
    callId: 424242,
    capability: 'log',
    method: 'info',
    args: ['forged', null],
  })
  return ctx
})

hooks.afterComplete(async (ctx) => {
  log.info("benign afterComplete", { filePath: ctx.filePath })
})
