"""Generated runtime cases (§5.2, §6): a policy change on a later candidate of a running chain.

``runtime.later-candidates`` (H21, §6, §5.2)
    A serial pre-hook chain (``beforeCreate`` or ``beforeFinalize``) selects its candidates
    when it starts.  While an earlier plugin runs, a policy barrier changes a **later**
    candidate that has not started yet — every §6 policy action:

    ``revoke``
        its required capability (``storage``) is revoked — rule 6, "必需 capability 仍在插件
        有效权限集合内";
    ``disable``, ``quarantine``, ``uninstall``
        rule 1, "已安装、兼容、启用且未隔离";
    ``upgrade-drops-hook``
        the new version no longer declares the hook — rule 2;
    ``upgrade-requires``
        the new version requires a capability (``http``) the plugin is not granted — rule 6;
    ``upgrade-host``
        the new version's ``hostPermissions`` no longer match the source — rule 5, which
        filters only an HTTP ``beforeCreate``: for ``beforeFinalize`` the plugin stays a
        candidate (H18);
    ``grant``
        an unrequired capability is granted: the plugin stays a candidate although its
        generation moved (the positive twin);
    ``upgrade-eligible``
        the new version is still a candidate (the positive twin of the upgrades).

    × the later candidate's role (all five §5.2 bands: a failure of ``pre-resolve``,
    ``resolve`` and ``post-process`` would abort the chain, of ``enrich`` and ``audit`` would
    be isolated) × how far the barrier is when the chain reaches the candidate (``idle``:
    the candidate's lane was empty, the barrier has published; ``busy``: the candidate was
    running a command of its own that waits for a third plugin, so the barrier is still
    draining and the chain must wait for it) × chains of two or three plugins (the change
    lands one or two candidates before its turn).

    A candidate that the six rules no longer select is **skipped** when its turn comes —
    never entered, never failed, never charged to its breaker, its effects absent, the chain
    ending ``ok`` as it would have without it (``hook.skipped`` ``policy_changed``).  §6: the
    generation it was selected under "仅用于审计，不是未来 execution lease", and the barrier
    ends "之后才能激活新状态".  A candidate that still qualifies runs (``grant``); after an
    upgrade its old version never starts (§6 identity, §18 H25 "升级绝不运行旧代码").
    Whether an upgraded candidate that still qualifies runs its new version in the chain
    that selected the old one, or is skipped, the spec leaves open: that twin is advisory
    (``*.upgrade-eligible.*.new-version``; the reference runs the new version).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.runtime import ROLES, _http_task, _manifest

__all__ = ["ACTIONS", "TIMINGS", "skips"]

#: The chain's first plugin (works while the barrier runs), the optional middle one, the
#: later candidate the barrier changes, and the plugin its own command waits for (``busy``).
FIRST, MIDDLE, LATER, BACKEND = "a.first", "m.middle", "z.later", "c.backend"
#: Every policy action on the later candidate (see the module docstring).
ACTIONS = ("revoke", "disable", "quarantine", "uninstall", "upgrade-drops-hook",
           "upgrade-requires", "upgrade-host", "grant", "upgrade-eligible")
TIMINGS = ("idle", "busy")
#: Virtual ms: the first plugin's work, when the barrier starts, the backend plugin's work.
_FIRST_MS, _BARRIER_AT, _BACKEND_MS = 100, 10, 300
_KEYS = {"beforeCreate": "before-create", "beforeFinalize": "before-finalize"}
#: Per hook: the mutable field (§9.4) the later candidate patches, its start value for the
#: task ``t1`` and the values the old and the new version write.
_FIELDS = {"beforeCreate": ("filename", "t1.bin", "changed.bin", "upgraded.bin"),
           "beforeFinalize": ("filePath", "/downloads/t1.bin", "/downloads/changed.bin",
                              "/downloads/upgraded.bin")}
_OTHER_HOOK = {"beforeCreate": "beforeFinalize", "beforeFinalize": "beforeCreate"}
#: What each action does to the later candidate, with the §6 rule that decides.
_WHAT = {
    "revoke": ("its required capability storage is revoked", "rule 6: '必需 capability 仍在插件有效"
               "权限集合内' (its required capabilities are still in its effective permission set)"),
    "disable": ("it is disabled", "rule 1: '已安装、兼容、启用且未隔离'"),
    "quarantine": ("it is quarantined", "rule 1: '已安装、兼容、启用且未隔离'"),
    "uninstall": ("it is uninstalled", "rule 1: '已安装、兼容、启用且未隔离'"),
    "upgrade-drops-hook": ("it is upgraded to a version that no longer declares the hook",
                           "rule 2: 'contributes.hooks 声明了目标 Hook'"),
    "upgrade-requires": ("it is upgraded to a version requiring http, which it is not granted",
                         "rule 6: '必需 capability 仍在插件有效权限集合内'"),
    "upgrade-host": ("it is upgraded to a version whose hostPermissions do not match the source",
                     "rule 5: only an HTTP beforeCreate resolver is selected by hostPermissions; "
                     "beforeFinalize 'only by hook declaration, task-type activation, role and "
                     "capability grant' (H18)"),
    "grant": ("it is granted http, which it does not require",
              "all six rules still hold; the generation it was selected under is audit data, "
              "not an execution lease"),
    "upgrade-eligible": ("it is upgraded to a version that is still a candidate",
                         "all six rules still hold for the new version"),
}
_PARAMS = {"type": "object", "additionalProperties": False,
           "properties": {"hooks": {"type": "array", "minItems": 1, "uniqueItems": True,
                                    "items": {"enum": sorted(_FIELDS)}},
                          "actions": {"type": "array", "minItems": 1, "uniqueItems": True,
                                      "items": {"enum": list(ACTIONS)}},
                          "roles": {"type": "array", "minItems": 1, "uniqueItems": True,
                                    "items": {"enum": list(ROLES)}},
                          "timings": {"type": "array", "minItems": 1, "uniqueItems": True,
                                      "items": {"enum": list(TIMINGS)}},
                          "lengths": {"type": "array", "minItems": 1, "uniqueItems": True,
                                      "items": {"enum": [2, 3]}}}}


def skips(hook: str, action: str) -> bool:
    """Whether §6 no longer selects the later candidate after ``action`` (it is skipped)."""
    if action == "upgrade-host":
        return hook == "beforeCreate"
    return action not in ("grant", "upgrade-eligible")


@template("runtime.later-candidates", params=_PARAMS)
def later_candidates(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every policy action × role × barrier timing × chain length, per pre-hook (§6, §5.2)."""
    for hook in params.get("hooks", sorted(_FIELDS)):
        for action in params.get("actions", list(ACTIONS)):
            for role in params.get("roles", list(ROLES)):
                for timing in params.get("timings", list(TIMINGS)):
                    for n in params.get("lengths", [2, 3]):
                        yield _case(hook, action, role, timing, n)
                        if action == "upgrade-eligible" or (action == "upgrade-host"
                                                            and not skips(hook, action)):
                            yield _new_version(hook, action, role, timing, n)


