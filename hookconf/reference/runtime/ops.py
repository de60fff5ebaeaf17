"""The ``runtime`` protocol family of the reference candidate (``docs/protocol.md``).

Each operation is a method (``runtime.before_create`` -> :meth:`RuntimeOps.runtime_before_create`)
so a mutant can override exactly one; :meth:`RuntimeOps.make_runtime` builds the
:class:`~hookconf.reference.runtime.hook_runtime.HookRuntime` and is the seam for mutants of the core.

Operations that start work (``before_create``, ``before_finalize``, ``command``, ``policy``,
``reclaim``) only *spawn* a scheduler process and return its ``handle``; nothing runs until
``advance``, ``settle`` or ``step``.  That is what lets the race explorer pick every
interleaving through ``ready``/``step``.
"""

from __future__ import annotations

from typing import Any

from hookconf.reference.errors import ErrorCode, HookRuntimeError
from hookconf.reference.guest.bundle import bundle_from_source
from hookconf.reference.guest.bundle_adapter import BundleGuest
from hookconf.reference.guest.scripted import ScriptedGuest
from hookconf.reference.runtime.barrier import policy_barrier
from hookconf.reference.runtime.discovery import Task
from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.lanes import CallChain
from hookconf.reference.runtime.leases import MESSAGE_TYPES
from hookconf.reference.runtime.registry import Manifest, PolicyChange

__all__ = ["RuntimeOps"]

_MAX_SETTLE_STEPS = 20_000


