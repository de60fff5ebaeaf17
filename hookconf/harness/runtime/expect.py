"""Matching a runtime case's ``expect`` against what was observed.

``expect`` keys (all optional; schema in ``corpus/schema/case.schema.json``):

``settle``
    ``"idle"`` (the default) or ``"deadlock"``: how ``runtime.settle`` must end.
``results``
    ``{name: subset}`` — the result of the process started by the step named ``name``
    (``runtime.state`` → ``results[handle]``) must contain ``subset``.
``candidates``
    ``{name: [pluginId, ...]}`` — the answer of a ``candidates`` step, in order.
``probes``
    ``[subset, ...]`` — each must match some recorded guest probe (what a plugin saw).
``plugins``
    ``{pluginId: subset}`` of ``runtime.state`` → ``plugins``.
``nowMs``
    the virtual time when the run settled (serial vs parallel lanes show here).
``events``
    ``[{"kind": k, ...fields, "count": n}]`` — exactly ``n`` events (at least one when
    ``count`` is absent) match ``kind`` and every given field.

Subset matching: objects match when every expected key matches; lists and scalars must be
equal.  :func:`mismatches` returns one line per unmet expectation.
"""

from __future__ import annotations

from typing import Any

__all__ = ["matches", "mismatches"]


def matches(expected: Any, observed: Any) -> bool:
    """Recursive subset match (objects by key, everything else by equality)."""
    if isinstance(expected, dict):
        return isinstance(observed, dict) and all(
            k in observed and matches(v, observed[k]) for k, v in expected.items())
    return bool(expected == observed)


def mismatches(expect: dict[str, Any], extra: dict[str, Any]) -> list[str]:
    """Every expectation of ``expect`` that ``extra`` (the runner's record) does not meet."""
    out: list[str] = []
    settle = (extra.get("settle") or {}).get("status")
    wanted = expect.get("settle", "idle")
    if settle != wanted:
        out.append(f"settle ended {settle!r}, expected {wanted!r}")
    named, state = extra.get("named", {}), extra.get("state", {}) or {}
    results = state.get("results", {})
    for name, subset in expect.get("results", {}).items():
        handle = (named.get(name) or {}).get("handle")
        got = results.get(handle)
        if not matches(subset, got):
            out.append(f"result {name}: expected {subset}, observed {_brief(got)}")
    for name, ids in expect.get("candidates", {}).items():
        got = [c.get("pluginId") for c in (named.get(name) or {}).get("candidates", [])]
        if got != ids:
            out.append(f"candidates {name}: expected {ids}, observed {got}")
    probes = state.get("probes", [])
    for subset in expect.get("probes", []):
        if not any(matches(subset, p) for p in probes):
            out.append(f"no probe matches {subset}; probes: {_brief(probes)}")
    plugins = state.get("plugins", {})
    for pid, subset in expect.get("plugins", {}).items():
        if not matches(subset, plugins.get(pid)):
            got = {k: (plugins.get(pid) or {}).get(k) for k in subset}
            out.append(f"plugin {pid}: expected {subset}, observed {got}")
    if "nowMs" in expect and state.get("nowMs") != expect["nowMs"]:
        out.append(f"settled at {state.get('nowMs')} ms, expected {expect['nowMs']} ms")
    events = extra.get("events", [])
    for pattern in expect.get("events", []):
        fields = {k: v for k, v in pattern.items() if k != "count"}
        n = sum(1 for e in events if matches(fields, e))
        if ("count" in pattern and n != pattern["count"]) or ("count" not in pattern and n == 0):
            want = pattern.get("count", ">=1")
            out.append(f"{n} events match {fields}, expected {want}")
    return out


def _brief(value: Any, limit: int = 300) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