def _later_guest(hook: str, role: str, value: str) -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = [{"observe": LATER}]
    if role != "audit":  # §5.2: audit plugins cannot produce mutating effects
        actions += [{"patch": {_FIELDS[hook][0]: value}}, {"meta": {"set": LATER, "value": 9}}]
    return actions


def _upgrade(hook: str, action: str, role: str) -> dict[str, Any]:
    """The ``policy`` step's new manifest and guest for an upgrade action."""
    hooks = {_OTHER_HOOK[hook] if action == "upgrade-drops-hook" else hook: role}
    manifest = _manifest(LATER, hooks,
                         permissions=["http", "storage"] if action == "upgrade-requires" else ["storage"],
                         host=["https://other.example/*"] if action == "upgrade-host" else None)
    manifest["version"] = "1.1.0"
    guest = {"hooks": {h: _later_guest(hook, role, _FIELDS[hook][3]) for h in hooks}}
    return {"manifest": manifest, "guest": guest}


def _plugins(hook: str, role: str, timing: str, n: int) -> list[dict[str, Any]]:
    first = {"hooks": {hook: [{"observe": FIRST}, {"work": _FIRST_MS},
                              {"meta": {"set": FIRST, "value": 0}}]}}
    later: dict[str, Any] = {"hooks": {hook: _later_guest(hook, role, _FIELDS[hook][2])}}
    plugins = [{"manifest": _manifest(FIRST, {hook: "pre-resolve"}), "guest": first}]
    if n == 3:
        middle = {"hooks": {hook: [{"observe": MIDDLE}, {"meta": {"set": MIDDLE, "value": 1}}]}}
        plugins.append({"manifest": _manifest(MIDDLE, {hook: "pre-resolve"}), "guest": middle})
    if timing == "busy":  # its own command waits for the backend plugin, so the drain takes a while
        later["commands"] = {"busy": [{"call": BACKEND, "command": "slow"}]}
        plugins.append({"manifest": _manifest(BACKEND, {}),
                        "guest": {"commands": {"slow": [{"work": _BACKEND_MS}]}}})
    plugins.append({"manifest": _manifest(LATER, {hook: role}, permissions=["storage"]),
                    "guest": later, "grants": ["storage"]})
    return plugins


