"""The mount route of runtime.finalize: a subprocess candidate crash-tested through a FUSE mount
over the durability model must get the in-process route's verdicts, and finalize mutants
served as subprocesses must be caught (§10.3, the differential proof)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from hookconf.harness.finalize.mounted import _points_cap, mount_route
from hookconf.harness.report import REPORT_SCHEMA
from tests.conftest import status
from tests.mounting import CORPUS, needs_fuse, run_mount_corpus, served, verdicts

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ("mnt.matrix.file.distinct", "mnt.staging.file.distinct.two")


@needs_fuse
def test_the_reference_over_stdio_through_the_mount_gets_the_in_process_verdicts(hookconf,
                                                                                  monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "2")
    in_process = run_mount_corpus(hookconf, "reference", *SAMPLE)
    mounted = run_mount_corpus(hookconf, served("reference"), *SAMPLE)
    assert verdicts(mounted) == verdicts(in_process)
    assert {c["status"] for c in mounted["cases"]} == {"passed"}
    matrix = next(c for c in mounted["cases"] if c["id"] == "mnt.matrix.file.distinct")
    assert matrix["metrics"]["crashPoints"] == 2 and matrix["metrics"]["crashStates"] >= 2
    assert matrix["metrics"]["crashRoute"] == "mount"
    assert matrix["metrics"]["pointsTotal"] > 2  # sampled: the cap took 2 of them
    jsonschema.Draft202012Validator(json.loads(REPORT_SCHEMA.read_text())).validate(mounted)


@needs_fuse
def test_the_terminal_and_html_reports_count_the_mount_route(tmp_path, monkeypatch, capsys):
    from hookconf.harness.cli import main

    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "1")
    monkeypatch.chdir(ROOT)
    page = tmp_path / "r.html"
    main(["run", "--no-embedded", "--corpus", CORPUS, "--case", "mnt.matrix.file.distinct",
          "--allow-not-covered", "--candidate", served("reference"), "--html", str(page)])
    assert "through a FUSE mount: 1 scenario, 1 of" in capsys.readouterr().out
    assert "1 scenario through a FUSE mount (1 of" in page.read_text()


@needs_fuse
@pytest.mark.parametrize(("mutant", "case", "invariant"), [
    ("plain_rename_install", "mnt.matrix.file.distinct", "H10"),
    ("two_mappings_accepted", "mnt.staging.file.distinct.two", "H9"),
    ("orchestrator_promotes", "mnt.staging.file.distinct.one", "H9"),
    ("identity_before_quiesce", "mnt.quiesce.file.distinct.engine", "H8"),
    ("lease_released_early", "mnt.matrix.file.distinct", "H8"),
    ("recovery_without_lease", "mnt.matrix.file.distinct", "H8"),
    ("staging_string_prefix", "mnt.contain.staged.sibling-digit", "H9"),
])
def test_a_finalize_mutant_served_as_a_subprocess_is_caught_through_the_mount(
        hookconf, monkeypatch, mutant, case, invariant):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "1")
    report = run_mount_corpus(hookconf, served(f"tests.mutants.finalize.{mutant}:factory"), case)
    assert status(report, invariant) == "fail"


@needs_fuse
def test_a_recovery_going_on_under_a_lease_held_elsewhere_is_caught_through_the_mount(
        hookconf, monkeypatch):
    """The crash state served with the task's lease held in the host directory: a recovery
    that goes on after ``mkdir lease/<task>`` failed changes the files (H8, §10.1)."""
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "2")  # a point whose journal is open
    report = run_mount_corpus(
        hookconf, served("tests.mutants.finalize.recovery_ignores_busy_lease:factory"),
        "mnt.matrix.file.distinct")
    assert status(report, "H8") == "fail"


@needs_fuse
@pytest.mark.slow
def test_every_copied_case_at_every_crash_point_gets_the_in_process_verdicts(hookconf,
                                                                             monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "all")
    in_process = run_mount_corpus(hookconf, "reference", "mnt.*")
    mounted = run_mount_corpus(hookconf, served("reference"), "mnt.*")
    assert verdicts(mounted) == verdicts(in_process)


@needs_fuse
@pytest.mark.slow
def test_every_embedded_finalize_case_through_the_mount_gets_the_in_process_verdicts(hookconf):
    """The whole finalize corpus, at the mount's default crash-point cap: every case runs
    (engines and host writers too, through the mount's host directory) and agrees."""
    _, in_process = hookconf("run", "--allow-not-covered", "--case", "fin.*")
    _, mounted = hookconf("run", "--allow-not-covered", "--case", "fin.*",
                          "--candidate", served("reference"))
    assert verdicts(mounted) == verdicts(in_process)
    assert not [c["id"] for c in mounted["cases"] if c["status"] == "skipped"]


@needs_fuse
@pytest.mark.slow
def test_a_mutant_only_a_crash_point_shows_is_caught_through_the_mount(hookconf, monkeypatch):
    """Terminal state and phase in two transactions (H12) show only in a crash between them."""
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "all")
    report = run_mount_corpus(hookconf, served("tests.mutants.finalize.terminal_apart_from_phase:factory"),
                  "mnt.matrix.file.distinct")
    assert status(report, "H12") == "fail"


