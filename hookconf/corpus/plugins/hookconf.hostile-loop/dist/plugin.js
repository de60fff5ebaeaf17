import { hooks, log } from 'motrix:plugin-api'

hooks.beforeFinalize(async () => {
  for (;;) {}
})

hooks.afterComplete(async (ctx) => {
  log.info("benign afterComplete", { filePath: ctx.filePath })
})
