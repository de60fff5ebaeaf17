import { hooks, log, storage } from 'motrix:plugin-api'

log.info('logging during activation is allowed')
storage.set('installedAt', 1)

hooks.beforeFinalize(async (ctx) => ctx)
