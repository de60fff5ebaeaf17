// A test runtime for the adapter's protocol tests: each function misbehaves in one way.
'use strict';

let calls = 0;

module.exports = {
  name: 'adapter-test-probe',
  version: '1.2.3',
  permissions: {
    // says what arrived, after printing to stdout (which must not reach the protocol)
    match(args) {
      calls += 1;
      console.log('a runtime printing to stdout');
      process.stdout.write('and writing to it\n');
      return {
        match: true,
        calls,
        self: this === module.exports.permissions,
        seen: Object.entries(args.value || {}).map(([key, value]) => [key, String(value), typeof value]),
        protoIsObject: Object.getPrototypeOf(args.value || {}) === Object.prototype,
      };
    },
    // a §13 error, thrown from an async function
    async parse() {
      throw Object.assign(new Error('refused on purpose'), { code: 'plugin.hook.permission_denied' });
    },
    // a plain JavaScript error, and a Node error whose code is not a protocol code
    redirect(args) {
      if (args.node) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      if (args.string) throw 'a thrown string';
      return null.x;
    },
    // results that cannot be sent
    matchAny(args) {
      if (args.kind === 'array') return [1];
      if (args.kind === 'bigint') return { n: 10n };
      if (args.kind === 'deep') {
        let value = {};
        for (let k = 0; k < 200; k += 1) value = { value };
        return value;
      }
      if (args.kind === 'huge') return { text: 'x'.repeat(8 * 1024 * 1024) };
      if ((args.patterns || []).includes('never')) return new Promise(() => {});
      return undefined;
    },
  },
  taskSource: {
    admit: ({ url }) => ({ admitted: url.startsWith('https:') }),
  },
};
