// Keeps the first invocation's ctx and tries to use it from a later invocation.
import { hooks, log } from 'motrix:plugin-api'

let previous = null

hooks.beforeFinalize(async (ctx) => {
  if (previous !== null) {
    const refused = {}
    try {
      previous.update({ filePath: '/etc/owned' })
      refused.update = 'accepted'
    } catch (error) {
      refused.update = error.code
    }
    try {
      previous.metadata.set('owned', true)
      refused.metadata = 'accepted'
    } catch (error) {
      refused.metadata = error.code
    }
    log.warn('stale context', refused)
  }
  previous = ctx
  ctx.update({ filePath: ctx.task.saveDir + '/fresh-' + ctx.invocationId })
  return ctx
})
