"""The §16 shells of the reference: one coordinator, one runtime, required parts, shutdown."""

from __future__ import annotations

import pytest

from hookconf.faultinject.model import ModelVfs
from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.shells import (
    PATHS,
    REQUIRED_PARTS,
    AssemblyIncomplete,
    create_hook_runtime,
    electron,
    runtime_identity,
    server,
    start,
)
from hookconf.reference.shells.assembly import finalize_recovery_port
from hookconf.reference.shells.coordinator import ShellStopped
from hookconf.reference.shells.database import MIGRATIONS, open_database
from hookconf.reference.shells.ops import ShellNotStarted

PLUGIN = {
    "manifest": {"id": "a.cmd", "version": "1.0.0", "engines": {"motrix": ">=2.0.0"},
                 "activationEvents": ["onTaskType:http"], "hostPermissions": ["*://*/*"], "permissions": [],
                 "contributes": {"hooks": {"beforeCreate": {"role": "enrich"}}}},
    "guest": {"hooks": {"beforeCreate": [{"work": 1}]}, "commands": {"ping": [{"work": 1}]}},
}


def _steps(events):
    return [e["step"] for e in events]


def test_both_assemblies_differ_only_in_notification_and_path_policy():
    a, b = electron(), server()
    assert a.notification != b.notification and a.path_policy != b.path_policy
    assert a.runtime_factory is b.runtime_factory is create_hook_runtime
    assert a.open_database is b.open_database
    assert a.drain_deliveries is b.drain_deliveries
    assert a.missing() == b.missing() == []


def test_start_runs_the_steps_in_order_with_one_runtime_in_every_path():
    shell = start(electron(), [PLUGIN])
    steps = _steps(shell.trace.events)
    assert steps.index("finalize.recover") < steps.index("deliveries.drain") < steps.index("producer.polling")
    assert steps.count("runtime.create") == 1 and shell.runtimes_created == 1
    assert {p.runtime for p in shell.paths.values()} == {shell.runtime}
    assert set(shell.paths) == set(PATHS)
    ran = shell.run_path("command", {"pluginId": "a.cmd", "command": "ping"})
    assert ran["runtime"] == runtime_identity(shell.runtime) and ran["result"] == "ok"
    assert shell.run_path("create", {"taskId": "t1"})["result"] == "ok"


@pytest.mark.parametrize("part", REQUIRED_PARTS)
def test_an_assembly_without_a_required_part_refuses_to_start(part):
    with pytest.raises(AssemblyIncomplete) as refused:
        start(server(omit=(part,)))
    assert refused.value.missing == [part] and part in refused.value.message


def test_stop_drains_persists_leases_and_refuses_further_paths():
    shell = start(server(), [PLUGIN])
    shell.run_path("create", {"taskId": "t1"})
    assert _steps(shell.stop()) == ["admission.stop", "work.drain", "leases.persist", "workers.stop"]
    with pytest.raises(ShellStopped):
        shell.run_path("create", {"taskId": "t2"})


def test_restart_restores_tasks_and_recovers_journals_through_the_ports():
    db = open_database()
    assert db.migrate() == len(MIGRATIONS) and db.migrate() == len(MIGRATIONS)  # idempotent
    db.save_task({"taskId": "t7", "type": "http", "sourceUrl": "https://example.test/a", "filename": "a"})
    db.connection.execute("INSERT INTO occurrences VALUES ('o1', 't7', 'completed', 0)")
    db.connection.execute("INSERT INTO deliveries VALUES ('d1', 'o1', 'a.cmd', 'pending')")
    assembly = electron()
    assembly.open_database = lambda: db
    shell = start(assembly)
    by_step = {e["step"]: e for e in shell.trace.events}
    assert by_step["state.restore"]["tasks"] == 1 and "t7" in shell.runtime.tasks
    assert by_step["deliveries.drain"]["deliveries"] == 1
    assert by_step["occurrences.drain"]["occurrences"] == 1 and db.pending_occurrences() == []
    assert db.persist_leases([("l1", "a.cmd", 1)]) == 1
    db.close()


def test_the_recovery_port_runs_finalize_recovery_over_the_vfs():
    vfs = ModelVfs()
    assert finalize_recovery_port(vfs, "var/lib/motrix")(open_database()) == 0


def test_the_protocol_face_answers_start_path_stop_and_refusals():
    candidate = ReferenceCandidate()
    assert "shell" in candidate.hello()["families"]
    started = candidate.handle("shell.start", {"shell": "electron", "plugins": [PLUGIN]})
    assert started["started"] and started["runtimesCreated"] == 1
    path = candidate.handle("shell.path", {"shell": "electron", "path": "media", "taskId": "t1"})
    assert path["runtime"] == started["runtime"]
    assert _steps(candidate.handle("shell.stop", {"shell": "electron"})["trace"])[-1] == "workers.stop"
    refused = candidate.handle("shell.start", {"shell": "server", "omit": ["database", "runtime"]})
    assert refused == {**refused, "started": False, "missing": ["runtime", "database"], "trace": []}
    with pytest.raises(ShellNotStarted):
        candidate.handle("shell.stop", {"shell": "server"})
