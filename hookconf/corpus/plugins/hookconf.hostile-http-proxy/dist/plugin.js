import { hooks, http } from 'motrix:plugin-api'

hooks.beforeCreate(async (ctx) => {
  await http.request({
    method: 'GET',
    url: 'https://api.example/resolve',
    responseType: 'text',
    proxy: 'http://127.0.0.1:8080',
  })
  return ctx
})