def test_the_route_can_be_turned_off_and_says_so(monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT", "off")
    assert mount_route() == (False, "the mount route is turned off (--no-mount or HOOKCONF_MOUNT=off)")


@pytest.mark.parametrize(("env", "max_points", "cap"), [
    ("", 400, 6), ("all", 400, 400), ("3", 400, 3), ("50", 10, 10), ("junk", 400, 6)])
def test_the_crash_point_cap(monkeypatch, env, max_points, cap):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", env)
    assert _points_cap({"maxPoints": max_points}) == cap


@needs_fuse
def test_outsiders_and_other_devices_through_the_mount_get_the_in_process_verdicts(
        hookconf, monkeypatch):
    """An unrelated target appearing just before the install, where hard links are refused
    too (NFS-like, §10.1), a tamper before the cleanup deletion (§10.3), and a cross-device
    install (§10.2's private copy) onto a device root that is a mount of its own."""
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "1")
    cases = ("mnt.matrix.file.distinct.appears.link", "mnt.quiesce.tamper.distinct.staged.source",
             "mnt.matrix.file.cross-device.staged")
    in_process = run_mount_corpus(hookconf, "reference", *cases)
    mounted = run_mount_corpus(hookconf, served("reference"), *cases)
    assert verdicts(mounted) == verdicts(in_process)
    assert {c["status"] for c in mounted["cases"]} == {"passed"}


@needs_fuse
def test_identity_pairs_and_lowered_limits_work_through_the_mount(hookconf, monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "1")
    cases = ("mnt.identity.pair.file-name", "mnt.limits.flat.distinct.over")
    in_process = run_mount_corpus(hookconf, "reference", *cases)
    mounted = run_mount_corpus(hookconf, served("reference"), *cases)
    assert verdicts(mounted) == verdicts(in_process)
    assert {c["status"] for c in mounted["cases"]} == {"passed"}


class _Obs:
    def __init__(self):
        self.extra, self.metrics = {}, {}


def _case(**given):
    from hookconf.harness.corpus import Case

    base = {"tree": [{"path": "save/a.part", "file": "x"}],
            "task": {"taskId": "t1", "saveDir": "save", "sourcePath": "save/a.part",
                     "targetPath": "save/a.mkv"}}
    return Case(id="mnt.unit", title="t", invariants=("H10",), spec="§10.2",
                kind="runtime.finalize", polarity="positive", given={**base, **given},
                expect={"outcome": "completed"}, source={"from": "spec"}, file="t.json",
                pointer="/0")


class _Subprocess:
    argv = ["candidate"]
    pid = None


def test_the_mount_route_states_why_it_does_not_run(monkeypatch):
    from hookconf.harness.finalize import mounted
    from hookconf.harness.protocol import CaseSkipped

    with pytest.raises(CaseSkipped, match="in process, or a subprocess under a mount"):
        mounted.run_finalize_mounted(_case(), object(), _Obs())
    monkeypatch.setattr(mounted, "mount_route", lambda: (True, ""))
    bad = _case(tree=[{"path": "save/a.part", "file": "x"}, {"path": "save/a.part", "file": "y"}])
    with pytest.raises(CaseSkipped, match="cannot be built"):
        mounted.run_finalize_mounted(bad, _Subprocess(), _Obs())
    from hookconf.faultinject import mount

    def refuse(**kwargs):
        raise mount.MountError("no mount for you")

    monkeypatch.setattr(mount, "ModelMount", refuse)
    with pytest.raises(CaseSkipped, match="could not be mounted: no mount for you"):
        mounted.run_finalize_mounted(_case(), _Subprocess(), _Obs())


@pytest.mark.parametrize(("value", "parsed"), [("all", "all"), ("ALL", "all"), ("3", "3"), ("007", "7")])
def test_mount_points_option_values(value, parsed):
    from hookconf.harness.cli import _mount_points

    assert _mount_points(value) == parsed


