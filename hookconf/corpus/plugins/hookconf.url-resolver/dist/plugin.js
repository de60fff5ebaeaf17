// Resolves https://wiki.media.example/wiki/File:<name> to the file's upload URL by asking
// the media API host; the returned URL lives on another host (upload.media.example), which
// needs no host permission because it goes to the task-source policy instead (§9.4).
import { hooks, http, log } from 'motrix:plugin-api'

const API = 'https://api.media.example/w/api.php'

function fileTitle(input) {
  const url = new URL(input)
  const match = /^\/wiki\/(File:[^/]+)$/.exec(url.pathname)
  return match ? decodeURIComponent(match[1]) : null
}

hooks.beforeCreate(async (ctx) => {
  const title = fileTitle(ctx.uris[0])
  if (title === null) return ctx
  const query = API + '?action=query&prop=imageinfo&iiprop=url&format=json&titles=' +
    encodeURIComponent(title)
  const response = await http.request({ method: 'GET', url: query, responseType: 'json' })
  if (response.status !== 200) throw new Error('media API answered ' + response.status)
  const pages = Object.values(response.body.query.pages)
  const info = pages.length && pages[0].imageinfo && pages[0].imageinfo[0]
  if (!info || typeof info.url !== 'string') throw new Error('no file URL for ' + title)
  const resolved = new URL(info.url)
  ctx.update({ uris: [resolved.href] })
  log.info('resolved', { title, host: resolved.host })
  return ctx
})
