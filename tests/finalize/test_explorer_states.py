"""The crash explorer reads each crash point's states from one probed run (§10.3): it
explores the same crash points and the same post-crash states as crashing one run per
point after replaying its prefix, and finds the same problems."""

from __future__ import annotations

import pytest

from hookconf.faultinject import FaultyVfs, ModelVfs
from hookconf.faultinject.sqlite import connect, seed_randomness
from hookconf.harness.corpus import load_corpus
from hookconf.harness.finalize.explorer import run_finalize
from hookconf.harness.protocol import InProcessConnection
from hookconf.harness.runners import Observation
from hookconf.reference.candidate import ReferenceCandidate

#: One case per shape of exploration: a copy route with its SQLite commit, an outside
#: writer, a failing database commit compensated, a tamper before cleanup.
CASES = ("fin.matrix.file.cross-device", "fin.matrix.tree.distinct.appears",
         "fin.db-faults.file.distinct.none.eio-fsync",
         "fin.quiesce.tamper.cross-device.none.source")


@pytest.fixture(scope="module")
def corpus():
    return {c.id: c for c in load_corpus().cases}


def _explore(case, replay: bool) -> dict:
    conn = InProcessConnection(ReferenceCandidate(), "reference")
    conn.open()
    obs = Observation()
    run_finalize(case, conn, obs, replay=replay)
    record = obs.extra["finalize"]
    return {k: record[k] for k in ("crashPoints", "pointsTotal", "crashStates",
                                   "statesGenerated", "outcome", "identity")} | {
        "problems": sorted(record["problems"]),
        "processCrashes": obs.metrics["processCrashes"]}


@pytest.mark.parametrize("case_id", CASES)
def test_one_probed_run_explores_what_one_crashed_run_per_point_does(corpus, case_id):
    probed = _explore(corpus[case_id], replay=False)
    replayed = _explore(corpus[case_id], replay=True)
    assert probed == replayed
    assert probed["crashStates"] > 0 and probed["problems"] == []


def test_the_process_stops_come_from_the_probed_run_and_still_bite(corpus, monkeypatch):
    """The states a process stop before each directory fsync leaves are copies the probed
    run takes (no run of their own), and a recovery that journals a phase before fsyncing
    its directories is still caught there (H19, §10.2)."""
    from hookconf.harness.finalize import explorer
    from tests.mutants.finalize.recovery_records_unsynced import factory

    drives = []
    drive = explorer._Run.drive
    monkeypatch.setattr(explorer._Run, "drive",
                        lambda self, *a, **k: drives.append(1) or drive(self, *a, **k))
    conn = InProcessConnection(factory(), "recovery_records_unsynced")
    conn.open()
    obs = Observation()
    run_finalize(corpus["fin.matrix.file.cross-device"], conn, obs)
    assert len(drives) == 2  # the recorded run and the probed run
    assert obs.metrics["processCrashes"] > 0
    assert "process stop" in obs.extra["finalize"]["problems"]["H19"]["at"]


def test_the_sqlite_prng_restarts_from_its_seed():
    def journal_bytes() -> bytes:
        model = ModelVfs()
        vfs = FaultyVfs(model)
        seed_randomness(7)
        conn = connect(vfs, "db", synchronous="FULL")
        conn.execute("CREATE TABLE t (x)")
        seen = []
        conn.execute("BEGIN")
        conn.execute("INSERT INTO t VALUES (1)")
        fh = None
        try:
            fh = model.open("db-journal", "r")
            seen.append(model.read(fh, 64, 0))
        finally:
            if fh is not None:
                model.close(fh)
        conn.execute("COMMIT")
        conn.close()
        return b"".join(seen)

    assert journal_bytes() == journal_bytes()


class _Wandering(ReferenceCandidate):
    """Does one more file operation in its first finalization than in the later ones."""

    runs = 0

    def finalize_run(self, args):
        type(self).runs += 1
        if type(self).runs == 1:
            for root in (self._finalize_roots or {}).values():
                root.lstat("save")
                root.fsync_dir("save")
        return super().finalize_run(args)


def test_a_candidate_that_does_not_repeat_its_run_is_reported_not_explored_blindly(corpus):
    conn = InProcessConnection(_Wandering(), "wandering")
    conn.open()
    obs = Observation()
    run_finalize(corpus["fin.matrix.file.distinct"], conn, obs)
    problems = obs.extra["finalize"]["problems"]
    assert "not deterministic" in " ".join(problems["H13"]["problems"])


def test_the_harness_s_own_error_while_reading_a_crash_point_is_raised(corpus, monkeypatch):
    from hookconf.harness.finalize import explorer

    def broken(*args):
        raise RuntimeError("harness bug")

    monkeypatch.setattr(explorer, "digest", broken)
    conn = InProcessConnection(ReferenceCandidate(), "reference")
    conn.open()
    with pytest.raises(RuntimeError, match="harness bug"):
        run_finalize(corpus["fin.matrix.file.distinct"], conn, Observation())
