// A JavaScript runtime module that maps every operation of every protocol family, for the Node
// adapter's end-to-end tests: each function forwards its operation to a child process
// `python -m hookconf.harness serve SPEC` (hookconf's reference over the stdio protocol, or a
// Python candidate `module:factory`) and answers what the child answers, so `hookconf run`
// through the kit must judge it exactly as it judges SPEC itself.
//
//   HOOKCONF_PROXY_SERVE    the child's SPEC: `reference` (the default) or `pkg.module:factory`
//   HOOKCONF_PROXY_PYTHON   the Python that has hookconf (default `python3`)
//   HOOKCONF_PROXY_LOG      a file to which each operation forwarded is appended, one a line
//
// The child is started with the module (the adapter's handshake does not wait for it) and shares
// the adapter's process group and stderr; it ends when the adapter does (its stdin closes).
'use strict';

const fs = require('node:fs');
const { spawn } = require('node:child_process');
const { parseJson } = require('../../../adapters/node/adapter.js');

/** Each function the module exports, `space.member` -> the protocol's operation. */
const OPERATIONS = {
  permissions: { parse: 'permissions.parse', match: 'permissions.match', matchAny: 'permissions.match_any',
    redirect: 'permissions.redirect' },
  taskSource: { admit: 'task_source.admit' },
  dto: { validate: 'dto.validate' },
  runtime: { reset: 'runtime.reset', install: 'runtime.install', task: 'runtime.task',
    candidates: 'runtime.candidates', beforeCreate: 'runtime.before_create',
    beforeFinalize: 'runtime.before_finalize', command: 'runtime.command', policy: 'runtime.policy',
    reclaim: 'runtime.reclaim', workerMessage: 'runtime.worker_message', dispatch: 'runtime.dispatch',
    advance: 'runtime.advance', settle: 'runtime.settle', ready: 'runtime.ready', step: 'runtime.step',
    events: 'runtime.events', state: 'runtime.state' },
  finalize: { prepare: 'finalize.prepare', run: 'finalize.run', crash: 'finalize.crash',
    recover: 'finalize.recover', state: 'finalize.state' },
  guest: { run: 'guest.run' },
  shell: { start: 'shell.start', path: 'shell.path', stop: 'shell.stop' },
  delivery: { reset: 'delivery.reset', policy: 'delivery.policy', terminal: 'delivery.terminal',
    claim: 'delivery.claim', heartbeat: 'delivery.heartbeat', complete: 'delivery.complete',
    fail: 'delivery.fail', dispatch: 'delivery.dispatch', advance: 'delivery.advance', restart: 'delivery.restart',
    state: 'delivery.state' },
  builtins: { run: 'builtins.run' },
};

/** One JSON text of `value`, non-finite numbers written as the NaN/Infinity tokens protocol v1
 * carries (JSON.stringify would make them null) and -0 as -0.0. */
function toJson(value) {
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return Object.is(value, -0) ? '-0.0' : JSON.stringify(value);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The child serving `spec`: `call(op, args)` resolves to its result or rejects with its error. */
function startChild(python, spec) {
  const child = spawn(python, ['-m', 'hookconf.harness', 'serve', spec], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting = new Map();
  let nextId = 0;
  let ended = null;
  let buffered = '';
  const fail = (why) => {
    ended = why;
    for (const { reject } of waiting.values()) reject(new Error(why));
    waiting.clear();
  };
  const what = `${python} -m hookconf.harness serve ${spec}`;
  child.on('error', (err) => fail(`${what} could not start: ${err.message}`));
  child.on('exit', (status, signal) => fail(`${what} ended (${signal || `status ${status}`})`));
  child.stdin.on('error', () => {}); // a child gone is reported by 'exit'
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end !== -1; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      if (!line.trim()) continue;
      const reply = parseJson(line);
      const pending = waiting.get(reply.id);
      if (!pending) continue;
      waiting.delete(reply.id);
      if (reply.ok) pending.resolve(reply.result);
      else pending.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    }
  });
  const send = (request) => new Promise((resolve, reject) => {
    if (ended) {
      reject(new Error(ended));
      return;
    }
    waiting.set(request.id, { resolve, reject });
    child.stdin.write(`${toJson(request)}\n`);
  });
  const hello = send({ id: nextId, op: 'hello', protocol: 1 });
  hello.catch(() => {}); // a failed start rejects the first call instead
  const log = process.env.HOOKCONF_PROXY_LOG;
  return async (op, args) => {
    if (log) fs.appendFileSync(log, `${op}\n`);
    await hello;
    nextId += 1;
    return send({ id: nextId, op, args });
  };
}

module.exports = {
  name: 'adapter-test-proxy',
  version: '0.1.0',
  createRuntime() {
    const env = process.env;
    const call = startChild(env.HOOKCONF_PROXY_PYTHON || 'python3', env.HOOKCONF_PROXY_SERVE || 'reference');
    const mapping = { name: this.name, version: this.version };
    for (const [space, members] of Object.entries(OPERATIONS)) {
      const forward = Object.entries(members).map(([member, op]) => [member, (args) => call(op, args)]);
      mapping[space] = Object.fromEntries(forward);
    }
    return mapping;
  },
};
