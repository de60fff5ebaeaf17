// Runs its busy work in promise jobs and swallows every error (including an engine
// interrupt surfacing as a rejection), then starts again: only the host's own budget and
// discarding the worker can stop it.
import { hooks, log } from 'motrix:plugin-api'

async function spin() {
  let n = 0
  for (;;) {
    n++
    if (n % 100000 === 0) await null
  }
}

hooks.beforeFinalize(async () => {
  for (;;) {
    try {
      await spin()
    } catch (interrupted) {
      // swallow and go again
    }
  }
})

hooks.afterComplete(async (ctx) => {
  log.info("benign afterComplete", { filePath: ctx.filePath })
})
