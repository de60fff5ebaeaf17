"""The H5 and H17 oracles read every route the runners ask: resolver selection, hostPermissions
variants, and the vector revision a derived case records."""

from hookconf.harness.corpus import Case
from hookconf.harness.protocol import InProcessConnection
from hookconf.harness.runners import observe
from hookconf.reference.candidate import ReferenceCandidate, UnknownOperation
from tests.conftest import status


class _PermissionsOnly(ReferenceCandidate):
    families = ("permissions",)


class _RefusesProbe(ReferenceCandidate):
    def runtime_install(self, args):
        raise UnknownOperation("runtime.install")


def _routes(candidate, given):
    conn = InProcessConnection(candidate, "test")
    conn.open()
    case = Case("perm.test.1", "t", ("H5",), "§7", "permissions.match", "positive", given,
                {"match": True}, {"from": "spec", "ref": "§7"}, "test.json", "/")
    return {c.route: c.result for c in observe(case, conn).calls}


def test_match_cases_ask_resolver_selection_only_of_a_runtime_candidate():
    given = {"pattern": "https://files.example.test/a/*", "url": "https://files.example.test/a/x"}
    assert _routes(ReferenceCandidate(), given)["select"] == {"match": True}
    outside = {**given, "url": "https://files.example.test/b"}
    assert _routes(ReferenceCandidate(), outside)["select"] == {"match": False}
    assert "select" not in _routes(_PermissionsOnly(), given)
    assert "select" not in _routes(_RefusesProbe(), given)  # an error reply leaves the route out


def test_host_only_selection_is_caught_by_the_select_route(hookconf):
    code, report = hookconf("run", "--candidate", "tests.mutants.permissions.host_only_selection:factory",
                            "--case", "perm.gen.pattern-url.*")
    assert code == 1 and status(report, "H5") == "fail"
    details = [j["detail"] for c in report["cases"] if c["status"] == "failed" for j in c["judgements"]]
    assert details and all("select=" in d for d in details)


def test_a_failure_on_a_derived_vector_names_its_revision(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.permissions.regex_whole_url:factory",
                         "--case", "perm.wpt.*")
    details = [j["detail"] for c in report["cases"] if c["status"] == "failed" for j in c["judgements"]]
    assert details and all("vector revision: web-platform-tests" in d for d in details)


def test_task_source_answers_are_compared_under_every_hostpermissions_variant(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.permissions.admit_by_host_permissions:factory",
                         "--case", "task-source.gen.fields.*")
    failed = [c for c in report["cases"] if c["status"] == "failed"]
    assert failed and status(report, "H17") == "fail"
