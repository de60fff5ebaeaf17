"""Metadata programs (§9.3, H7): sequences of ``ctx.metadata`` calls and the map model they
are compared with.

A :class:`Program` is one hook invocation of the ``hookconf.metadata-program`` fixture: the
hook, the ``(taskId, pluginId)`` metadata snapshot, and the steps the guest performs in order,
each ``(op, key?, value?)`` with ``op`` one of ``get``, ``has``, ``getAll``, ``keys``, ``set``,
``delete``.  The fixture reads its steps from the snapshot key :data:`PROGRAM_KEY` (the one
input every hook legitimately carries) and logs one record, ``metadata program``, with
``surface`` (``typeof`` of each of the six methods) and ``results`` (what each step returned).

The model is a plain map, decided by §9.3:

* in a pre-hook (``beforeCreate``, ``beforeFinalize``) all six methods exist; ``set`` and
  ``delete`` stage a write that every later read sees at once (read-after-write);
* in a post-hook (``afterComplete``, ``onError``) only ``get``, ``has``, ``getAll`` and
  ``keys`` exist; ``set`` and ``delete`` are absent (``typeof`` is ``"undefined"``), so a write
  step changes nothing;
* ``keys()`` is an array of the present keys and ``getAll()`` an object of the present
  entries.  The spec fixes no order, so both are compared as sets (without duplicates);
* at exit the worker returns the staged operations (§9.3 "Worker 在 Hook exit 时返回这些操作"):
  every returned operation names a key the program wrote, and applying them in order to the
  snapshot gives the model's final map.  A post-hook returns none.

Keys include those a guest-side object built by assignment gets wrong (``__proto__``,
``constructor``, ``toString``), integer-like keys (which objects reorder), non-ASCII and
astral keys and a key of exactly 128 UTF-8 bytes (the §9.1 limit).  The empty key is only
*read*: whether it may be written is not decided by the spec.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["HOOKS", "KEYS", "OPS", "POST_HOOKS", "PRE_HOOKS", "PROGRAM_KEY", "Program",
           "directed", "expected_steps", "generate", "problems"]

#: The snapshot key the fixture reads its steps from (never used by a generated step).
PROGRAM_KEY = "hookconf.program"
#: The fixture's one log record per invocation.
RECORD = "metadata program"
PRE_HOOKS = ("beforeCreate", "beforeFinalize")
POST_HOOKS = ("afterComplete", "onError")
HOOKS = PRE_HOOKS + POST_HOOKS
READS = ("get", "has", "getAll", "keys")
WRITES = ("set", "delete")
OPS = READS + WRITES
KEYED = ("get", "has", "set", "delete")

#: Keys a program draws from: plain, dotted, prototype names, integer-like, non-ASCII,
#: astral, and one of exactly 128 UTF-8 bytes (§9.1 metadata key limit, inclusive).
KEYS = ("a", "b", "a.b", "k9", "é", "😀", "0", "10", "__proto__", "constructor", "toString",
        "hasOwnProperty", "valueOf", "é" * 64)
#: Keys only read (never written nor in a snapshot): the spec does not say an empty key is valid.
READ_ONLY_KEYS = ("",)

_WEIGHTS = {"get": 20, "has": 14, "getAll": 12, "keys": 12, "set": 26, "delete": 16}


@dataclass(frozen=True, slots=True)
class Program:
    """One invocation: ``hook``, ``snapshot`` (without :data:`PROGRAM_KEY`) and ``ops``."""

    hook: str
    snapshot: dict[str, Any]
    ops: tuple[tuple[Any, ...], ...]

    @property
    def pre(self) -> bool:
        return self.hook in PRE_HOOKS

    def metadata(self) -> dict[str, Any]:
        """The snapshot the invocation carries: the program's own plus :data:`PROGRAM_KEY`."""
        return {**self.snapshot, PROGRAM_KEY: [list(op) for op in self.ops]}

    def to_json(self) -> dict[str, Any]:
        return {"hook": self.hook, "snapshot": self.snapshot, "ops": [list(op) for op in self.ops]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Program:
        return cls(data["hook"], dict(data.get("snapshot", {})), tuple(tuple(op) for op in data["ops"]))

    def show(self) -> str:
        """One line: ``beforeFinalize {"a":1} set("b", 2); getAll()``."""
        calls = "; ".join(_call(op) for op in self.ops) or "(no calls)"
        return f"{self.hook} snapshot {_text(self.snapshot)}: {calls}"


def _call(op: Sequence[Any]) -> str:
    args = ", ".join(json.dumps(a, ensure_ascii=False) for a in op[1:3])
    return f"{op[0]}({args})"


def _text(value: Any, limit: int = 240) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# ---- the model ----

@dataclass(slots=True)
class Expected:
    """What the model says one program shows: per step a result, then the exit."""

    surface: dict[str, str]
    steps: list[tuple[str, Any]] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)


