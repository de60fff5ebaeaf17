// SDK 2.0 style: four hooks, returns ctx like released plugins, never reads ctx.delivery.
import { hooks, log } from 'motrix:plugin-api'

log.info('sdk20-lifecycle activating')

hooks.beforeCreate(async (ctx) => {
  const before = ctx.metadata.has('firstSeen')
  ctx.metadata.set('firstSeen', { url: ctx.uris[0], at: ctx.requestedAt })
  const echoed = ctx.metadata.get('firstSeen')
  ctx.update({ filename: 'sdk20-' + (ctx.filename || 'download.bin') })
  log.info('beforeCreate', {
    hadBefore: before,
    readAfterWrite: echoed.url === ctx.uris[0],
    keys: ctx.metadata.keys(),
    visibleFilename: ctx.filename,
  })
  return ctx
})

hooks.beforeFinalize(async (ctx) => {
  ctx.metadata.set('temp', 1)
  ctx.metadata.delete('temp')
  const all = ctx.metadata.getAll()
  ctx.metadata.set('finalizedName', ctx.task.name)
  log.info('beforeFinalize', {
    tempGone: !ctx.metadata.has('temp'),
    getAfterDelete: ctx.metadata.get('temp') === undefined,
    keysBefore: Object.keys(all),
    methods: Object.keys(ctx.metadata).sort(),
  })
  ctx.update({ filePath: ctx.task.saveDir + '/sdk20-' + ctx.task.filename })
  return ctx
})

hooks.afterComplete(async (ctx) => {
  log.info('afterComplete', {
    filePath: ctx.filePath,
    methods: Object.keys(ctx.metadata).sort(),
    hasUpdate: typeof ctx.update,
    finalizedName: ctx.metadata.get('finalizedName') ?? null,
  })
})

hooks.onError(async (ctx) => {
  log.warn('onError', { code: ctx.error.code, taskStatus: ctx.task.status })
})
