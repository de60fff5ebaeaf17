"""Matching a runtime case's ``expect`` against what was observed.

``expect`` keys (all optional; schema in ``corpus/schema/case.schema.json``):

``settle``
    ``"idle"`` (the default) or ``"deadlock"``: how ``runtime.settle`` must end.
``results``
    ``{name: record}`` — the result of the process started by the step named ``name``
    (``runtime.state`` → ``results[handle]``).
``candidates``
    ``{name: [pluginId, ...]}`` — the answer of a ``candidates`` step, exactly, in order.
``probes``
    ``[record, ...]`` — each must match some recorded guest probe (what a plugin saw).
``plugins``
    ``{pluginId: record}`` of ``runtime.state`` → ``plugins``.
``nowMs``
    the virtual time (ms) when the run settled (serial vs parallel lanes show here).
``events``
    ``[{"kind": k, ...fields, "count": n}]`` — exactly ``n`` events (at least one when
    ``count`` is absent) match ``kind`` and every given field.
``contexts``
    ``{state step name: {pluginId: n}}`` — exactly ``n`` invocation contexts of the plugin
    (its invocations by ``guest.enter``) were open when that ``state`` step ran (§8).

**How a record matches** (a result, a plugin row, a probe, an event pattern).  A record is
a *selection*: the fields it names must match and the fields it does not name are not
looked at (a chain result has a dozen fields; a case names those it is about).  Every value
*below* a named field is matched **exactly**:

- an object matches an object with the same keys, each value matching exactly — so an
  expected ``"metadata": {}`` means "no metadata at all", never "any metadata";
- a list matches a list of the same length, item by item, in order;
- a scalar matches an equal scalar of the same JSON type (``1`` is not ``true``, ``1.0``
  is ``1``).

Two markers relax or sharpen this where a case says so:

``{"$partial": {key: value, ...}}``
    matches an object holding at least these keys, each value matching exactly (nested
    objects are exact again unless marked themselves).  Use it for a context whose other
    fields the candidate chooses (e.g. a ``beforeCreate`` context: ``{"$partial":
    {"filename": "a.bin", "metadata": {"k": 1}}}`` — ``metadata`` stays exact).
``{"$absent": true}``
    as the value of a named field: the field must not be there at all.

:func:`mismatches` returns one line per unmet expectation; :func:`vacuous` lists the
expectations that would match anything (``hookconf lint`` reports them).
"""

from __future__ import annotations

from typing import Any

__all__ = ["PARTIAL", "ABSENT", "matches", "matches_record", "mismatches", "vacuous"]

PARTIAL = "$partial"
ABSENT = "$absent"


def _marker(value: Any, name: str) -> bool:
    return isinstance(value, dict) and len(value) == 1 and name in value


def _same_scalar(expected: Any, observed: Any) -> bool:
    if isinstance(expected, bool) or isinstance(observed, bool):
        return type(expected) is type(observed) and expected == observed
    if isinstance(expected, (int, float)) and isinstance(observed, (int, float)):
        return expected == observed
    return type(expected) is type(observed) and expected == observed


def matches(expected: Any, observed: Any) -> bool:
    """Exact match with ``$partial`` objects (see the module docstring)."""
    if _marker(expected, PARTIAL):
        subset = expected[PARTIAL]
        return isinstance(subset, dict) and isinstance(observed, dict) and all(
            k in observed and matches(v, observed[k]) for k, v in subset.items())
    if isinstance(expected, dict):
        return (isinstance(observed, dict) and set(expected) == set(observed)
                and all(matches(v, observed[k]) for k, v in expected.items()))
    if isinstance(expected, list):
        return (isinstance(observed, list) and len(expected) == len(observed)
                and all(matches(e, o) for e, o in zip(expected, observed, strict=True)))
    return _same_scalar(expected, observed)


def matches_record(expected: dict[str, Any], observed: Any) -> bool:
    """A record: the named fields match exactly (``$absent``: not there); others are free."""
    if not isinstance(observed, dict):
        return False
    for key, value in expected.items():
        if _marker(value, ABSENT):
            if key in observed:
                return False
        elif key not in observed or not matches(value, observed[key]):
            return False
    return True


