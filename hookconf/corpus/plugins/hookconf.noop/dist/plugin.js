import { hooks } from 'motrix:plugin-api'

hooks.beforeCreate(async (ctx) => ctx)
hooks.beforeFinalize(async (ctx) => ctx)
hooks.afterComplete(async () => {})
hooks.onError(async () => {})