class RuntimeOps:
    """Mixin: the ``runtime.*`` operations over one :class:`HookRuntime` per ``reset``."""

    runtime: HookRuntime | None = None

    def runtime_ops(self) -> dict[str, Any]:
        names = ("reset", "install", "task", "candidates", "before_create", "before_finalize",
                 "command", "policy", "reclaim", "worker_message", "dispatch", "advance", "settle",
                 "ready", "step", "events", "state")
        return {f"runtime.{n}": getattr(self, f"runtime_{n}") for n in names}

    def make_runtime(self, config: dict[str, Any]) -> HookRuntime:
        """The runtime under test; a mutant returns a subclass."""
        return HookRuntime(**config)

    @property
    def rt(self) -> HookRuntime:
        if self.runtime is None:
            self.runtime = self.make_runtime({})
        return self.runtime

    def _task(self, task_id: str) -> Task:
        task = self.rt.tasks.get(task_id)
        if task is None:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"no task {task_id!r}")
        return task

    def _spawn(self, name: str, body: Any) -> dict[str, Any]:
        proc = self.rt.scheduler.spawn(name, body)
        handle = f"p{proc.pid}"
        results = self.rt.results

        def done(p: Any) -> None:
            if handle not in results:
                results[handle] = {"status": "ok" if p.error is None else "error",
                                   "value": p.result if isinstance(p.result, (dict, bool)) else None,
                                   "error": None if p.error is None else repr(p.error)}
        proc.on_done.append(done)
        return {"handle": handle}

    # ---------------------------------------------------------------- setup

    def runtime_reset(self, args: dict[str, Any]) -> dict[str, Any]:
        config = args.get("config", {})
        keys = {"breakerThreshold": "breaker_threshold", "breakerOpenMs": "breaker_open_ms",
                "hookTimeoutMs": "hook_timeout_ms", "drainBudgetMs": "drain_budget_ms"}
        self.runtime = self.make_runtime({keys[k]: v for k, v in config.items() if k in keys})
        return {"nowMs": self.rt.clock.now_ms()}

    def runtime_install(self, args: dict[str, Any]) -> dict[str, Any]:
        """Install from ``manifest`` + scripted ``guest``, or a real ``bundle``
        (``{manifest, source}``: ``motrix-plugin.json`` and the text of its ``main``) whose
        ``http`` hops are answered from ``network`` (canned answers as ``guest.run`` takes
        them; without it the bundle's ``http`` calls are denied)."""
        grants = frozenset(args["grants"]) if "grants" in args else None
        if "bundle" in args:
            manifest, source = args["bundle"]["manifest"], args["bundle"]["source"]
            bundle = bundle_from_source(manifest, source)
            guest = BundleGuest(bundle, network=args.get("network"))
            return self.rt.install(Manifest.from_json(manifest, code=source), guest, grants)
        guest = args.get("guest") or {}
        manifest = Manifest.from_json(args["manifest"], code=repr(sorted(guest.items())))
        return self.rt.install(manifest, ScriptedGuest(guest), grants)

    def runtime_task(self, args: dict[str, Any]) -> dict[str, Any]:
        task = Task.from_json(args)
        self.rt.add_task(task)
        return {"taskId": task.task_id}

    def runtime_candidates(self, args: dict[str, Any]) -> dict[str, Any]:
        found = self.rt.candidates(args["hook"], self._task(args["taskId"]))
        return {"candidates": [{"pluginId": c.plugin_id, "role": c.role,
                                "generation": c.generation} for c in found]}

    # ---------------------------------------------------------------- work

    def _chain(self, hook: str, args: dict[str, Any]) -> dict[str, Any]:
        task = self._task(args["taskId"])
        if hook == "beforeCreate":
            context = {"taskId": task.task_id, "uris": [task.source_url],
                       "filename": task.filename, "metadata": {}}
        else:  # filePath is the proposed target (§9.4); the chain may only change it
            context = {"taskId": task.task_id, "filePath": f"/downloads/{task.filename}",
                       "metadata": {}}
        proc = self.rt.scheduler.spawn(f"{hook}:{task.task_id}", iter(()))
        handle = f"p{proc.pid}"
        proc.body = self.rt.run_chain(handle, hook, task, context)
        return {"handle": handle}

    def runtime_before_create(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._chain("beforeCreate", args)

    def runtime_before_finalize(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._chain("beforeFinalize", args)

    def runtime_command(self, args: dict[str, Any]) -> dict[str, Any]:
        rt = self.rt
        pid = args["pluginId"]
        body = rt.enter(pid, "command", args["command"], {},
                        chain=CallChain(rt.new_id("chain")), parent=None)
        return self._spawn(f"command:{pid}", _outcome_dict(body))

    def runtime_policy(self, args: dict[str, Any]) -> dict[str, Any]:
        pid = args["pluginId"]
        if self.rt.registry.records.get(pid) is None:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"no plugin {pid!r}")
        manifest = guest = None
        if "manifest" in args:
            guest = args.get("guest") or {}
            manifest = Manifest.from_json(args["manifest"], code=repr(sorted(guest.items())))
            guest = ScriptedGuest(guest)
        change = PolicyChange(args["action"], args.get("capability"), manifest, guest)
        return self._spawn(f"policy:{pid}", policy_barrier(self.rt, pid, change))

    def runtime_reclaim(self, args: dict[str, Any]) -> dict[str, Any]:
        pid = args["pluginId"]
        return self._spawn(f"reclaim:{pid}", self.rt.reclaim(pid))

    def runtime_worker_message(self, args: dict[str, Any]) -> dict[str, Any]:
        """§8: the plugin's worker posts ``message`` on its port (see
        :meth:`~hookconf.reference.runtime.leases.CapabilityMixin.worker_message`); spawned
        like any work, its ``{accepted, code}`` lands in ``results[handle].value``."""
        pid = args["pluginId"]
        message = args["message"]
        if self.rt.registry.records.get(pid) is None:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"no plugin {pid!r}")
        if not isinstance(message, dict) or message.get("type") not in MESSAGE_TYPES:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, "message.type must be one of "
                                   + ", ".join(MESSAGE_TYPES))
        return self._spawn(f"message:{pid}", self.rt.worker_message(pid, message))

    def runtime_dispatch(self, args: dict[str, Any]) -> dict[str, Any]:
        """§15: hand the task to the engine adapter with what its last finished
        ``beforeCreate`` chain left (the source URL when none ran); an aborted chain
        dispatches nothing.  ``{dispatched, request?: {taskId, uris}, code?}``."""
        task = self._task(args["taskId"])
        chains = [r for r in self.rt.results.values() if r.get("hook") == "beforeCreate"
                  and r.get("taskId") == task.task_id and r.get("status") != "pending"]
        if chains and chains[-1]["status"] != "ok":
            return {"dispatched": False, "code": chains[-1].get("code")}
        uris = chains[-1]["context"].get("uris") if chains else [task.source_url]
        return {"dispatched": True, "request": self.rt.dispatch(task, list(uris or []))}

    # ---------------------------------------------------------------- driving

    def _status(self) -> dict[str, Any]:
        sched = self.rt.scheduler
        return {"nowMs": sched.clock.now_ms(), "idle": sched.idle,
                "ready": [p.label() for p in sched.ready()], "deadlock": sched.deadlock()}

    def runtime_advance(self, args: dict[str, Any]) -> dict[str, Any]:
        sched = self.rt.scheduler
        status = sched.run(until_ms=sched.clock.now_ms() + float(args["ms"]),
                           max_steps=_MAX_SETTLE_STEPS)
        return {**self._status(), "status": status}

    def runtime_settle(self, args: dict[str, Any]) -> dict[str, Any]:
        status = self.rt.scheduler.run(max_steps=int(args.get("maxSteps", _MAX_SETTLE_STEPS)))
        return {**self._status(), "status": status}

    def runtime_ready(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._status()

    def runtime_step(self, args: dict[str, Any]) -> dict[str, Any]:
        sched = self.rt.scheduler
        seen = len(self.rt.events.events)
        pick = int(args.get("pick", 0))
        ready = sched.ready()
        if ready and not 0 <= pick < len(ready):
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"pick {pick} outside 0..{len(ready) - 1}")
        ran = sched.step(pick)
        return {**self._status(), "ran": ran, "events": self.rt.events.since(seen)}

    def runtime_events(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"events": self.rt.events.since(int(args.get("since", 0)))}

    def runtime_state(self, args: dict[str, Any]) -> dict[str, Any]:
        return self.rt.snapshot()


def _outcome_dict(body: Any) -> Any:
    outcome = yield from body
    return {"code": outcome.code, "invocationId": outcome.invocation_id}
