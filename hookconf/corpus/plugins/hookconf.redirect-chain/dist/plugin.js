// One HTTP call through a redirect chain (§7, H5): the invocation's metadata key
// `hookconf.http` is `{method: 'request' | 'get' | 'post', url}`; the plugin makes that SDK
// call and logs its outcome as `http` with fields `{outcome: 'accepted', status, finalUrl,
// redirected}` or `{outcome: 'refused', code}`.  The host permissions grant only
// `https://api.example/allowed/*` and `https://cdn.example/files/*`.
import { hooks, log, http } from 'motrix:plugin-api'

function send(plan) {
  if (plan.method === 'get') return http.get(plan.url)
  if (plan.method === 'post') return http.post(plan.url, 'x')
  return http.request({ url: plan.url })
}

hooks.beforeFinalize(async (ctx) => {
  const plan = ctx.metadata.get('hookconf.http') || {}
  try {
    const response = await send(plan)
    log.info('http', { outcome: 'accepted', status: response.status, finalUrl: response.finalUrl,
      redirected: response.redirected })
  } catch (error) {
    log.info('http', { outcome: 'refused', code: error && error.code ? String(error.code) : 'none' })
  }
})
