#!/usr/bin/env node
// hookconf protocol v1 adapter for JavaScript runtimes.
//
//   node adapter.js --runtime ./my-runtime.js
//
// Speaks hookconf's candidate protocol v1 (JSON lines over stdin/stdout: the hello handshake,
// one reply per request, errors as `ok: false` replies) and maps each operation of every family
// (`permissions`, `dto`, `runtime`, `guest`, `shell`, `delivery`, `builtins`) onto a function the
// runtime module exports: `permissions.match` -> `permissions.match(args)`, `task_source.admit` ->
// `taskSource.admit(args)`, `runtime.worker_message` -> `runtime.workerMessage(args)`,
// `delivery.terminal` -> `delivery.terminal(args)`. See README.md beside this file.
//
// No dependencies beyond Node's own modules (Node 18 or newer).
'use strict';

const buffers = require('node:buffer');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const PROTOCOL = 1;
/** The longest protocol line in either direction (bytes, UTF-8, newline excluded). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** The deepest nesting of a protocol line (`[]` and `{}` count one level each). */
const MAX_DEPTH = 128;
/** Bytes of an over-long request kept to recover its id. */
const HEAD_BYTES = 4096;
/** Longest error message sent back (characters). */
const MAX_MESSAGE = 2000;

/** The operations mapped, by protocol family (docs/protocol.md): every operation protocol v1 has. */
const FAMILIES = {
  permissions: ['permissions.parse', 'permissions.match', 'permissions.match_any', 'permissions.redirect',
    'task_source.admit'],
  dto: ['dto.validate'],
  runtime: ['runtime.reset', 'runtime.install', 'runtime.task', 'runtime.candidates', 'runtime.before_create',
    'runtime.before_finalize', 'runtime.command', 'runtime.policy', 'runtime.reclaim', 'runtime.worker_message',
    'runtime.dispatch', 'runtime.advance', 'runtime.settle', 'runtime.ready', 'runtime.step', 'runtime.events',
    'runtime.state',
    'finalize.prepare', 'finalize.run', 'finalize.crash', 'finalize.recover', 'finalize.state'],
  guest: ['guest.run'],
  shell: ['shell.start', 'shell.path', 'shell.stop'],
  delivery: ['delivery.reset', 'delivery.policy', 'delivery.terminal', 'delivery.claim', 'delivery.heartbeat',
    'delivery.complete', 'delivery.fail', 'delivery.dispatch', 'delivery.advance', 'delivery.restart',
    'delivery.state'],
  builtins: ['builtins.run'],
};

/** A code the adapter passes through: dotted lower case, as §13's codes and the protocol's are. */
const CODE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;
const LEADING_ID = /^\s*\{\s*"id"\s*:\s*(\d+)\s*[,}]/;

const camel = (name) => name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** `[namespace, member]` names of an operation: `task_source.admit` -> `['taskSource', 'admit']`. */
function exportName(op) {
  const [space, member] = op.split('.');
  return [camel(space), camel(member)];
}

// ---------------------------------------------------------------------------------------------
// JSON within the protocol's bounds. JSON.parse refuses the NaN, Infinity and -Infinity tokens
// protocol v1 carries (a DTO validator must see them to refuse them) and knows no depth bound,
// so requests are read by this small parser; strings are still decoded by JSON.parse.

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