def mismatches(expect: dict[str, Any], extra: dict[str, Any]) -> list[str]:
    """Every expectation of ``expect`` that ``extra`` (the runner's record) does not meet."""
    out: list[str] = []
    settle = (extra.get("settle") or {}).get("status")
    wanted = expect.get("settle", "idle")
    if settle != wanted:
        out.append(f"settle ended {settle!r}, expected {wanted!r}")
    named, state = extra.get("named", {}), extra.get("state", {}) or {}
    if not isinstance(state, dict):
        state = {}
    results = state.get("results", {}) if isinstance(state.get("results"), dict) else {}
    for name, record in expect.get("results", {}).items():
        handle = _field(named.get(name), "handle")
        got = results.get(handle) if isinstance(handle, str) else None
        if not matches_record(record, got):
            out.append(f"result {name}: expected {record}, observed {_brief(_selected(record, got))}")
    for name, ids in expect.get("candidates", {}).items():
        answer = _field(named.get(name), "candidates")
        got = ([_field(c, "pluginId") for c in answer] if isinstance(answer, list) else answer)
        if got != ids:
            out.append(f"candidates {name}: expected {ids}, observed {got}")
    probes = state.get("probes", [])
    probes = probes if isinstance(probes, list) else []
    for record in expect.get("probes", []):
        if not any(matches_record(record, p) for p in probes):
            out.append(f"no probe matches {record}; probes: {_brief(probes)}")
    plugins = state.get("plugins", {}) if isinstance(state.get("plugins"), dict) else {}
    for pid, record in expect.get("plugins", {}).items():
        if not matches_record(record, plugins.get(pid)):
            out.append(f"plugin {pid}: expected {record}, observed {_selected(record, plugins.get(pid))}")
    if "nowMs" in expect and state.get("nowMs") != expect["nowMs"]:
        out.append(f"settled at {state.get('nowMs')} ms, expected {expect['nowMs']} ms")
    snapshots = extra.get("snapshots", {})
    for name, wanted_open in expect.get("contexts", {}).items():
        seen = snapshots.get(name) if isinstance(snapshots, dict) else None
        if not isinstance(seen, dict):
            out.append(f"no state step named {name!r} was played")
            continue
        for pid, n in wanted_open.items():
            open_ids = [c for c in seen["contexts"] if seen["owners"].get(c) == pid]
            if len(open_ids) != n:
                out.append(f"state {name} (at {_field(named.get(name), 'nowMs')} ms): {len(open_ids)} "
                           f"open contexts of {pid} {open_ids}, expected {n}")
    events = extra.get("events", [])
    events = events if isinstance(events, list) else []
    for pattern in expect.get("events", []):
        fields = {k: v for k, v in pattern.items() if k != "count"}
        n = sum(1 for e in events if matches_record(fields, e))
        if ("count" in pattern and n != pattern["count"]) or ("count" not in pattern and n == 0):
            want = pattern.get("count", ">=1")
            out.append(f"{n} events match {fields}, expected {want}")
    return out


def vacuous(expect: Any) -> list[tuple[str, str]]:
    """Expectations that match everything they could be compared with, as ``(pointer,
    reason)`` pairs relative to ``expect`` (``hookconf lint`` reports each as a problem).

    Flagged: an empty ``results``, ``candidates``, ``plugins`` or ``probes``; a result,
    plugin or probe record naming no field; a ``$partial`` naming no key, or whose value is
    not an object.
    """
    out: list[tuple[str, str]] = []
    if not isinstance(expect, dict):
        return out
    for key in ("results", "plugins", "candidates", "probes"):
        if key in expect and not expect[key]:
            out.append((f"/{key}", f"an empty {key!r} checks nothing; leave it out or name what must hold"))
    for key in ("results", "plugins"):
        table = expect.get(key)
        if isinstance(table, dict):
            for name, record in table.items():
                if isinstance(record, dict) and not record:
                    out.append((f"/{key}/{_escape(name)}", "a record naming no field matches anything"))
    probes = expect.get("probes")
    if isinstance(probes, list):
        for i, record in enumerate(probes):
            if isinstance(record, dict) and not record:
                out.append((f"/probes/{i}", "a probe naming no field matches any probe"))
    _walk_partials(expect, "", out)
    return out


def _walk_partials(value: Any, pointer: str, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        if PARTIAL in value:
            inner = value[PARTIAL]
            if len(value) != 1:
                out.append((pointer, f"{PARTIAL} must be the only key of its object"))
            elif not isinstance(inner, dict) or not inner:
                out.append((pointer, f"{PARTIAL} with no key matches any object"))
        for k, v in value.items():
            _walk_partials(v, f"{pointer}/{_escape(k)}", out)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _walk_partials(v, f"{pointer}/{i}", out)


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _selected(record: dict[str, Any], got: Any) -> Any:
    if not isinstance(got, dict):
        return got
    return {k: got.get(k, "<absent>") for k in record}


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _brief(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
