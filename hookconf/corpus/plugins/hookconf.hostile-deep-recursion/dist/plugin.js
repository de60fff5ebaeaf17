import { hooks, log } from 'motrix:plugin-api'

function down(depth) {
  return down(depth + 1) + 1
}

hooks.beforeFinalize(async () => {
  down(0)
})

hooks.afterComplete(async (ctx) => {
  log.info("benign afterComplete", { filePath: ctx.filePath })
})