function pointer(parts) {
  return parts.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/**
 * Parse one JSON text: NaN and ±Infinity allowed, at most MAX_DEPTH nested containers.
 * Throws an Error saying where the text departs from JSON or which container is too deep.
 */
function parseJson(text) {
  let i = 0;
  const at = [];
  const fail = (what) => {
    throw new Error(`invalid JSON at character ${i}: ${what}`);
  };
  const space = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i += 1;
      else return;
    }
  };
  const word = (literal, value) => {
    if (text.startsWith(literal, i)) {
      i += literal.length;
      return value;
    }
    return fail(`unexpected ${JSON.stringify(text.slice(i, i + 10))}`);
  };
  const string = () => {
    const start = i;
    i += 1;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c)) fail('unterminated string');
      if (c === 0x22) break;
      i += c === 0x5c ? 2 : 1;
    }
    i += 1;
    try {
      return JSON.parse(text.slice(start, i));
    } catch (err) {
      i = start;
      return fail(`bad string: ${err.message}`);
    }
  };
  const value = (depth) => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      if (depth + 1 > MAX_DEPTH) throw new Error(`nests deeper than ${MAX_DEPTH} levels at ${pointer(at) || '/'}`);
      return c === '{' ? object(depth + 1) : array(depth + 1);
    }
    if (c === '"') return string();
    if (c === 't') return word('true', true);
    if (c === 'f') return word('false', false);
    if (c === 'n') return word('null', null);
    if (c === 'N') return word('NaN', NaN);
    if (c === 'I') return word('Infinity', Infinity);
    if (c === '-' && text.startsWith('-Infinity', i)) return word('-Infinity', -Infinity);
    NUMBER.lastIndex = i;
    const found = NUMBER.exec(text);
    if (!found) return fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`);
    i = NUMBER.lastIndex;
    return Number(found[0]);
  };
  const object = (depth) => {
    const result = {};
    i += 1;
    space();
    if (text[i] === '}') {
      i += 1;
      return result;
    }
    for (;;) {
      space();
      if (text[i] !== '"') fail('expected a key');
      const key = string();
      space();
      if (text[i] !== ':') fail("expected ':'");
      i += 1;
      at.push(key);
      const item = value(depth);
      at.pop();
      // a "__proto__" key is data, as JSON.parse makes it, never the object's prototype
      Object.defineProperty(result, key, { value: item, enumerable: true, writable: true, configurable: true });
      space();
      if (text[i] === ',') i += 1;
      else if (text[i] === '}') {
        i += 1;
        return result;
      } else fail("expected ',' or '}'");
    }
  };
  const array = (depth) => {
    const result = [];
    i += 1;
    space();
    if (text[i] === ']') {
      i += 1;
      return result;
    }
    for (;;) {
      at.push(result.length);
      result.push(value(depth));
      at.pop();
      space();
      if (text[i] === ',') i += 1;
      else if (text[i] === ']') {
        i += 1;
        return result;
      } else fail("expected ',' or ']'");
    }
  };
  const result = value(0);
  space();
  if (i !== text.length) fail('text after the value');
  return result;
}

/** Pointer of the first container nested deeper than `limit` in `value`, or null (iterative). */
function tooDeep(value, limit) {
  const stack = [[value, 0, []]];
  while (stack.length) {
    const [node, depth, where] = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (typeof node.toJSON === 'function') continue;
    if (depth + 1 > limit) return pointer(where) || '/';
    for (const [key, child] of Object.entries(node)) stack.push([child, depth + 1, [...where, key]]);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// The runtime module.

function usage() {
  return 'usage: node adapter.js --runtime PATH\n'
    + '  PATH: a CommonJS or ES module exporting the mapping (see README.md); relative to the current folder\n';
}

function parseArgs(argv) {
  let runtime = null;
  for (let k = 0; k < argv.length; k += 1) {
    const arg = argv[k];
    if (arg === '--help' || arg === '-h') return { help: true };
    if (arg === '--runtime' && k + 1 < argv.length) {
      runtime = argv[k + 1];
      k += 1;
    } else if (arg.startsWith('--runtime=')) runtime = arg.slice('--runtime='.length);
    else return { error: `unknown argument ${JSON.stringify(arg)}` };
  }
  return runtime ? { runtime } : { error: '--runtime PATH is required' };
}

/**
 * Import the runtime module and resolve its mapping object: the module's exports (a CommonJS
 * module's `module.exports`; an ES module's named exports over its default export object), or
 * what its `createRuntime()` returns (awaited) when it exports one.
 */
async function loadRuntime(file) {
  const loaded = await import(pathToFileURL(path.resolve(file)).href);
  const base = loaded.default !== null && typeof loaded.default === 'object' ? loaded.default : null;
  const named = Object.entries(loaded).filter(([key]) => key !== 'default');
  // a CommonJS module's exports (Node mirrors some as named exports) or an ES default export
  // that the named ones only repeat: served as it is, prototype and getters included
  let mapping = base && named.every(([key, value]) => base[key] === value) ? base
    : Object.assign({}, base, Object.fromEntries(named));
  if (typeof mapping.createRuntime === 'function') mapping = await mapping.createRuntime();
  if (mapping === null || typeof mapping !== 'object') {
    throw new Error('createRuntime() gave no mapping object');
  }
  return mapping;
}

/** The function mapped to `op`, with the object to call it on, or null. */
function lookup(mapping, op) {
  const [space, member] = exportName(op);
  const [rawSpace, rawMember] = op.split('.');
  const holder = mapping[space] ?? mapping[rawSpace];
  if (holder === null || typeof holder !== 'object' && typeof holder !== 'function') return null;
  const fn = holder[member] ?? holder[rawMember];
  return typeof fn === 'function' ? { fn, holder } : null;
}

/** The families to declare: `families` when exported, else each family with a function mapped. */
function declaredFamilies(mapping) {
  if (Array.isArray(mapping.families)) {
    const unmapped = mapping.families.filter((f) => !Object.hasOwn(FAMILIES, f));
    if (unmapped.length) {
      process.stderr.write(`hookconf adapter: not declaring ${unmapped.map(describe).join(', ')}: `
        + `this adapter maps ${Object.keys(FAMILIES).join(', ')}\n`);
    }
    return [...new Set(mapping.families.filter((f) => Object.hasOwn(FAMILIES, f)))];
  }
  return Object.keys(FAMILIES).filter((family) => FAMILIES[family].some((op) => lookup(mapping, op)));
}

function text(value, fallback, max) {
  return typeof value === 'string' && value.length >= 1 && value.length <= max ? value : fallback;
}

// ---------------------------------------------------------------------------------------------
// Requests and replies.

function errorReply(id, code, message) {
  return { id, ok: false, error: { code, message: String(message).slice(0, MAX_MESSAGE) } };
}

/** The error reply for something the runtime threw (or rejected with). */
function thrownReply(id, op, thrown) {
  const code = thrown && typeof thrown === 'object' ? thrown.code : undefined;
  const message = thrown && typeof thrown === 'object' ? thrown.message : undefined;
  if (typeof code === 'string' && code.length <= 128 && CODE.test(code) && typeof message === 'string') {
    return errorReply(id, code, message);
  }
  const what = thrown instanceof Error ? `${thrown.name}${typeof code === 'string' ? ` ${code}` : ''}: ${thrown.message}`
    : `threw ${describe(thrown)}`;
  process.stderr.write(`hookconf adapter: ${op} failed: ${thrown instanceof Error ? thrown.stack : what}\n`);
  return errorReply(id, 'candidate.internal_error', `${op}: ${what}`);
}

function describe(value) {
  try {
    return typeof value === 'string' ? JSON.stringify(value).slice(0, 200) : String(value).slice(0, 200);
  } catch {
    return typeof value;
  }
}

class Adapter {
  constructor(runtimeFile) {
    this.runtimeFile = runtimeFile;
    this.mapping = null;
    this.loadError = null;
  }

  async load() {
    try {
      this.mapping = await loadRuntime(this.runtimeFile);
    } catch (err) {
      this.loadError = err;
      process.stderr.write(`hookconf adapter: error: cannot load runtime ${this.runtimeFile}: `
        + `${err && err.stack ? err.stack : describe(err)}\n`);
    }
  }

  hello(request) {
    if (request.protocol !== PROTOCOL) {
      return errorReply(request.id, 'protocol.unsupported_version',
        `this adapter speaks protocol ${PROTOCOL}, not ${describe(request.protocol)}`);
    }
    if (this.loadError) {
      return errorReply(request.id, 'candidate.internal_error',
        `cannot load runtime ${this.runtimeFile}: ${this.loadError && this.loadError.message || describe(this.loadError)}`);
    }
    const m = this.mapping;
    return {
      id: request.id,
      ok: true,
      result: {
        name: text(m.name, path.basename(this.runtimeFile).replace(/\.[cm]?[jt]s$/, '') || 'node-runtime', 200),
        version: text(m.version, '0.0.0', 100),
        protocol: PROTOCOL,
        families: declaredFamilies(m),
      },
    };
  }

  /** One reply object for one request line (bytes, newline excluded). */
  async answer(line) {
    let request;
    if (!isUtf8(line)) return errorReply(leadingId(line), 'protocol.bad_request', 'request refused: invalid UTF-8');
    const source = line.toString('utf8');
    try {
      request = parseJson(source);
    } catch (err) {
      return errorReply(leadingId(line), 'protocol.bad_request', `request refused: ${err.message}`);
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      return errorReply(0, 'protocol.bad_request', 'not a request');
    }
    const id = Number.isSafeInteger(request.id) && request.id >= 0 ? request.id : null;
    if (id === null || typeof request.op !== 'string') {
      return errorReply(id ?? 0, 'protocol.bad_request', 'not a request: it needs an id (a whole number >= 0) and an op');
    }
    if (request.op === 'hello') return this.hello(request);
    const args = request.args === undefined ? {} : request.args;
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return errorReply(id, 'protocol.bad_request', 'args is not an object');
    }
    const op = request.op;
    const family = Object.keys(FAMILIES).find((f) => FAMILIES[f].includes(op));
    const found = family && this.mapping && lookup(this.mapping, op);
    if (!found) {
      const [space, member] = exportName(op.includes('.') ? op : `${op}.?`);
      return errorReply(id, 'protocol.unknown_op', family
        ? `operation not implemented: the runtime exports no ${space}.${member}()`
        : `operation not implemented: ${op} is not mapped by this adapter`);
    }
    let result;
    try {
      result = await found.fn.call(found.holder, args);
    } catch (thrown) {
      return thrownReply(id, op, thrown);
    }
    if (result === undefined) result = {};
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      return errorReply(id, 'candidate.internal_error',
        `${op} returned ${Array.isArray(result) ? 'an array' : describe(result)}; a result is an object`);
    }
    return { id, ok: true, result };
  }
}

function isUtf8(buffer) {
  if (typeof buffers.isUtf8 === 'function') return buffers.isUtf8(buffer);
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buffer);
    return true;
  } catch {
    return false;
  }
}

function leadingId(bytes) {
  const found = LEADING_ID.exec(bytes.subarray(0, HEAD_BYTES).toString('latin1'));
  return found && Number.isSafeInteger(Number(found[1])) ? Number(found[1]) : 0;
}

/** One reply line (without its newline); a reply that cannot be sent becomes an internal error. */
function encode(reply) {
  let line;
  let problem = null;
  try {
    const deep = tooDeep(reply, MAX_DEPTH);
    if (deep) problem = `nests deeper than ${MAX_DEPTH} levels at ${deep}`;
    else {
      line = JSON.stringify(reply);
      if (Buffer.byteLength(line, 'utf8') > MAX_LINE_BYTES) {
        problem = `the line would be ${Buffer.byteLength(line, 'utf8')} bytes, more than ${MAX_LINE_BYTES}`;
      }
    }
  } catch (err) {
    problem = `${err.name}: ${err.message}`;
  }
  if (problem === null) return line;
  process.stderr.write(`hookconf adapter: error: the reply to request ${reply.id} cannot be sent: ${problem}\n`);
  return JSON.stringify(errorReply(reply.id, 'candidate.internal_error', `the reply cannot be sent: ${problem}`));
}

// ---------------------------------------------------------------------------------------------
// The stdio loop: bounded lines in, one reply line out per request line, in order.

function serve(adapter, input, write, done) {
  let parts = [];
  let size = 0;
  let head = null;
  let queue = adapter.load();
  const enqueue = (work) => {
    queue = queue.then(work).then((reply) => {
      if (reply) write(`${encode(reply)}\n`);
    });
  };
  const take = (line, overLong) => {
    if (overLong) {
      const id = leadingId(head);
      enqueue(() => errorReply(id, 'protocol.bad_request',
        `request line is ${overLong} bytes, more than ${MAX_LINE_BYTES}`));
    } else if (line.length && line.toString('latin1').trim()) {
      enqueue(() => adapter.answer(line));
    }
  };
  input.on('data', (chunk) => {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      if (head === null) {
        if (size + piece.length > MAX_LINE_BYTES) {
          head = Buffer.concat([...parts, piece]).subarray(0, HEAD_BYTES);
          parts = [];
        } else parts.push(piece);
      }
      size += piece.length;
      if (end === -1) return;
      if (head !== null) take(null, size);
      else take(Buffer.concat(parts), 0);
      parts = [];
      size = 0;
      head = null;
      start = end + 1;
    }
  });
  input.on('end', () => {
    if (size > 0) take(head === null ? Buffer.concat(parts) : null, head === null ? 0 : size);
    queue.then(done, done);
  });
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.help) {
    process.stdout.write(usage());
    return;
  }
  if (options.error) {
    process.stderr.write(`hookconf adapter: error: ${options.error}\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  // stdout carries the protocol alone: whatever the runtime prints (console.log) goes to stderr
  const stdout = process.stdout;
  const write = stdout.write.bind(stdout);
  stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
  serve(new Adapter(options.runtime), process.stdin, write, () => {
    write('', () => process.exit(0));
  });
}

if (require.main === module) main();

module.exports = { FAMILIES, exportName, parseJson, tooDeep, Adapter, encode };