def _steps(hook: str, action: str, role: str, timing: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    if timing == "busy":
        steps.append({"op": "command", "pluginId": LATER, "command": "busy", "as": "busy"})
    steps += [{"op": "before_create" if hook == "beforeCreate" else "before_finalize",
               "taskId": "t1", "as": "chain"},
              {"op": "advance", "ms": _BARRIER_AT}]
    policy: dict[str, Any] = {"op": "policy", "pluginId": LATER, "as": "barrier",
                              "action": "upgrade" if action.startswith("upgrade") else action}
    if action in ("revoke", "grant"):
        policy["capability"] = "storage" if action == "revoke" else "http"
    if action.startswith("upgrade"):
        policy.update(_upgrade(hook, action, role))
    steps.append(policy)
    return steps


def _before(hook: str, n: int) -> tuple[list[str], dict[str, Any]]:
    """The plugins before the later one, and the working context they leave."""
    earlier = [FIRST, MIDDLE][: n - 1]
    field, start = _FIELDS[hook][:2]
    return earlier, {field: start, "metadata": {pid: i for i, pid in enumerate(earlier)}}


def _common_events(hook: str) -> list[dict[str, Any]]:
    """The later candidate is never failed, and the old version never runs after the barrier
    published (every expectation of this template)."""
    return [{"kind": "hook.finish", "pluginId": LATER, "hook": hook, "result": "failed", "count": 0},
            {"kind": "breaker.open", "pluginId": LATER, "count": 0}]


def _expect(hook: str, action: str, role: str, n: int) -> dict[str, Any]:
    earlier, working = _before(hook, n)
    breaker = {LATER: {"breaker": {"failures": 0, "open": False}}}
    events = _common_events(hook)
    if skips(hook, action):
        events += [{"kind": "hook.skipped", "pluginId": LATER, "hook": hook,
                    "reason": "policy_changed", "count": 1},
                   {"kind": "hook.start", "pluginId": LATER, "hook": hook, "count": 0}]
        chain = {"status": "ok", "accepted": earlier, "failed": [], "skipped": [LATER],
                 "context": {"$partial": working}, "abortedBy": {"$absent": True}}
        return {"results": {"chain": chain}, "events": events, "plugins": breaker}
    if action == "grant":
        field = _FIELDS[hook][0]
        after = working if role == "audit" else {
            **working, field: _FIELDS[hook][2], "metadata": {**working["metadata"], LATER: 9}}
        events += [{"kind": "hook.start", "pluginId": LATER, "hook": hook, "version": "1.0.0",
                    "count": 1}]
        chain = {"status": "ok", "accepted": [*earlier, LATER], "failed": [], "skipped": [],
                 "context": {"$partial": after}, "abortedBy": {"$absent": True}}
        probes = [{"pluginId": LATER, "label": LATER, "seen": {"$partial": working}}]
        return {"results": {"chain": chain}, "events": events, "plugins": breaker, "probes": probes}
    # an upgrade that still qualifies: the old version never starts, nothing fails
    events.append({"kind": "hook.start", "pluginId": LATER, "hook": hook, "version": "1.0.0",
                   "count": 0})
    chain = {"status": "ok", "failed": [], "abortedBy": {"$absent": True}}
    return {"results": {"chain": chain}, "events": events, "plugins": breaker}


_TIMING = {"idle": "idle (the barrier publishes before its turn)",
           "busy": "busy in a command (its turn comes while the barrier drains)"}


def _case(hook: str, action: str, role: str, timing: str, n: int) -> Instance:
    what, rule = _WHAT[action]
    skipped = skips(hook, action)
    outcome = ("skipped, never entered nor failed, its effects absent, the chain ok"
               if skipped else "it runs, its effects merged" if action == "grant"
               else "its old version never starts, nothing fails")
    return Instance(
        key=f"{_KEYS[hook]}.{action}.{role}.{timing}.n{n}",
        title=f"{hook} chain of {n}, its later {role} candidate {_TIMING[timing]} — {what} "
              f"while the first plugin runs: {outcome}",
        kind="runtime.scenario", polarity="negative" if skipped else "positive",
        given={"config": {"breakerThreshold": 1}, "plugins": _plugins(hook, role, timing, n),
               "tasks": [_http_task()], "steps": _steps(hook, action, role, timing)},
        expect=_expect(hook, action, role, n),
        spec="§6",
        notes=f"§6 {rule}. §6: discovery reads the current PluginRegistry; a candidate's "
              "createdGeneration '仅用于审计，不是未来 execution lease'; a policy change enters "
              "the exclusive barrier and '之后才能激活新状态'. §5.2: each candidate is activated, "
              "entered and invoked in turn — one the rules no longer select when its turn comes "
              "is skipped, so its role's failure policy (abort or isolate) never applies and its "
              "breaker is not charged (breakerThreshold 1: one charged failure would open it).")


def _new_version(hook: str, action: str, role: str, timing: str, n: int) -> Instance:
    """Advisory: the reference runs the upgraded version that still qualifies."""
    case = _case(hook, action, role, timing, n)
    earlier, working = _before(hook, n)
    field = _FIELDS[hook][0]
    after = working if role == "audit" else {
        **working, field: _FIELDS[hook][3], "metadata": {**working["metadata"], LATER: 9}}
    chain = {"status": "ok", "accepted": [*earlier, LATER], "failed": [], "skipped": [],
             "context": {"$partial": after}}
    events = [{"kind": "hook.start", "pluginId": LATER, "hook": hook, "version": "1.1.0", "count": 1}]
    return Instance(
        key=f"{case.key}.new-version", kind=case.kind, polarity="positive",
        title=f"{hook} chain of {n}: the later {role} candidate is upgraded while an earlier "
              "plugin runs and still qualifies: the chain runs its new version",
        given=case.given, expect={"results": {"chain": chain}, "events": events}, spec="§6",
        advisory="§6 gives the candidate identity as (pluginId, version, digest) and lets the "
                 "new state activate after the barrier; whether a chain that selected the old "
                 "version runs the new one in its place or skips it, it does not say. The "
                 "reference runs the new version.",
        notes=case.notes)
