"""Every protocol family through the Node adapter kit, end to end as a user runs it from a clone:
``tests/adapters/candidates/proxy.js`` maps each operation onto a child ``python -m
hookconf.harness serve SPEC``, so ``hookconf run --candidate "cmd:node adapters/node/adapter.js
--runtime …/proxy.js"`` must judge it as it judges SPEC. With SPEC the reference, a small glob
of each family passes (and the operations it needs reached the module's functions); with SPEC
a registered mutant, the invariant that mutant breaks is reported failing. The finalize and
delivery crash cases go through the FUSE mount (each crash point kills the adapter's process
group, the child with it) and are skipped where there is no FUSE.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hookconf.harness.protocol.messages import OPS
from tests.conftest import status
from tests.mounting import CORPUS, needs_fuse

pytestmark = pytest.mark.skipif(shutil.which("node") is None,
                                reason="node is not installed: the Node adapter kit needs Node 18+")

ROOT = Path(__file__).resolve().parents[2]
PROXY = "cmd:node adapters/node/adapter.js --runtime tests/adapters/candidates/proxy.js"
ALL_FAMILIES = ["permissions", "dto", "runtime", "guest", "shell", "delivery", "builtins"]
MOUNT = ("--no-embedded", "--corpus", CORPUS)


@pytest.fixture
def through_kit(hookconf, monkeypatch, tmp_path):
    """``run(spec, *args)``: ``hookconf run --allow-not-covered --candidate PROXY *args`` with
    the proxy serving ``spec``; returns ``(exit code, report, operations the module was asked)``."""
    log = tmp_path / "ops.log"
    monkeypatch.setenv("HOOKCONF_PROXY_PYTHON", sys.executable)
    monkeypatch.setenv("HOOKCONF_PROXY_LOG", str(log))

    def run(spec: str, *args: str) -> tuple[int, dict, set[str]]:
        monkeypatch.setenv("HOOKCONF_PROXY_SERVE", spec)
        log.unlink(missing_ok=True)
        code, report = hookconf("run", "--allow-not-covered", "--candidate", PROXY, *args)
        return code, report, set(log.read_text(encoding="utf-8").split()) if log.exists() else set()

    return run


def test_every_operation_of_the_protocol_reaches_the_module():
    """Each operation, sent with empty args, is called on the proxy and answered by the child
    (mostly refusing the empty args): the kit answers none of them ``protocol.unknown_op``."""
    lines = [b'{"id":0,"op":"hello","protocol":1}'] + [
        json.dumps({"id": n, "op": op, "args": {}}).encode() for n, op in enumerate(OPS, start=1)]
    done = subprocess.run(["node", "adapters/node/adapter.js", "--runtime", "tests/adapters/candidates/proxy.js"],
                          cwd=ROOT, input=b"\n".join(lines) + b"\n", capture_output=True, timeout=60,
                          env={**os.environ, "HOOKCONF_PROXY_PYTHON": sys.executable})
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies[0]["result"]["families"] == ALL_FAMILIES
    assert len(replies) == len(OPS) + 1
    unknown = [op for op, reply in zip(OPS, replies[1:], strict=True)
               if not reply["ok"] and reply["error"]["code"] == "protocol.unknown_op"]
    assert unknown == []


def _cases(*globs: str) -> tuple[str, ...]:
    return tuple(arg for glob in globs for arg in ("--case", glob))


#: family -> (case globs, invariants they must show passing, operations they must reach)
FAMILIES = {
    "permissions": (("perm.host.*", "task-source.host-permissions.*"), ("H5", "H17"),
                    {"permissions.match", "permissions.match_any", "permissions.redirect", "task_source.admit",
                     "runtime.candidates"}),
    "dto": (("dto.shape.*",), ("H4",), {"dto.validate"}),
    "runtime": (("rt.gen.late-messages.log.idle.*",), ("H3",),
                {"runtime.reset", "runtime.install", "runtime.task", "runtime.before_create", "runtime.policy",
                 "runtime.command", "runtime.worker_message", "runtime.settle", "runtime.advance", "runtime.events",
                 "runtime.state"}),
    "guest": (("guest.hook-effects.*",), ("H4",), {"guest.run"}),
    "shell": (("shell.symmetry.*", "shell.incomplete.*"), ("H16",), {"shell.start", "shell.path", "shell.stop"}),
    "delivery": (("dlv.snap.*", "dlv.fence.*", "dlv.gen.dispatch.n2.occ2.drain.*"), ("H14", "H15", "H20"),
                 {"delivery.reset", "delivery.policy", "delivery.terminal", "delivery.claim", "delivery.heartbeat",
                  "delivery.complete", "delivery.fail", "delivery.dispatch", "delivery.advance", "delivery.state"}),
    "builtins": (("builtin.archive.*",), ("H25", "H5", "H7"), {"builtins.run"}),
}


@pytest.mark.parametrize("family", FAMILIES)
def test_each_family_of_the_reference_passes_through_the_kit(through_kit, family):
    globs, invariants, ops = FAMILIES[family]
    code, report, asked = through_kit("reference", *_cases(*globs))
    assert code == 0
    assert report["candidate"]["name"] == "adapter-test-proxy"
    assert report["candidate"]["families"] == ALL_FAMILIES
    judged = [c for c in report["cases"] if not c.get("advisory")]
    assert judged and {c["status"] for c in judged} == {"passed"}, family
    assert all(status(report, i) == "pass" for i in invariants), invariants
    assert ops <= asked, sorted(ops - asked)


@needs_fuse
@pytest.mark.parametrize(("case", "points", "ops"), [
    ("mnt.matrix.file.distinct", "1", {"finalize.prepare", "finalize.run", "finalize.recover", "finalize.state"}),
    ("mnt.dlv.crash.tombstone-rollup", "2", {"delivery.reset", "delivery.terminal", "delivery.restart"}),
])
def test_a_crash_tested_case_passes_through_the_kit_and_the_mount(through_kit, monkeypatch, case, points, ops):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", points)
    code, report, asked = through_kit("reference", *MOUNT, "--case", case)
    assert code == 0
    (result,) = report["cases"]
    assert result["status"] == "passed"
    assert result["metrics"]["crashRoute"] == "mount" and result["metrics"]["crashPoints"] == int(points)
    assert ops <= asked, sorted(ops - asked)


#: (served mutant, case globs, the invariant it breaks), one or more per family.
MUTANTS = [
    ("tests.mutants.permissions.accept_credentials:factory", ("perm.credentials.*",), "H5"),
    ("tests.mutants.schemas.snapshot_keys_unchecked:factory", ("dto.gen.limits.metadatasnapshotv1.*.key-bytes-*",),
     "H4"),
    # a late worker message (runtime.worker_message) of a finished invocation accepted (§8)
    ("tests.mutants.runtime.late_message_idle_lane:factory", ("rt.gen.late-messages.log.idle.*",), "H3"),
    ("tests.mutants.guest.effects_one_hook:factory", ("guest.hook-effects.beforefinalize.*",), "H4"),
    ("tests.mutants.shells.server_event_fields:factory", ("shell.symmetry.*",), "H16"),
    # a tombstone bucket per (plugin, hook), not per plugin: two hooks pass the daily cap (§11)
    ("tests.mutants.delivery.daily_cap_per_hook:factory", ("dlv.gen.bounds.tombstones.daily-buckets-two-hooks",),
     "H24"),
    ("tests.mutants.delivery.stale_token_accepted:factory", ("dlv.fence.*",), "H14"),
    # the runtime's own dispatcher (delivery.dispatch) losing a batch to one raising hook (§11)
    ("tests.mutants.delivery.dispatch_loses_batch:factory", ("dlv.gen.dispatch.n2.*.throw",), "H15"),
    ("tests.mutants.builtins.signature_unchecked:factory", ("builtin.archive.*",), "H25"),
]


@pytest.mark.parametrize(("mutant", "globs", "invariant"), MUTANTS)
def test_a_mutant_behind_the_kit_is_reported_failing_its_invariant(through_kit, mutant, globs, invariant):
    code, report, _ = through_kit(mutant, *_cases(*globs))
    assert code == 1
    assert status(report, invariant) == "fail"
    assert not [c["id"] for c in report["cases"] if c["status"] == "errored"]


@needs_fuse
@pytest.mark.parametrize(("mutant", "case", "points", "invariant"), [
    ("tests.mutants.finalize.plain_rename_install:factory", "mnt.matrix.file.distinct", "1", "H10"),
    # the tombstone rollup split across a crash: rejections lost (§11)
    ("tests.mutants.delivery.rollup_split:factory", "mnt.dlv.crash.tombstone-rollup", "2", "H24"),
])
def test_a_mutant_behind_the_kit_is_caught_through_the_mount(through_kit, monkeypatch, mutant, case, points,
                                                              invariant):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", points)
    code, report, _ = through_kit(mutant, *MOUNT, "--case", case)
    assert code == 1
    assert status(report, invariant) == "fail"
    (result,) = report["cases"]
    assert result["metrics"]["crashRoute"] == "mount"
