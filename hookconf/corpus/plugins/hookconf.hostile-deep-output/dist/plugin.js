import { hooks, log } from 'motrix:plugin-api'

hooks.beforeFinalize(async (ctx) => {
  let deep = 'leaf'
  for (let i = 0; i < 2000; i++) deep = [deep]
  ctx.metadata.set('deep', deep)
  return ctx
})

hooks.afterComplete(async (ctx) => {
  log.info('benign afterComplete', { filePath: ctx.filePath })
})
