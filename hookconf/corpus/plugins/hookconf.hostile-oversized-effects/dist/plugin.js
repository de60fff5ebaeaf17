import { hooks } from 'motrix:plugin-api'

hooks.beforeFinalize(async (ctx) => {
  ctx.metadata.set('blob', ['x'.repeat(60000), 'y'.repeat(60000), 'z'.repeat(60000),
    'w'.repeat(60000), 'v'.repeat(60000)])
  return ctx
})
