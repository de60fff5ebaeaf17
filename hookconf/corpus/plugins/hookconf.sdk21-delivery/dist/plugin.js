// SDK 2.1: post-hooks read ctx.delivery and use its id to make an external effect idempotent.
import { hooks, log, storage } from 'motrix:plugin-api'

async function recordOnce(ctx, kind) {
  const key = 'delivered:' + ctx.delivery.id
  const seen = await storage.get(key)
  if (seen.value !== undefined && seen.value !== null) {
    log.info('duplicate delivery skipped', { deliveryId: ctx.delivery.id, kind })
    return
  }
  await storage.compareAndSet(key, seen.version, { kind, occurrenceId: ctx.delivery.occurrenceId })
  log.info('delivered', {
    deliveryId: ctx.delivery.id,
    occurrenceId: ctx.delivery.occurrenceId,
    occurredAt: ctx.delivery.occurredAt,
    schemaVersion: ctx.delivery.schemaVersion,
    kind,
  })
}

hooks.afterComplete(async (ctx) => recordOnce(ctx, 'complete'))
hooks.onError(async (ctx) => recordOnce(ctx, 'error:' + ctx.error.code))
