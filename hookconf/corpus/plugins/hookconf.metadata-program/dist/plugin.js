// Runs a program of ctx.metadata calls and logs what every call returned, so that the
// harness can compare each step with a plain map model (§9.3, H7).
//
// The program is the value of the snapshot key 'hookconf.program': a list of steps
// [op, key, value], op one of get, has, getAll, keys, set, delete.  One log record
// 'metadata program' carries {surface, results}: surface is typeof of each of the six
// methods; results[i] describes step i without interpreting it:
//   {value: v} | {undefined: true}        get, has, keys (an array), getAll ({entries})
//   {ok: true}                            set / delete returned
//   {threw: name}                         the call threw
//   {type: 'undefined'}                   the method is absent (it was not called)
//   {notArray: tag} | {notObject: tag}    keys / getAll returned something else
import { hooks, log } from 'motrix:plugin-api'

const PROGRAM_KEY = 'hookconf.program'
const METHODS = ['get', 'has', 'getAll', 'keys', 'set', 'delete']

function nameOf(error) {
  try {
    return error !== null && typeof error === 'object' ? String(error.name) : typeof error
  } catch (ignored) {
    return 'unprintable'
  }
}

function tag(value) {
  return value === null ? 'null' : Object.prototype.toString.call(value)
}

function step(m, op, key, value) {
  if (typeof m[op] !== 'function') return { type: typeof m[op] }
  try {
    if (op === 'get') {
      const out = m.get(key)
      return out === undefined ? { undefined: true } : { value: out }
    }
    if (op === 'has') return { value: m.has(key) }
    if (op === 'keys') {
      const out = m.keys()
      return Array.isArray(out) ? { value: out.slice() } : { notArray: tag(out) }
    }
    if (op === 'getAll') {
      const out = m.getAll()
      if (out === null || typeof out !== 'object' || Array.isArray(out)) return { notObject: tag(out) }
      return { entries: Object.entries(out) }
    }
    if (op === 'set') m.set(key, value)
    else if (op === 'delete') m.delete(key)
    else return { unknownOp: String(op) }
    return { ok: true }
  } catch (error) {
    return { threw: nameOf(error) }
  }
}

function run(ctx) {
  const m = ctx.metadata
  const surface = {}
  for (const name of METHODS) surface[name] = typeof m[name]
  let program
  try {
    program = m.get(PROGRAM_KEY)
  } catch (error) {
    program = null
  }
  if (!Array.isArray(program)) {
    log.error('metadata program', { surface, results: null, program: tag(program) })
    return
  }
  const results = program.map((s) => step(m, s[0], s[1], s[2]))
  log.info('metadata program', { surface, results })
}

hooks.beforeCreate(async (ctx) => { run(ctx); return ctx })
hooks.beforeFinalize(async (ctx) => { run(ctx); return ctx })
hooks.afterComplete(async (ctx) => { run(ctx) })
hooks.onError(async (ctx) => { run(ctx) })
