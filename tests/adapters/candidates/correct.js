// The correct test runtime: a structured §7 matcher on WHATWG URLs (Node's own parser).
'use strict';

const { makeRuntime } = require('./kit.js');

const PATTERN = /^(\*|https?):\/\/([^/]*)(\/.*)$/;
const upperEscapes = (text) => text.replace(/%[0-9a-fA-F]{2}/g, (e) => e.toUpperCase());

/** A normalised host (lower case, IDNA, one trailing dot dropped), or null when invalid. */
function normalHost(host) {
  try {
    const parsed = new URL(`http://${host}/`);
    if (parsed.host !== parsed.hostname) return null; // a port
    return parsed.hostname.replace(/\.$/, '');
  } catch {
    return null;
  }
}

function parsePattern(pattern) {
  const text = pattern === '<all_urls>' ? '*://*/*' : pattern;
  const found = PATTERN.exec(text);
  if (!found) return null;
  const [, scheme, host, pathGlob] = found;
  if (host === '' || host.includes('@')) return null;
  let kind = 'exact';
  let name = host;
  if (host === '*') kind = 'any';
  else if (host.startsWith('*.')) {
    kind = 'suffix';
    name = host.slice(2);
  }
  if (name.includes('*')) return null;
  if (kind !== 'any') {
    name = normalHost(name);
    if (!name) return null;
  }
  const schemes = scheme === '*' ? ['http:', 'https:'] : [`${scheme}:`];
  const glob = new RegExp(`^${upperEscapes(pathGlob).split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
  return { schemes, kind, name, glob };
}

function matches(pattern, url) {
  const p = parsePattern(pattern);
  let u;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (!p || !p.schemes.includes(u.protocol) || u.username !== '' || u.password !== '') return false;
  const host = u.hostname.replace(/\.$/, '');
  if (host === '' || host.startsWith('.') || host.includes('..')) return false;
  const hostOk = p.kind === 'any' || host === p.name || (p.kind === 'suffix' && host.endsWith(`.${p.name}`));
  return hostOk && p.glob.test(upperEscapes(u.pathname + u.search));
}

module.exports = makeRuntime({
  name: 'adapter-test-correct',
  matches,
  parse: (pattern) => (parsePattern(pattern) ? { valid: true } : { valid: false, reason: 'not a §7 pattern' }),
});