@pytest.mark.parametrize("value", ["0", "-1", "x", "1.5", "99999999", ""])
def test_mount_points_option_refuses_what_is_not_a_count(value, capsys):
    from hookconf.harness.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["run", "--mount-points", value])
    assert exit_.value.code == 2
    assert "expected 'all' or a whole number of crash points" in capsys.readouterr().err


def test_the_mount_options_set_the_environment_for_the_run_only(monkeypatch):
    import argparse

    from hookconf.harness.cli import _mount_settings

    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "9")
    monkeypatch.delenv("HOOKCONF_MOUNT", raising=False)
    with _mount_settings(argparse.Namespace(mount_points="2", no_mount=True)):
        assert _points_cap({"maxPoints": 400}) == 2
        assert mount_route()[0] is False and "--no-mount" in mount_route()[1]
    assert os.environ["HOOKCONF_MOUNT_POINTS"] == "9" and "HOOKCONF_MOUNT" not in os.environ
    with _mount_settings(argparse.Namespace(mount_points=None, no_mount=False)):
        assert _points_cap({"maxPoints": 400}) == 9  # the environment stays the default


@pytest.mark.parametrize(("name", "value", "said"), [
    ("HOOKCONF_MOUNT_POINTS", "zero", "HOOKCONF_MOUNT_POINTS: expected 'all' or a whole number"),
    ("HOOKCONF_MOUNT_POINTS", "0", "HOOKCONF_MOUNT_POINTS: expected 'all' or a whole number"),
    ("HOOKCONF_MOUNT", "maybe", "HOOKCONF_MOUNT: expected one of off, 0, no, false, on"),
])
def test_a_bad_mount_setting_in_the_environment_is_a_usage_error(monkeypatch, capsys, name, value, said):
    from hookconf.harness.cli import main

    monkeypatch.setenv(name, value)
    assert main(["run", "-q", "--case", "perm.host.*", "--allow-not-covered"]) == 2
    assert said in capsys.readouterr().err
    # an option given on the command line decides instead of the environment
    option = ["--mount-points", "1"] if name == "HOOKCONF_MOUNT_POINTS" else ["--no-mount"]
    assert main(["run", "-q", "--case", "perm.host.exact.*", "--allow-not-covered", *option]) == 0


def test_ctrl_c_is_a_line_and_exit_130_not_a_traceback(monkeypatch, capsys):
    from hookconf.harness import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_run", interrupted)
    assert cli.main(["run", "-q"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err


@needs_fuse
def test_no_mount_skips_a_subprocess_candidates_crash_cases_saying_why(hookconf, monkeypatch):
    monkeypatch.delenv("HOOKCONF_MOUNT", raising=False)
    _, report = hookconf("run", "--no-embedded", "--corpus", CORPUS, "--allow-not-covered",
                         "--case", "mnt.matrix.file.distinct", "--case", "mnt.dlv.crash.recovery",
                         "--no-mount", "--candidate", served("reference"))
    assert {c["status"] for c in report["cases"]} == {"skipped"}
    assert all("--no-mount" in c["reason"] for c in report["cases"])
    assert "--no-mount" in report["rerun_prefix"]


@needs_fuse
def test_mount_points_caps_a_run_and_is_in_the_rerun_command(hookconf, monkeypatch):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "5")
    _, report = hookconf("run", "--no-embedded", "--corpus", CORPUS, "--allow-not-covered",
                         "--case", "mnt.dlv.crash.recovery", "--mount-points", "1",
                         "--candidate", served("reference"))
    (case,) = report["cases"]
    assert case["status"] == "passed" and case["metrics"]["crashPoints"] == 1
    assert report["rerun_prefix"][-2:] == ["--mount-points", "1"]
    assert os.environ["HOOKCONF_MOUNT_POINTS"] == "5"


@needs_fuse
def test_the_mount_line_is_the_same_unsplit_with_workers_and_from_merged_shards(tmp_path, monkeypatch,
                                                                              capsys):
    """Both mount routes' records keep their route and points through the parts' join
    (-j splits an explorer case into per-worker parts; shards are joined by merge)."""
    from hookconf.harness.cli import main

    monkeypatch.chdir(ROOT)
    base = ["run", "--no-embedded", "--corpus", CORPUS, "--case", "mnt.matrix.file.distinct",
            "--case", "mnt.dlv.crash.recovery", "--mount-points", "1", "--allow-not-covered", "-q",
            "--candidate", served("reference")]
    outputs, reports = {}, {}
    for name, extra in [("one", []), ("j2", ["-j", "2"]), ("s1", ["--shard", "1/2"]),
                        ("s2", ["--shard", "2/2"])]:
        main([*base, *extra, "--json", str(tmp_path / f"{name}.json")])
        outputs[name] = capsys.readouterr().out
    main(["merge", str(tmp_path / "s1.json"), str(tmp_path / "s2.json"), "--out", str(tmp_path / "m.json")])
    outputs["m"] = capsys.readouterr().out
    for name in ("one", "j2", "m"):
        report = json.loads((tmp_path / f"{name}.json").read_text())
        reports[name] = {c["id"]: (c["status"], c["metrics"]) for c in report["cases"]}
    assert reports["one"] == reports["j2"] == reports["m"]
    assert {m["crashRoute"] for _, m in reports["one"].values()} == {"mount"}
    lines = {name: [line for line in out.splitlines() if "through a FUSE mount:" in line]
             for name, out in outputs.items() if name in ("one", "j2", "m")}
    assert lines["one"] == lines["j2"] == lines["m"] and len(lines["one"]) == 1
    assert "2 scenarios, 2 of" in lines["one"][0]


@needs_fuse
def test_engines_and_host_writers_through_the_mounts_host_directory_get_the_in_process_verdicts(
        hookconf, monkeypatch):
    """§10.1 quiesce through the mount: an engine still writing until stopped, one that does
    not stop, a host writer left open (fail closed), the lease order checked (H8)."""
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "1")
    cases = ("mnt.quiesce.file.distinct.engine", "mnt.quiesce.file.distinct.stop-fails",
             "mnt.quiesce.tree.same.writer-open")
    in_process = run_mount_corpus(hookconf, "reference", *cases)
    mounted = run_mount_corpus(hookconf, served("reference"), *cases)
    assert verdicts(mounted) == verdicts(in_process)
    assert {c["status"] for c in mounted["cases"]} == {"passed"}
    assert status(mounted, "H8") == "pass"