def expected_steps(program: Program) -> Expected:
    """Run ``program`` against a plain map: the result of every step and the final map."""
    pre = program.pre
    surface = {m: ("function" if pre or m in READS else "undefined") for m in OPS}
    out = Expected(surface)
    state = dict(program.metadata())
    for op in program.ops:
        name, key = op[0], (op[1] if len(op) > 1 else None)
        if name in WRITES and not pre:
            out.steps.append(("absent", None))
        elif name == "set":
            state[key] = op[2] if len(op) > 2 else None
            out.written.add(key)
            out.steps.append(("ok", None))
        elif name == "delete":
            state.pop(key, None)
            out.written.add(key)
            out.steps.append(("ok", None))
        elif name == "get":
            out.steps.append(("value", state[key]) if key in state else ("undefined", None))
        elif name == "has":
            out.steps.append(("value", key in state))
        elif name == "keys":
            out.steps.append(("keys", sorted(state)))
        else:
            out.steps.append(("entries", dict(state)))
    out.final = state
    return out


def _wanted(kind: str, value: Any) -> Any:
    return {"absent": {"type": "undefined"}, "ok": {"ok": True}, "undefined": {"undefined": True},
            "value": {"value": value}, "keys": {"value": value}, "entries": {"entries": value}}[kind]


def _step_problem(kind: str, value: Any, seen: Any) -> str | None:
    """Why ``seen`` (the fixture's record of one step) differs from the model, or None."""
    if kind == "keys":
        listed = seen.get("value") if isinstance(seen, dict) and set(seen) == {"value"} else None
        if not isinstance(listed, list) or not all(isinstance(k, str) for k in listed):
            return "not an array of keys"
        if len(set(listed)) != len(listed):
            return "lists a key twice"
        missing, extra = sorted(set(value) - set(listed)), sorted(set(listed) - set(value))
        if missing or extra:
            return "".join([f"lacks {_text(missing)} " if missing else "",
                            f"lists {_text(extra)} it should not" if extra else ""]).strip()
        return None
    if kind == "entries":
        entries = seen.get("entries") if isinstance(seen, dict) and set(seen) == {"entries"} else None
        if not isinstance(entries, list) or not all(
                isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) for e in entries):
            return "not an object of entries"
        got = dict((k, v) for k, v in entries)
        if len(got) != len(entries):
            return "holds a key twice"
        missing = sorted(set(value) - set(got))
        extra = sorted(set(got) - set(value))
        differ = sorted(k for k in set(value) & set(got) if _canon(value[k]) != _canon(got[k]))
        if missing or extra or differ:
            return " ".join(filter(None, [f"lacks {_text(missing)}" if missing else "",
                                          f"holds {_text(extra)} it should not" if extra else "",
                                          f"has other values at {_text(differ)}" if differ else ""]))
        return None
    if _canon(seen) != _canon(_wanted(kind, value)):
        return "differs"
    return None


def problems(program: Program, entry: Any) -> list[str]:
    """Every way one invocation's result (a ``guest.run`` result entry) departs from the model.

    Empty when the candidate agrees at every step and at exit.  Never raises for a malformed
    entry: what a candidate answers is only data here.
    """
    if not isinstance(entry, dict):
        return ["no result for this invocation"]
    if entry.get("code") is not None:
        return [f"the invocation failed with {entry.get('code')}: {str(entry.get('reason'))[:200]}"]
    records = [r for r in entry.get("logs") or [] if isinstance(r, dict) and r.get("message") == RECORD]
    fields = records[0].get("fields") if records else None
    if not isinstance(fields, dict):
        return [f"no {RECORD!r} log record: the fixture did not run its program"]
    model = expected_steps(program)
    found: list[str] = []
    if fields.get("surface") != model.surface:
        found.append(f"method surface {_text(fields.get('surface'))}, expected {_text(model.surface)}")
    results = fields.get("results")
    if not isinstance(results, list) or len(results) != len(program.ops):
        found.append(f"the fixture could not read its program (results {_text(results, 80)})")
        return found
    for index, (op, (kind, value), seen) in enumerate(zip(program.ops, model.steps, results, strict=True)):
        why = _step_problem(kind, value, seen)
        if why is not None:
            found.append(f"step {index + 1} {_call(op)}: {why}: expected {_text(_wanted(kind, value))}, "
                         f"observed {_text(seen)}")
            break  # later steps follow from this one; the first departure is the finding
    found += _exit_problems(program, model, entry.get("effects"))
    return found


