// Renders the final path from a template over plugin metadata (nested keys like
// {{meta.a.b}}) and task fields, then proposes it with ctx.update({ filePath }).
import { hooks, log } from 'motrix:plugin-api'

const TEMPLATE = '{{meta.site}}/{{meta.show.title}} - {{meta.show.episode}}{{ext}}'

function lookup(root, path) {
  let node = root
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(part in node)) return ''
    node = node[part]
  }
  return node === null || node === undefined ? '' : String(node)
}

function safe(text) {
  return text.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').trim()
}

function render(template, scope) {
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path) => safe(lookup(scope, path)))
}

hooks.beforeFinalize(async (ctx) => {
  const meta = ctx.metadata.getAll()
  if (!meta.site) return ctx
  const dot = ctx.task.filename.lastIndexOf('.')
  const ext = dot > 0 ? ctx.task.filename.slice(dot) : ''
  const relative = render(TEMPLATE, { meta, task: ctx.task, ext })
  const filePath = ctx.task.saveDir + '/' + relative
  ctx.update({ filePath })
  log.info('rendered', { filePath, target: ctx.targetFilePath })
  return ctx
})
