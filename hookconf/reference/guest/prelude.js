// hookconf SDK prelude: the guest side of `motrix:plugin-api` inside one QuickJS VM.
//
// Evaluated before the plugin bundle.  The expression's value is the private host port
// (a function `host(op, arg)`), which only the Python engine holds; the guest sees
// `globalThis.__motrixApi` (what its `import … from 'motrix:plugin-api'` binds to), the
// `URL` global, and `globalThis.__motrixHost.post`, the raw worker port a hostile guest
// could reach in any worker design (the host bridge must defend against it, §8, §12).
//
// Every guest→host message is JSON text carrying the current entry's scope — invocationId,
// callChainId, permissionGeneration (§8) — in the shapes of Motrix's published worker
// messages (§9.1).  Effects are data returned at hook exit (§3, §9.3); nothing is applied
// by the worker.
(function (global) {
  'use strict';
  const urlParse = global.__motrixUrlParse;
  delete global.__motrixUrlParse;
  // Intrinsics captured before guest code runs, so a guest that replaces them cannot
  // change what the prelude sends (the host validates every message regardless).
  const jsonParse = JSON.parse;
  const jsonStringify = JSON.stringify;
  const defineProperty = Object.defineProperty;

  const PRE_HOOKS = ['beforeCreate', 'beforeFinalize'];
  const HOOK_NAMES = ['beforeCreate', 'beforeFinalize', 'afterComplete', 'onError'];
  const PATCH_FIELDS = {
    beforeCreate: ['uris', 'filename', 'connections', 'headers', 'proxy'],
    beforeFinalize: ['filePath'],
  };
  const MAX_MESSAGE_UNITS = 4096; // UTF-16 units of a guest error message (≤ 12 KiB UTF-8)

  const outbox = [];
  const registry = Object.create(null);
  const pending = new Map();
  let nextCallId = 1; // a call's id is a positive safe integer
  // { id, chain, generation, phase: 'activation'|'pre'|'post', hook, sealed, control, patches, ops }
  let entry = null;
  let grants = [];

  function sdkError(code, message) {
    const error = new Error(message);
    error.name = 'MotrixPluginError';
    error.code = code;
    return error;
  }

  function post(message) {
    outbox.push(jsonStringify(message));
  }

  function scoped(current, message) {
    message.invocationId = current.id;
    message.callChainId = current.chain;
    message.permissionGeneration = current.generation;
    return message;
  }

  function finite(key, value) {
    if (typeof value === 'number' && !isFinite(value)) {
      throw new TypeError('not a JSON value: non-finite number');
    }
    if (typeof value === 'bigint') throw new TypeError('not a JSON value: bigint');
    return value;
  }

  function jsonCopy(value, what) {
    const text = jsonStringify(value, finite);
    if (text === undefined) throw new TypeError(what + ' must be a JSON value');
    return jsonParse(text);
  }

  function assertLive(current) {
    if (current.sealed || entry !== current) {
      throw sdkError('plugin.hook.concurrent_protocol_violation', 'the invocation has exited');
    }
    if (current.control.signal.aborted) throw current.control.signal.reason;
  }

  // ---- capability calls: messages with a callId, answered by host('settle', …) ----

  function call(capability, method, args) {
    const current = entry;
    if (current === null || current.sealed) {
      return Promise.reject(sdkError('plugin.hook.concurrent_protocol_violation',
        'no current invocation'));
    }
    if (current.control && current.control.signal.aborted) {
      return Promise.reject(current.control.signal.reason);
    }
    let copied;
    try {
      copied = jsonCopy(args, 'capability arguments');
    } catch (error) {
      return Promise.reject(error);
    }
    const callId = nextCallId++;
    return new Promise((resolve, reject) => {
      pending.set(callId, { resolve, reject, current });
      post(scoped(current, { type: 'call', id: callId, capability, method, args: copied }));
    });
  }

  function settle(results) {
    for (const result of results) {
      const waiter = pending.get(result.id);
      if (!waiter || waiter.current.id !== result.invocationId) continue;
      pending.delete(result.id);
      if (result.ok) waiter.resolve(result.result);
      else waiter.reject(sdkError(result.error.code, result.error.message));
    }
  }

  function rejectPending(current, reason) {
    for (const [callId, waiter] of pending) {
      if (waiter.current === current) {
        pending.delete(callId);
        waiter.reject(reason);
      }
    }
  }

  // ---- §9.3 AbortSignal subset ----

  function makeAbortControl(current) {
    const listeners = [];
    let aborted = false;
    let reason;
    let onabort = null;
    const signal = {};
    Object.defineProperties(signal, {
      aborted: { get: () => aborted, enumerable: true },
      reason: { get: () => reason, enumerable: true },
      onabort: {
        get: () => onabort,
        set: (fn) => { onabort = typeof fn === 'function' ? fn : null; },
        enumerable: true,
      },
      addEventListener: {
        value(type, fn) {
          if (type === 'abort' && typeof fn === 'function' && !listeners.includes(fn)) {
            listeners.push(fn);
          }
        },
      },
      removeEventListener: {
        value(type, fn) {
          const index = listeners.indexOf(fn);
          if (type === 'abort' && index >= 0) listeners.splice(index, 1);
        },
      },
      throwIfAborted: { value() { if (aborted) throw reason; } },
    });
    function abort(code) {
      if (aborted) return false;
      aborted = true;
      reason = sdkError(code, 'aborted: ' + code);
      reason.name = 'AbortError';
      // One abort event is queued first; outstanding capability promises reject after it.
      Promise.resolve().then(() => {
        const event = { type: 'abort', target: signal };
        if (onabort) { try { onabort.call(signal, event); } catch (e) { /* listener error */ } }
        for (const fn of listeners.slice()) {
          try { fn.call(signal, event); } catch (e) { /* listener error */ }
        }
      }).then(() => rejectPending(current, reason));
      return true;
    }
    return { signal: Object.freeze(signal), abort };
  }

  // ---- §9.3 metadata: six methods in pre-hooks, four readonly in post-hooks ----

  function makeMetadata(snapshot, current, writable) {
    const data = new Map();
    for (const key of Object.keys(snapshot)) data.set(key, jsonStringify(snapshot[key]));
    const metadata = {
      get(key) {
        const text = data.get(String(key));
        return text === undefined ? undefined : jsonParse(text);
      },
      has(key) { return data.has(String(key)); },
      getAll() {
        // Own data properties, never assignment: a key such as '__proto__' must stay a key
        // (assignment would call the prototype setter and drop it), §9.3.
        const all = {};
        for (const [key, text] of data) {
          defineProperty(all, key, { value: jsonParse(text), writable: true, enumerable: true,
            configurable: true });
        }
        return all;
      },
      keys() { return Array.from(data.keys()); },
    };
    if (writable) {
      metadata.set = function set(key, value) {
        assertLive(current);
        if (typeof key !== 'string') throw new TypeError('metadata key must be a string');
        const copy = jsonCopy(value, 'metadata value');
        data.set(key, jsonStringify(copy));
        current.ops.delete(key);
        current.ops.set(key, { op: 'set', key, value: copy });
      };
      metadata.delete = function del(key) {
        assertLive(current);
        if (typeof key !== 'string') throw new TypeError('metadata key must be a string');
        data.delete(key);
        current.ops.delete(key);
        current.ops.set(key, { op: 'delete', key });
      };
    }
    return Object.freeze(metadata);
  }

  function makeContext(message, current, pre) {
    const ctx = message.context;
    ctx.metadata = makeMetadata(message.metadata, current, pre);
    ctx.signal = current.control.signal;
    if (pre) {
      const visible = PATCH_FIELDS[message.hook];
      ctx.update = function update(patch) {
        assertLive(current);
        if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
          throw new TypeError('ctx.update takes an object');
        }
        const copy = jsonCopy(patch, 'patch');
        if (Object.keys(copy).length === 0) return; // Partial<…>: an empty patch changes nothing
        current.patches.push(copy);
        for (const key of Object.keys(copy)) {
          if (visible.includes(key)) ctx[key] = jsonCopy(copy[key], 'patch');
        }
        if ('filePath' in copy && message.hook === 'beforeFinalize') {
          ctx.targetFilePath = copy.filePath;
        }
      };
    }
    return ctx;
  }

  function describe(error) {
    // Whatever the guest threw, this never throws: getters and toString may be hostile.
    let code = 'guest.exception';
    let text = 'unprintable error';
    let name = 'Error';
    try {
      const isError = error !== null && typeof error === 'object';
      if (isError && typeof error.code === 'string' && error.code.length <= 64) code = error.code;
      if (isError && typeof error.name === 'string') name = error.name.slice(0, 64);
      text = String(isError && 'message' in error ? error.message : error);
    } catch (ignored) { /* keep the defaults */ }
    // The published exit error is { code, message }; a VM failure keeps its class in the code.
    if (code === 'guest.exception' && name === 'InternalError') code = 'guest.internal_error';
    return { code, message: text.slice(0, MAX_MESSAGE_UNITS) };
  }

  function exit(current, outcome) {
    if (current.sealed) return;
    current.sealed = true;
    if (entry === current) entry = null;
    for (const [callId, waiter] of pending) {
      if (waiter.current === current) pending.delete(callId); // answers can no longer come
    }
    const message = scoped(current, { type: 'event', event: 'hookExit' });
    if (outcome.ok) {
      message.ok = true;
      message.effects = { schemaVersion: 1, contextPatches: current.patches,
        metadataOperations: Array.from(current.ops.values()) };
    } else {
      message.ok = false;
      message.error = describe(outcome.error);
    }
    post(message);
  }

  // ---- the public SDK object ----

  function registrar(name) {
    return function register(fn) {
      if (entry === null || entry.phase !== 'activation') {
        throw sdkError('plugin.hook.permission_denied', 'hooks register during activation only');
      }
      if (typeof fn !== 'function') throw new TypeError(name + ' takes a function');
      registry[name] = fn;
    };
  }

  const hooks = {};
  for (const name of HOOK_NAMES) hooks[name] = registrar(name);

  function logger(level) {
    return function log(message, fields) {
      const current = entry;
      if (current === null) return;
      let copied = null;
      try { copied = fields === undefined ? null : jsonCopy(fields, 'log fields'); } catch (e) {
        copied = null;
      }
      post(scoped(current, { type: 'call', id: nextCallId++, capability: 'log', method: level,
        args: [String(message).slice(0, 4096), copied] }));
    };
  }

  const log = {};
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) log[level] = logger(level);

  const storage = {
    get available() { return grants.includes('storage'); },
    get: (key) => call('storage', 'get', [key]),
    set: (key, value) => call('storage', 'set', [key, value]),
    compareAndSet: (key, expectedVersion, nextValue) =>
      call('storage', 'compareAndSet', [key, expectedVersion, nextValue]),
    delete: (key) => call('storage', 'delete', [key]),
    keys: (prefix) => call('storage', 'keys', prefix === undefined ? [] : [prefix]),
  };

  function request(options) {
    if (options === null || typeof options !== 'object') {
      return Promise.reject(new TypeError('http.request takes an options object'));
    }
    const plain = Object.assign({}, options);
    const signal = plain.signal;
    delete plain.signal;
    if (signal && signal.aborted) return Promise.reject(signal.reason);
    return call('http', 'request', [plain]).then((response) => {
      if (plain.responseType === 'bytes') response.body = new Uint8Array(response.body);
      return response;
    });
  }

  const http = {
    get available() { return grants.includes('http'); },
    request,
    get: (url, options) => request(Object.assign({ responseType: 'text' }, options,
      { method: 'GET', url })),
    post: (url, body, options) => request(Object.assign({ responseType: 'text' }, options,
      { method: 'POST', url, body })),
  };

  // ---- URL backed by the host's WHATWG parser ----

  const URL_PARTS = new WeakMap();
  const URL_FIELDS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname',
    'port', 'pathname', 'search', 'hash'];

  function parseUrl(input, base) {
    // JSON text, not raw strings: a lone surrogate cannot cross the binding as a string.
    const args = jsonStringify([String(input), base === undefined ? null : String(base)]);
    return jsonParse(urlParse(args));
  }

  class URL {
    constructor(input, base) {
      const parts = parseUrl(input, base);
      if (!parts.ok) throw new TypeError('Invalid URL');
      URL_PARTS.set(this, parts);
    }
    static canParse(input, base) { return parseUrl(input, base).ok; }
    toString() { return URL_PARTS.get(this).href; }
    toJSON() { return URL_PARTS.get(this).href; }
  }
  for (const field of URL_FIELDS) {
    Object.defineProperty(URL.prototype, field, {
      get() { return URL_PARTS.get(this)[field]; }, enumerable: true,
    });
  }
  global.URL = URL;

  global.__motrixApi = Object.freeze({ hooks: Object.freeze(hooks), log: Object.freeze(log),
    storage: Object.freeze(storage), http: Object.freeze(http) });
  // The raw worker port: reachable by guest code, so every message is checked by the host.
  global.__motrixHost = Object.freeze({ post });

  // ---- the private host port ----

  function enter(envelope) {
    // The published enter message: the DTO is its ctxPayload, the snapshot its metadataSnapshot.
    const message = { hook: envelope.hook, context: envelope.ctxPayload,
      metadata: envelope.metadataSnapshot };
    const pre = PRE_HOOKS.includes(message.hook);
    const current = { id: envelope.invocationId, chain: envelope.callChainId,
      generation: envelope.permissionGeneration, hook: message.hook, phase: pre ? 'pre' : 'post',
      sealed: false, control: null, patches: [], ops: new Map() };
    current.control = makeAbortControl(current);
    entry = current;
    const fn = registry[message.hook];
    if (typeof fn !== 'function') {
      exit(current, { ok: false, error: sdkError('plugin.hook.not_registered', message.hook) });
      return;
    }
    let result;
    try {
      result = Promise.resolve(fn(makeContext(message, current, pre)));
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(() => exit(current, { ok: true }), (error) => exit(current, { ok: false, error }));
  }

  return function host(op, arg) {
    switch (op) {
      case 'configure': grants = jsonParse(arg).grants; return null;
      case 'beginActivation':
        entry = { id: arg, chain: arg, generation: 0, phase: 'activation', hook: null,
          sealed: false, control: null };
        return null;
      case 'endActivation':
        if (entry !== null && entry.phase === 'activation') entry = null;
        return jsonStringify(Object.keys(registry));
      case 'enter': enter(jsonParse(arg)); return null;
      case 'settle': settle(jsonParse(arg)); return null;
      case 'abort':
        if (entry !== null && entry.control) entry.control.abort(arg);
        return null;
      case 'drain': {
        const text = '[' + outbox.join(',') + ']';
        outbox.length = 0;
        return text;
      }
      default: throw new Error('unknown host op ' + op);
    }
  };
})(globalThis)