def _exit_problems(program: Program, model: Expected, effects: Any) -> list[str]:
    if effects is None:
        effects = {}
    if not isinstance(effects, dict):
        return [f"effects are not an object: {_text(effects, 80)}"]
    found = []
    if effects.get("contextPatches") not in (None, []):
        found.append(f"contextPatches {_text(effects['contextPatches'])} from a guest that patched nothing")
    ops = effects.get("metadataOperations") or []
    if not isinstance(ops, list):
        return [*found, f"metadataOperations is not a list: {_text(ops, 80)}"]
    if not program.pre:
        if ops:
            found.append(f"a post-hook returned metadata operations {_text(ops)}")
        return found
    state = dict(program.metadata())
    for op in ops:
        if not isinstance(op, dict) or op.get("op") not in WRITES or not isinstance(op.get("key"), str) \
                or (op["op"] == "set" and "value" not in op):
            return [*found, f"malformed metadata operation {_text(op, 80)}"]
        if op["key"] not in model.written:
            found.append(f"returned an operation on {op['key']!r}, which the program never wrote")
        if op["op"] == "set":
            state[op["key"]] = op["value"]
        else:
            state.pop(op["key"], None)
    if _canon(state) != _canon(model.final):
        lost = sorted(k for k in model.final if k not in state or _canon(state[k]) != _canon(model.final[k]))
        kept = sorted(k for k in state if k not in model.final)
        found.append(f"the returned operations {_text(ops)} do not reproduce the staged writes "
                     f"(wrong or missing at {_text(lost)}, left behind {_text(kept)})")
    return found


# ---- generation ----

def _value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 2 and roll < 0.2:
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 2 and roll < 0.35:
        return {rng.choice(KEYS): _value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return rng.choice([None, True, False, 0, -1, 7, 2**53 - 1, 0.5, -1.25, "", "x", "é", "😀 ok",
                       "__proto__", rng.randint(-1000, 1000)])


def _key(rng: random.Random, state: dict[str, Any], write: bool) -> str:
    present = [k for k in state if k != PROGRAM_KEY]
    if present and rng.random() < 0.5:
        return rng.choice(present)
    if not write and rng.random() < 0.08:
        return rng.choice(READ_ONLY_KEYS)
    return rng.choice(KEYS)


def random_program(rng: random.Random, hook: str, max_ops: int) -> Program:
    """A seeded random program of 1..``max_ops`` steps; after a write, often a read of its key."""
    snapshot = {k: _value(rng) for k in rng.sample(KEYS, rng.randint(0, 4))}
    state = dict(snapshot)
    ops: list[tuple[Any, ...]] = []
    names, weights = list(_WEIGHTS), list(_WEIGHTS.values())
    target = rng.randint(1, max_ops)
    while len(ops) < target:
        name = rng.choices(names, weights)[0]
        if name in ("getAll", "keys"):
            ops.append((name,))
            continue
        key = _key(rng, state, name in WRITES)
        if name == "set":
            value = _value(rng)
            ops.append((name, key, value))
            if hook in PRE_HOOKS:
                state[key] = value
        else:
            ops.append((name, key))
            if name == "delete" and hook in PRE_HOOKS:
                state.pop(key, None)
        if name in WRITES and len(ops) < target and rng.random() < 0.4:
            ops.append((rng.choice(("get", "has")), key))
    return Program(hook, snapshot, tuple(ops))


def directed(hooks: Sequence[str]) -> list[Program]:
    """Programs written from the structure of §9.3, one set per hook: prototype-named keys
    read, written and listed; delete then set; set then delete; ``getAll``/``keys`` after
    every kind of write; in a post-hook, every write attempted and every read after it."""
    found = []
    for hook in hooks:
        found.append(Program(hook, {"constructor": 1, "0": "zero"}, (
            ("has", "toString"), ("get", "valueOf"), ("set", "__proto__", {"polluted": True}),
            ("get", "__proto__"), ("has", "__proto__"), ("keys",), ("getAll",),
            ("delete", "constructor"), ("has", "constructor"), ("set", "toString", "t"),
            ("getAll",), ("get", ""))))
        found.append(Program(hook, {"a": 1, "10": [1, {"b": None}]}, (
            ("delete", "a"), ("has", "a"), ("get", "a"), ("keys",), ("set", "a", {"again": 2}),
            ("get", "a"), ("set", "é" * 64, "long"), ("delete", "é" * 64), ("has", "é" * 64),
            ("getAll",), ("set", "10", 10), ("keys",))))
    return found


def generate(rng: random.Random, count: int, max_ops: int, hooks: Sequence[str]) -> list[Program]:
    """``count`` programs: the :func:`directed` ones first (as many as fit), then random ones
    over ``hooks`` in turn, each of 1..``max_ops`` steps."""
    programs = directed(hooks)[:count]
    while len(programs) < count:
        programs.append(random_program(rng, hooks[len(programs) % len(hooks)], max_ops))
    return programs
