// The naive test runtime (an ES module): a regular expression over the whole raw URL, the
// matching §7 forbids ("禁止针对整个原始 URL 执行正则匹配"). hookconf must report H5 failing.
import kit from './kit.js';

function regexFor(pattern) {
  const text = pattern === '<all_urls>' ? '*://*/*' : pattern;
  return new RegExp(`^${text.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}`, 'i');
}

const runtime = kit.makeRuntime({
  name: 'adapter-test-naive',
  matches: (pattern, url) => regexFor(pattern).test(url),
  parse: (pattern) => ({ valid: /^(\*|https?):\/\/[^/]+\/.*$|^<all_urls>$/.test(pattern) }),
});

export const { name, version, families, permissions, dto } = runtime;
export default runtime;
