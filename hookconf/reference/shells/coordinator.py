"""The one startup coordinator (§16) and the shell it starts.

:func:`start` runs §16's steps in order and records each as a ``shell.step`` event (§15:
``{"seq", "atMs", "kind": "shell.step", "step", ...}``) — the trace the order tests assert::

    1  database.open, database.migrate
    2  plugins.discover, capability_host.create, plugin_host.create
    3  runtime.create                      (exactly one, from the assembly's factory)
    4  occurrence_consumer.register
    5  finalize.recover                    (the recovery port)
    6  state.restore                       (tasks back in the runtime; no producer open)
    7  inject.create, inject.finalize, inject.media, inject.recovery, inject.error,
       inject.command                      (the same runtime into every path)
    8  deliveries.drain, occurrences.drain, then producer.polling, producer.engine_completion
    9  (Shell.stop) admission.stop, work.drain, leases.persist, workers.stop

``runtime.create`` and each ``inject.*`` step carry ``runtime``, the instance identity
(:func:`runtime_identity`); every path reports the identity of the runtime it used.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.reference.events import EventLog
from hookconf.reference.guest.scripted import ScriptedGuest
from hookconf.reference.runtime import activation as act
from hookconf.reference.runtime.discovery import Task
from hookconf.reference.runtime.hook_runtime import HookRuntime
from hookconf.reference.runtime.lanes import CallChain
from hookconf.reference.runtime.registry import Manifest
from hookconf.reference.runtime.scheduler import ManualClock
from hookconf.reference.shells.assembly import PATHS, PRODUCERS, Assembly, AssemblyIncomplete
from hookconf.reference.shells.database import Database

__all__ = ["STARTUP", "Shell", "ShellStopped", "runtime_identity", "start"]

_MAX_STEPS = 20_000
#: Which hook each path asks the runtime about (create and finalize run the chain).
_PATH_HOOKS = {"create": "beforeCreate", "finalize": "beforeFinalize", "media": "afterComplete",
               "recovery": "beforeFinalize", "error": "onError"}


def runtime_identity(runtime: HookRuntime) -> str:
    """An opaque identity of one runtime instance, stable for the instance's life."""
    return f"runtime@{id(runtime):x}"


class ShellStopped(Exception):
    """A path called after §16 step 9 stopped admission."""

    def __init__(self, shell: str) -> None:
        self.code = "shell.stopped"
        self.message = f"the {shell} shell has stopped admission"
        super().__init__(self.message)


class RuntimePath:
    """One injected path (§16 step 7): create, finalize, media, recovery, error or command.

    It holds the runtime it was given and never builds one.
    """

    def __init__(self, name: str, runtime: HookRuntime, database: Database) -> None:
        self.name = name
        self.runtime = runtime
        self.database = database

    def run(self, args: dict[str, Any]) -> dict[str, Any]:
        """Run the path; returns ``{"result"}`` (a chain's status, candidates or command code).

        With ``wait: false`` a ``create``, ``finalize`` or ``command`` path's work is accepted
        and left to the scheduler (``{"result": "accepted"}``): §16 step 9's drain runs it;
        ``runMs`` (ms) first lets the runtime run that long on its clock, so the work has
        started (an activation, a capability lease open) when the path answers."""
        rt = self.runtime
        wait = args.get("wait", True) is not False
        if self.name == "command":
            body = rt.enter(args["pluginId"], "command", args["command"], {},
                            chain=CallChain(rt.new_id("chain")), parent=None)
            proc = rt.scheduler.spawn(f"command:{args['pluginId']}", body)
            if not wait:
                return self._started(args)
            rt.scheduler.run(max_steps=_MAX_STEPS)
            outcome = proc.result
            return {"result": getattr(outcome, "code", None) or "ok"}
        task = rt.tasks.get(args["taskId"])
        if task is None:
            body = {"taskId": args["taskId"], "type": args.get("type", "http"),
                    "sourceUrl": args.get("sourceUrl", f"https://example.test/{args['taskId']}.bin"),
                    "filename": f"{args['taskId']}.bin"}
            task = Task.from_json(body)
            rt.add_task(task)
            self.database.save_task(body)
        hook = _PATH_HOOKS[self.name]
        if self.name in ("create", "finalize"):
            context = ({"taskId": task.task_id, "uris": [task.source_url], "filename": task.filename, "metadata": {}}
                       if hook == "beforeCreate" else
                       {"taskId": task.task_id, "filePath": f"downloads/{task.filename}", "metadata": {}})
            proc = rt.scheduler.spawn(f"{hook}:{task.task_id}", iter(()))
            handle = f"p{proc.pid}"
            proc.body = rt.run_chain(handle, hook, task, context)
            if not wait:
                return self._started(args)
            rt.scheduler.run(max_steps=_MAX_STEPS)
            return {"result": rt.results[handle]["status"]}
        return {"result": ",".join(c.plugin_id for c in rt.candidates(hook, task)) or "none"}

    def _started(self, args: dict[str, Any]) -> dict[str, Any]:
        """Accepted work left running, after ``runMs`` ms of the runtime's clock (default 0)."""
        run_ms = float(args.get("runMs", 0))
        if run_ms > 0:
            rt = self.runtime
            rt.scheduler.run(until_ms=rt.clock.now_ms() + run_ms, max_steps=_MAX_STEPS)
        return {"result": "accepted"}


