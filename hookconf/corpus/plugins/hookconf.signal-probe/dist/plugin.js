// Records the §9.3 abort ordering: the abort event fires before the pending capability
// promise rejects, and later capability calls fail at once.
import { hooks, http, log } from 'motrix:plugin-api'

hooks.beforeFinalize(async (ctx) => {
  const order = []
  ctx.signal.onabort = () => order.push('onabort:' + ctx.signal.aborted)
  const listener = () => order.push('listener')
  const removed = () => order.push('removed-listener')
  ctx.signal.addEventListener('abort', listener)
  ctx.signal.addEventListener('abort', removed)
  ctx.signal.removeEventListener('abort', removed)
  try {
    await http.request({ method: 'GET', url: 'https://slow.example/never', responseType: 'text' })
    order.push('resolved')
  } catch (error) {
    order.push('rejected:' + error.code)
  }
  let later = 'none'
  try {
    await http.request({ method: 'GET', url: 'https://slow.example/again', responseType: 'text' })
  } catch (error) {
    later = error.code
  }
  log.info('abort-order', { order, later, reason: ctx.signal.reason && ctx.signal.reason.code })
  throw ctx.signal.reason
})
