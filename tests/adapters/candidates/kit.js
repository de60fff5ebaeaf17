// A tiny JavaScript runtime for the Node adapter's tests: the §7 permission routes, a §6
// beforeCreate candidate registry that uses the same matcher, and one §9.1 DTO. Everything
// answers through one `matches(pattern, url)` function, so a candidate differs only there.
'use strict';

const utf8Bytes = (text) => Buffer.byteLength(text, 'utf8');

/**
 * The mapping object the adapter serves, built around `matches(pattern, url) -> boolean`
 * (and `parse(pattern) -> {valid, reason?}`).
 */
function makeRuntime({ name, matches, parse }) {
  const matchesAny = (patterns, url) => patterns.some((p) => matches(p, url));
  let plugins = new Map();
  let tasks = new Map();
  let generation = 0;

  return {
    name,
    version: '0.1.0',
    families: ['permissions', 'dto', 'runtime'],
    permissions: {
      parse: ({ pattern }) => parse(pattern),
      match: ({ pattern, url }) => ({ match: matches(pattern, url) }),
      matchAny: ({ patterns, url }) => ({ match: matchesAny(patterns, url) }),
      redirect({ patterns, hops, proxy }) {
        if (proxy !== null && proxy !== undefined) {
          return { allowed: false, refused_hop: 0, code: 'plugin.hook.permission_denied' };
        }
        let previous = null;
        for (let index = 0; index < hops.length; index += 1) {
          let url = hops[index];
          try {
            url = previous === null ? url : new URL(url, previous).href;
          } catch {
            // an unresolvable hop is checked as written and fails closed in matches()
          }
          if (!matchesAny(patterns, url)) {
            return { allowed: false, refused_hop: index, code: 'plugin.http.host_not_permitted' };
          }
          previous = url;
        }
        return { allowed: true, refused_hop: null, code: null };
      },
    },
    dto: {
      validate({ schema, value, direction }) {
        if (schema !== 'MetadataKeyV1') {
          const error = new Error(`this test runtime validates MetadataKeyV1 only, not ${schema}`);
          error.code = 'protocol.unknown_op';
          throw error;
        }
        const valid = typeof value === 'string' && value.length > 0 && utf8Bytes(value) <= 128;
        return valid ? { valid: true, code: null, path: null }
          : { valid: false, code: `plugin.hook.${direction}_invalid`, path: '' };
      },
    },
    runtime: {
      reset() {
        plugins = new Map();
        tasks = new Map();
        return { nowMs: 0 };
      },
      install({ manifest }) {
        generation += 1;
        plugins.set(manifest.id, manifest);
        return { pluginId: manifest.id, version: manifest.version, digest: `sha256:${manifest.id}`, generation };
      },
      task({ taskId, type, sourceUrl }) {
        tasks.set(taskId, { type, sourceUrl });
        return { taskId };
      },
      async candidates({ hook, taskId }) {
        const task = tasks.get(taskId);
        if (!task) throw Object.assign(new Error(`no task ${taskId}`), { code: 'protocol.bad_request' });
        const found = [];
        for (const [pluginId, manifest] of plugins) {
          const declared = manifest.contributes && manifest.contributes.hooks && manifest.contributes.hooks[hook];
          if (!declared) continue;
          if (!(manifest.activationEvents || []).includes(`onTaskType:${task.type}`)) continue;
          if (hook === 'beforeCreate' && task.type === 'http' && declared.role === 'resolve'
              && !matchesAny(manifest.hostPermissions || [], task.sourceUrl)) continue;
          found.push({ pluginId, role: declared.role });
        }
        return { candidates: found };
      },
    },
  };
}

module.exports = { makeRuntime };