class Shell:
    """A started shell: its assembly, database, the one runtime, the paths and the trace.

    Attributes:
        runtimes_created: how many runtimes the assembly's factory built (1 once started).
        trace: the ``shell.step`` events of start-up and shutdown.
    """

    def __init__(self, assembly: Assembly) -> None:
        self.assembly = assembly
        self.clock = ManualClock()
        self.trace = EventLog(self.clock.now_ms)
        self.database: Database | None = None
        self.runtime: HookRuntime | None = None
        self.paths: dict[str, RuntimePath] = {}
        self.producers: list[str] = []
        self.admitting = False
        self.runtimes_created = 0
        self.discovered: list[tuple[Manifest, ScriptedGuest]] = []

    def create_runtime(self, config: dict[str, Any]) -> HookRuntime:
        """Call the assembly's runtime factory, counting the instances built."""
        assert self.assembly.runtime_factory is not None
        self.runtimes_created += 1
        return self.assembly.runtime_factory(config)

    def step(self, name: str, **fields: Any) -> None:
        self.trace.emit("shell.step", step=name, **fields)

    def run_path(self, path: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run ``path`` through its injected runtime.

        Returns ``{"runtime", "runtimesCreated", "result", "events"}``: the identity of the
        runtime the path used, and the §15 events it emitted.

        Raises:
            ShellStopped: admission was stopped (§16 step 9).
            KeyError: ``path`` is not one of :data:`PATHS`.
        """
        if not self.admitting:
            raise ShellStopped(self.assembly.name)
        handler = self.paths[path]
        seen = len(handler.runtime.events.events)
        result = handler.run(args)
        return {"runtime": runtime_identity(handler.runtime), "runtimesCreated": self.runtimes_created,
                **result, "events": handler.runtime.events.since(seen)}

    def stop(self, budget_ms: float = 5_000.0) -> list[dict[str, Any]]:
        """§16 step 9: stop admission, drain accepted work within ``budget_ms``, persist
        leases, stop workers.  Returns the shutdown's ``shell.step`` events; ``work.drain``
        carries ``elapsedMs``, how long the drain waited on the runtime's clock (ms: until the
        accepted work finished, at most ``budget_ms``); ``leases.persist`` carries ``leases``
        (how many) and ``pluginIds`` (their plugins, sorted): the capability leases still open
        once the drain ended — a lease that completed during the drain is not among them.
        Each step is a method of its own (a mutant's seam)."""
        seen = len(self.trace.events)
        self.stop_admission()
        self.drain(budget_ms)
        self.persist_leases(self.live_leases())
        self.stop_workers(self.running_workers())
        return self.trace.since(seen)

    def stop_admission(self) -> None:
        """No entry is admitted from now on (``admission.stop``)."""
        self.admitting = False
        self.step("admission.stop")

    def drain(self, budget_ms: float) -> None:
        """Run the accepted work on the runtime's clock until it finishes or ``budget_ms``
        (ms) have passed (``work.drain`` with the scheduler's ``status`` and ``elapsedMs``)."""
        rt = self.runtime
        assert rt is not None
        began = rt.clock.now_ms()
        status = rt.scheduler.run(until_ms=began + budget_ms, max_steps=_MAX_STEPS, idle_to_until=False)
        self.step("work.drain", budgetMs=budget_ms, status=status, elapsedMs=rt.clock.now_ms() - began)

    def live_leases(self) -> list[tuple[str, str, int]]:
        """The capability leases open now: ``(leaseId, pluginId, generation)`` each."""
        rt = self.runtime
        assert rt is not None
        return [(lease.lease_id, lease.plugin_id, lease.generation) for lease in rt.leases.values()
                if not (lease.done or lease.aborted)]

    def persist_leases(self, live: list[tuple[str, str, int]]) -> None:
        """Write ``live`` to the database (``leases.persist`` with ``leases`` and ``pluginIds``)."""
        db = self.database
        assert db is not None
        self.step("leases.persist", leases=db.persist_leases(live),
                  pluginIds=sorted(plugin_id for _, plugin_id, _ in live))

    def running_workers(self) -> list[str]:
        """The plugins whose worker is not Inactive (every one of them is stopped)."""
        rt = self.runtime
        assert rt is not None
        return [pid for pid, state in rt.states.items() if state is not act.State.INACTIVE]

    def stop_workers(self, workers: list[str]) -> None:
        """Stop ``workers`` (``workers.stop`` with how many)."""
        rt = self.runtime
        assert rt is not None
        for pid in workers:
            rt.states[pid] = act.State.INACTIVE
        self.step("workers.stop", workers=len(workers))


def _discover(plugins: list[dict[str, Any]]) -> list[tuple[Manifest, ScriptedGuest]]:
    found = []
    for plugin in plugins:
        guest = plugin.get("guest") or {}
        found.append((Manifest.from_json(plugin["manifest"], code=repr(sorted(guest.items()))),
                      ScriptedGuest(guest)))
    return found


def open_database(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 1: open and migrate the database."""
    assert shell.assembly.open_database is not None
    db = shell.database = shell.assembly.open_database()
    shell.step("database.open")
    shell.step("database.migrate", schemaVersion=db.migrate())


def discover_plugins(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 2: discover plugins, create the capability host and the PluginHost."""
    shell.discovered = _discover(plugins)
    shell.step("plugins.discover", plugins=len(shell.discovered))
    shell.step("capability_host.create")
    shell.step("plugin_host.create")


def create_runtime(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 3: create exactly one shared hook runtime, holding the discovered plugins."""
    rt = shell.runtime = shell.create_runtime(config)
    for manifest, guest in shell.discovered:
        rt.install(manifest, guest)
    shell.step("runtime.create", runtime=runtime_identity(rt))


def register_consumer(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 4: register the runtime's occurrence consumer."""
    assert shell.runtime is not None
    shell.step("occurrence_consumer.register", runtime=runtime_identity(shell.runtime))


def recover_finalize(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 5: recover finalize journals (through the assembly's recovery port)."""
    assert shell.assembly.recover_finalize is not None and shell.database is not None
    shell.step("finalize.recover", journals=shell.assembly.recover_finalize(shell.database))


def restore_state(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 6: restore task/session state without opening producers."""
    assert shell.runtime is not None and shell.database is not None
    restored = shell.database.tasks()
    for body in restored:
        shell.runtime.add_task(Task.from_json(body))
    shell.step("state.restore", tasks=len(restored))


def inject_paths(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 7: inject the same runtime into the create, finalize, media, recovery and
    error paths (and the command handler)."""
    assert shell.runtime is not None and shell.database is not None
    for path in PATHS:
        shell.paths[path] = RuntimePath(path, shell.runtime, shell.database)
        shell.step(f"inject.{path}", runtime=runtime_identity(shell.runtime))


def drain_materialised(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 8, first half: drain materialised deliveries and occurrences."""
    db, rt = shell.database, shell.runtime
    assert shell.assembly.drain_deliveries is not None and db is not None and rt is not None
    shell.step("deliveries.drain", deliveries=shell.assembly.drain_deliveries(db, rt))
    occurrences = db.pending_occurrences()
    for occurrence in occurrences:
        db.mark_consumed(occurrence)
    shell.step("occurrences.drain", occurrences=len(occurrences))


def open_producers(shell: Shell, plugins: list[dict[str, Any]], config: dict[str, Any]) -> None:
    """§16 step 8, second half: only then open the polling and engine-completion producers."""
    for producer in PRODUCERS:
        shell.producers.append(producer)
        shell.step(f"producer.{producer}")


Step = Callable[[Shell, list[dict[str, Any]], dict[str, Any]], None]
#: §16 steps 1–8 in order: the coordinator is this table.
STARTUP: tuple[Step, ...] = (open_database, discover_plugins, create_runtime, register_consumer,
                             recover_finalize, restore_state, inject_paths, drain_materialised,
                             open_producers)


def start(assembly: Assembly, plugins: list[dict[str, Any]] | None = None,
          config: dict[str, Any] | None = None, *, steps: tuple[Step, ...] = STARTUP) -> Shell:
    """Start a shell by running ``steps`` (§16 steps 1–8, :data:`STARTUP`) and return it,
    admitting work.

    Args:
        plugins: ``[{"manifest", "guest"}]`` — the plugins discovery finds (scripted guests).
        config: the runtime factory's config.

    Raises:
        AssemblyIncomplete: the assembly lacks the runtime, database, recovery or delivery
            part; nothing was opened.
    """
    missing = assembly.missing()
    if missing:
        raise AssemblyIncomplete(assembly.name, missing)
    shell = Shell(assembly)
    for step in steps:
        step(shell, plugins or [], config or {})
    shell.admitting = True
    return shell
