// The manifest of this plugin asks for neither storage nor http; the code is hookconf.capability-calls'.
// Capability calls in sequence (§9.5, §11): the invocation's metadata key `hookconf.calls` lists
// `[capability, method, args]` calls (`storage` get/set/compareAndSet/delete/keys, `http`
// request/get/post); each runs after the previous one settled.  An argument `{"$version": n}`
// stands for the `version` the n-th call returned.  Each outcome is logged as `call` with fields
// `{step, outcome: 'accepted' | 'refused', code?}` and what the result shows: a storage value
// (`value`, `stored`), a key list (`keys`), an HTTP response (`status`, `finalUrl`,
// `redirected`, `bodyType`, `length`).
import { hooks, log, storage, http } from 'motrix:plugin-api'

const api = { storage, http }

function bind(value, results) {
  if (Array.isArray(value)) return value.map((item) => bind(item, results))
  if (value && typeof value === 'object') {
    if (Object.keys(value).length === 1 && '$version' in value) {
      const seen = results[value.$version]
      return seen && typeof seen === 'object' && 'version' in seen ? seen.version : null
    }
    const out = {}
    for (const key of Object.keys(value)) out[key] = bind(value[key], results)
    return out
  }
  return value
}

function shown(capability, method, result) {
  if (result === undefined || result === null || typeof result !== 'object') return {}
  if (capability === 'storage' && method === 'keys') return { keys: result }
  if (capability === 'storage') {
    const value = result.value === undefined ? null : result.value
    return { value, stored: value !== null }
  }
  const body = result.body
  const bodyType = body instanceof Uint8Array ? 'bytes' : Array.isArray(body) ? 'array' : typeof body
  return { status: result.status, finalUrl: result.finalUrl, redirected: result.redirected, bodyType,
    length: typeof body === 'string' || body instanceof Uint8Array ? body.length : null }
}

hooks.beforeFinalize(async (ctx) => {
  const calls = ctx.metadata.get('hookconf.calls') || []
  const results = []
  for (let step = 0; step < calls.length; step++) {
    const [capability, method, args] = calls[step]
    try {
      const result = await api[capability][method](...bind(args, results))
      results.push(result)
      log.info('call', Object.assign({ step, outcome: 'accepted' }, shown(capability, method, result)))
    } catch (error) {
      results.push(null)
      log.info('call', { step, outcome: 'refused', code: error && error.code ? String(error.code) : 'none' })
    }
  }
  log.info('calls done', { count: calls.length })
})
