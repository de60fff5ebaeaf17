// A runtime module exporting a class instance: its mapping is on the prototype, as getters.
'use strict';

class Runtime {
  #matched = 0;

  get name() { return 'adapter-test-classy'; }

  get permissions() {
    return { match: () => ({ match: true, matched: ++this.#matched }) };
  }
}

module.exports = new Runtime();
