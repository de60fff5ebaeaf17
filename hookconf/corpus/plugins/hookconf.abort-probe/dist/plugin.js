// The §9.3 abort ordering and what fails after an abort, from every hook.
//
// The invocation's metadata key `hookconf.abort` holds a plan:
//   {stage: [[target, method, args]], pending: [[target, method, args]],
//    after: [[target, method, args]], bound: n}
// `stage` runs first (effects staged before the abort: `metadata` or `ctx` methods);
// `pending` are capability calls (`storage`, `http`) left outstanding while the host aborts
// the invocation; `after` are tried once every pending call has settled.  Logged:
//   `abort-order`: {listenersFirst, events: {onabort, listener, removed}, abortedBefore,
//                   abortedInListener, reasonStable, reasonBounded, settled, order}
//   `after-abort`: {call: 'target.method', outcome: 'failed' | 'succeeded'} for each `after`.
// Key `hookconf.check` instead logs `late-writes`: {late} — whether storage holds the key the
// `after` calls would have written.
import { hooks, http, log, storage } from 'motrix:plugin-api'

const LATE_KEY = 'hookconf.late'

function target(ctx, name) {
  if (name === 'storage') return storage
  if (name === 'http') return http
  if (name === 'metadata') return ctx.metadata
  return ctx
}

function invoke(ctx, [name, method, args]) {
  const owner = target(ctx, name)
  return owner[method](...args) // a missing method throws TypeError: it fails too
}

function text(reason) {
  try {
    return String(reason && typeof reason === 'object' && 'message' in reason ? reason.message : reason)
  } catch (e) {
    return ''
  }
}

async function attempt(ctx, call) {
  try {
    const result = invoke(ctx, call)
    if (result && typeof result.then === 'function') await result
    return 'succeeded'
  } catch (e) {
    return 'failed'
  }
}

async function probe(ctx) {
  const check = ctx.metadata.get('hookconf.check')
  if (check) {
    const keys = await storage.keys()
    log.info('late-writes', { late: keys.includes(LATE_KEY) })
    return
  }
  const plan = ctx.metadata.get('hookconf.abort') || { stage: [], pending: [], after: [], bound: 0 }
  const signal = ctx.signal
  const order = []
  const events = { onabort: 0, listener: 0, removed: 0 }
  const abortedBefore = signal.aborted
  let seen = null
  let abortedInListener = false
  signal.onabort = () => {
    events.onabort++
    order.push('onabort')
    seen = signal.reason
    abortedInListener = signal.aborted === true
  }
  signal.addEventListener('abort', () => { events.listener++; order.push('listener') })
  const removed = () => { events.removed++; order.push('removed') }
  signal.addEventListener('abort', removed)
  signal.removeEventListener('abort', removed)
  for (const call of plan.stage) invoke(ctx, call)
  const pending = plan.pending.map((call) => {
    const name = call[0] + '.' + call[1]
    // The handlers sit right on the promise the SDK returned: nothing delays them.
    return invoke(ctx, call).then(() => order.push('resolved:' + name), () => order.push('rejected:' + name))
  })
  await Promise.all(pending)
  const first = order.findIndex((step) => step.startsWith('rejected:') || step.startsWith('resolved:'))
  const listenersFirst = first >= 0 && order.indexOf('onabort') >= 0 && order.indexOf('onabort') < first &&
    order.indexOf('listener') >= 0 && order.indexOf('listener') < first
  const settled = order.every((step) => !step.startsWith('resolved:')) ? 'rejected-all' : 'some-resolved'
  const reasonStable = seen !== null && seen !== undefined && signal.reason === seen && signal.reason === signal.reason
  const reasonBounded = text(signal.reason).length <= plan.bound
  log.info('abort-order', { listenersFirst, events, abortedBefore, abortedInListener, reasonStable,
    reasonBounded, settled, order })
  for (const call of plan.after) {
    log.info('after-abort', { call: call[0] + '.' + call[1], outcome: await attempt(ctx, call) })
  }
}

hooks.beforeCreate(probe)
hooks.beforeFinalize(probe)
hooks.afterComplete(probe)
hooks.onError(probe)
