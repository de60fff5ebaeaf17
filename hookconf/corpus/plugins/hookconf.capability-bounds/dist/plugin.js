// Capability calls and results at and one past the §9.1 bounds (§9.1, H4).
// The invocation's metadata key `probe` says what to do, `{key, call, shape?, url?, responseType?, count?}`:
//   call `log-message` | `log-fields`: posts on the raw worker port, in its own invocation scope,
//        a log call whose message (or fields) has `shape`;
//   call `storage-set`: storage.set('probe', value of `shape`), then storage.get('probe');
//   call `http-body` | `http-headers`: http.request to `url` whose body (or header list) has `shape`;
//   call `http-result`: http.request to `url` with `responseType`; the harness's network answers;
//   call `storage-keys`: `count` storage.set calls, then storage.keys();
//   call `exit-ok` | `exit-error`: posts on the raw worker port, in its own invocation scope, a
//        hook exit whose metadata value (or error `{code: bytes}` / `{message: bytes}`) has `shape`.
// `shape` is `{string: bytes}` (UTF-8 bytes, 2-byte characters), `{keyBytes: bytes}` (an object
// whose one key has that many UTF-8 bytes, 2-byte characters), `{keys: n}` (an object of n keys),
// `{items: n}` (an array of n items), `{depth: n}` (n nested containers), `{header: [name bytes,
// value bytes, count]}`.  Every outcome is logged as `probe` with fields `{probe: key, step, ...}`.
import { hooks, log, storage, http } from 'motrix:plugin-api'

function text(bytes) {
  return (bytes % 2 ? 'a' : '') + 'é'.repeat(Math.floor(bytes / 2))
}

function build(shape, reserved) {
  if ('string' in shape) return text(shape.string)
  if ('keyBytes' in shape) return { [text(shape.keyBytes)]: 0 }
  if ('items' in shape) return new Array(shape.items).fill(0)
  if ('depth' in shape) {
    let value = []
    for (let level = 1; level < shape.depth; level++) value = [value]
    return value
  }
  const value = {}
  for (let n = 0; value && Object.keys(value).length + reserved < shape.keys; n++) value['k' + n] = 0
  return value
}

function refused(key, step, error) {
  log.info('probe', { probe: key, step, outcome: 'refused', code: error && error.code ? String(error.code) : 'none' })
}

function accepted(key, step, extra) {
  log.info('probe', Object.assign({ probe: key, step, outcome: 'accepted' }, extra))
}

function summary(value) {
  if (typeof value === 'string') return { length: value.length }
  if (typeof value === 'number') return { finite: isFinite(value) }
  if (Array.isArray(value)) return { items: value.length }
  if (value && typeof value === 'object') return { keys: Object.keys(value).length }
  return { kind: typeof value }
}

async function probe(ctx, plan) {
  const key = plan.key
  if (plan.call === 'log-message' || plan.call === 'log-fields') {
    const scope = { invocationId: ctx.invocationId, callChainId: ctx.invocationId, permissionGeneration: 0 }
    let message = 'raw log'
    let fields = { probe: key }
    if (plan.call === 'log-message') message = build(plan.shape, 0)
    else if ('keys' in plan.shape) fields = Object.assign(build(plan.shape, 1), fields)
    else fields.payload = 'depth' in plan.shape ? build({ depth: plan.shape.depth - 1 }, 0) : build(plan.shape, 0)
    globalThis.__motrixHost.post({ type: 'call', id: 7001, capability: 'log', method: 'info',
      args: [message, fields], ...scope })
    return
  }
  if (plan.call === 'exit-ok' || plan.call === 'exit-error') {
    const scope = { invocationId: ctx.invocationId, callChainId: ctx.invocationId, permissionGeneration: 0 }
    const exit = plan.call === 'exit-ok'
      ? { type: 'event', event: 'hookExit', ...scope, ok: true,
          effects: { schemaVersion: 1, contextPatches: [],
            metadataOperations: [{ op: 'set', key: 'probe', value: build(plan.shape, 0) }] } }
      : { type: 'event', event: 'hookExit', ...scope, ok: false,
          error: { code: 'code' in plan.shape ? 'g' + 'x'.repeat(plan.shape.code - 1) : 'guest.failed',
            message: 'message' in plan.shape ? text(plan.shape.message) : 'failed' } }
    globalThis.__motrixHost.post(exit)
    await new Promise(() => {})  // the host ends the invocation on that exit
  }
  if (plan.call === 'storage-set') {
    try {
      await storage.set('probe', build(plan.shape, 0))
      accepted(key, 'set', {})
    } catch (error) { refused(key, 'set', error) }
    try {
      const got = await storage.get('probe')
      accepted(key, 'get', { stored: got.value !== null && got.value !== undefined })
    } catch (error) { refused(key, 'get', error) }
    return
  }
  if (plan.call === 'storage-keys') {
    let failed = 0
    const sets = []
    for (let n = 0; n < plan.count; n++) sets.push(storage.set('k' + n, n).catch(() => { failed++ }))
    await Promise.all(sets)
    try {
      const keys = await storage.keys()
      accepted(key, 'keys', { count: keys.length, failedSets: failed })
    } catch (error) { refused(key, 'keys', error) }
    return
  }
  const options = { method: 'GET', url: plan.url, responseType: plan.responseType || 'text' }
  if (plan.call === 'http-body') {
    options.method = 'POST'
    options.body = build(plan.shape, 0)
  }
  if (plan.call === 'http-headers') {
    const [nameBytes, valueBytes, count] = plan.shape.header
    options.headers = []
    for (let n = 0; n < count; n++) {
      const name = ('x' + n + '-' + 'h'.repeat(nameBytes)).slice(0, nameBytes)
      options.headers.push({ name, value: text(valueBytes) })
    }
  }
  try {
    const response = await http.request(options)
    accepted(key, 'request', Object.assign({ headers: response.headers.length }, summary(response.body)))
  } catch (error) { refused(key, 'request', error) }
}

hooks.beforeFinalize(async (ctx) => {
  const plan = ctx.metadata.get('probe')
  if (plan) await probe(ctx, plan)
  log.info('probe done')
})
