import { hooks, log } from 'motrix:plugin-api'

hooks.beforeFinalize(async () => {
  const hoard = []
  for (;;) hoard.push(new Array(1 << 16).fill(hoard.length + 0.5))
})

hooks.afterComplete(async (ctx) => {
  log.info("benign afterComplete", { filePath: ctx.filePath })
})
