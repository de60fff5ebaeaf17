// A runtime module (ES) that exports createRuntime(): the adapter serves what it returns.
export async function createRuntime() {
  const made = Date.now();
  return {
    name: 'adapter-test-factory',
    families: ['dto', 'storage', 'dto'], // no protocol family is named storage
    dto: { validate: ({ value }) => ({ valid: typeof value === 'string', made: typeof made }) },
    runtime: { reset: () => ({ nowMs: 0 }) },
  };
}
