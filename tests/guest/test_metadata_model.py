"""H7 model check: a random program of metadata calls runs inside a pre-hook and against a
Python dict in lockstep; every read must see earlier staged writes (read-after-write,
§9.3), and the exit carries the last operation per key in the order keys were last
touched (effects as data, §3)."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookconf.reference.schemas import canonical_json

from .test_sdk import inline

KEYS = st.sampled_from(["a", "b", "é", "a.b", "k9"])
VALUES = st.recursive(st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
                      lambda c: st.lists(c, max_size=3) | st.dictionaries(KEYS, c, max_size=3),
                      max_leaves=6)
STEPS = st.lists(st.one_of(
    st.tuples(st.just("set"), KEYS, VALUES), st.tuples(st.just("delete"), KEYS),
    st.tuples(st.just("get"), KEYS), st.tuples(st.just("has"), KEYS),
    st.tuples(st.just("keys")), st.tuples(st.just("getAll"))), max_size=25)
SNAPSHOTS = st.dictionaries(KEYS, VALUES, max_size=4)

PROGRAM = """
hooks.beforeFinalize(async (ctx) => {
  const m = ctx.metadata
  const program = m.get('__program')
  m.delete('__program')
  const seen = []
  for (const [op, key, value] of program) {
    if (op === 'set') m.set(key, value)
    else if (op === 'delete') m.delete(key)
    else if (op === 'get') seen.push(m.get(key) === undefined ? '<undefined>' : m.get(key))
    else if (op === 'has') seen.push(m.has(key))
    else if (op === 'keys') seen.push([...m.keys()].sort())
    else seen.push(m.getAll())
  }
  log.info('seen', { seen })
})"""


@pytest.fixture
def model_vm(tmp_path_factory, host):
    vm = inline(tmp_path_factory.mktemp("model"), host, PROGRAM, hooks={"beforeFinalize": "enrich"})
    yield vm
    vm.close()


def run_model(snapshot, steps):
    state = dict(snapshot)
    last = {"__program": {"op": "delete", "key": "__program"}}
    seen = []
    for step in steps:
        op = step[0]
        if op == "set":
            state[step[1]] = step[2]
            last.pop(step[1], None)
            last[step[1]] = {"op": "set", "key": step[1], "value": step[2]}
        elif op == "delete":
            state.pop(step[1], None)
            last.pop(step[1], None)
            last[step[1]] = {"op": "delete", "key": step[1]}
        elif op == "get":
            seen.append(state.get(step[1], "<undefined>"))
        elif op == "has":
            seen.append(step[1] in state)
        elif op == "keys":
            seen.append(sorted(state, key=lambda k: k.encode("utf-16-be")))
        else:
            seen.append(dict(state))
    return seen, list(last.values())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(snapshot=SNAPSHOTS, steps=STEPS)
def test_guest_metadata_agrees_with_a_dict_model(model_vm, host, contexts, snapshot, steps):
    host.logs.clear()
    program = [list(step) + [None] * (3 - len(step)) for step in steps]
    outcome = model_vm.invoke("beforeFinalize", contexts["beforeFinalize"],
                              metadata={**snapshot, "__program": program})
    assert outcome.ok, outcome
    expected_seen, expected_ops = run_model(snapshot, steps)
    assert canonical_json(host.log("seen").fields["seen"]) == canonical_json(expected_seen)
    assert canonical_json(outcome.effects["metadataOperations"]) == canonical_json(expected_ops)