@needs_fuse
@pytest.mark.parametrize(("mutant", "case", "invariant"), [
    ("identical_replacement_dropped", "fin.matrix.file.distinct.identical", "H11"),
    ("private_discard_unchecked", "fin.quiesce.interlope.file.cross-device.larger", "H8"),
    ("recovery_judges_source", "fin.quiesce.interlope.file.same.staged.source", "H11"),
    ("rename_root_unsynced", "fin.matrix.tree.other-dir", "H19"),
])
def test_the_inode_judgement_and_the_after_crash_outsider_reach_the_mount_route(
        hookconf, monkeypatch, mutant, case, invariant):
    """§10.2 (the replacement's inode, never the source's, reaches the target; a directory
    moved to another parent is durable there once its own root is fsynced — the mount
    forwards ``fsyncdir`` to the model) and §10.3 (an outsider's bytes at the private copy
    survive recovery; target_installed with the target matching commits, whatever an
    outsider did to the other files recovery reads) through the mount: the reference
    served as a subprocess passes, the mutant served so fails that invariant."""
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "6")
    args = ("run", "--allow-not-covered", "--case", case, "--candidate")
    _, reference = hookconf(*args, served("reference"))
    assert [c["status"] for c in reference["cases"]] == ["passed"]
    assert reference["cases"][0]["metrics"]["crashRoute"] == "mount"
    _, report = hookconf(*args, served(f"tests.mutants.finalize.{mutant}:factory"))
    assert status(report, invariant) == "fail"


@needs_fuse
def test_guard_outsiders_through_the_mount_get_the_in_process_verdicts(hookconf, monkeypatch):
    """The outsider between an identity-checked action and its phase write (§10.1, §10.2),
    its point learnt from the mounted run's own trace, and an unrelated identical target."""
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "3")
    cases = ("mnt.guard.*", "mnt.identical-target.*")
    in_process = run_mount_corpus(hookconf, "reference", *cases)
    mounted = run_mount_corpus(hookconf, served("reference"), *cases)
    assert verdicts(mounted) == verdicts(in_process)
    assert {c["status"] for c in mounted["cases"]} == {"passed"}
    assert len(mounted["cases"]) == 4


@needs_fuse
@pytest.mark.parametrize(("mutant", "case", "invariant"), [
    ("install_unverified", "mnt.guard.file.copy.target_installed.append", "H8"),
    ("staged_unverified", "mnt.guard.file.copy.target_staged.same-size", "H23"),
])
def test_a_phase_over_a_changed_item_is_caught_through_the_mount(hookconf, monkeypatch, mutant,
                                                                 case, invariant):
    monkeypatch.setenv("HOOKCONF_MOUNT_POINTS", "8")
    report = run_mount_corpus(hookconf, served(f"tests.mutants.finalize.{mutant}:factory"), case)
    assert status(report, invariant) == "fail"
