"""guest.capability-redirects: guest http calls through redirect chains of 1..4 redirects, a
forbidden target of each kind at each position, and chains of allowed spellings (§7, H5)."""

from __future__ import annotations

from urllib.parse import urlsplit

from hookconf.harness.fixtures import load_fixture
from hookconf.harness.generate import expand
from hookconf.harness.generate.guest_redirects import ALLOWED_NEAR, FORBIDDEN, MAX_LENGTH, positions
from hookconf.harness.guest import entry_problems
from hookconf.reference.guest.invoke import run_plugin
from hookconf.reference.permissions import PatternSet, check_request


def _instances():
    return {i.key: i for i in expand("guest.capability-redirects", {}, seed=0,
                                     template_id="guest.capability-redirects")}


def test_every_length_kind_and_position_is_generated():
    found = _instances()
    assert set(found) == {f"{side}.{kind}" for kind in FORBIDDEN for side in ("forbidden", "allowed")}
    chains = [(length, hop) for length in range(1, MAX_LENGTH + 1) for hop, _ in positions(length)]
    for kind in FORBIDDEN:
        instance = found[f"forbidden.{kind}"]
        assert instance.polarity == "negative" and not instance.advisory
        results = instance.expect["results"]
        assert len(results) == len(instance.given["invocations"]) == len(chains)
        for (_, hop), wanted in zip(chains, results, strict=True):
            assert len(wanted["requests"]) == hop  # the start URL and the hops before the forbidden one
            assert wanted["requestsExclude"][0] not in wanted["requests"]
        positive = found[f"allowed.{kind}"]
        assert positive.polarity == "positive"
        assert [len(r["requests"]) for r in positive.expect["results"]] == [n + 1 for n in range(1, MAX_LENGTH + 1)]
    assert {label for length in range(1, MAX_LENGTH + 1) for _, label in positions(length)} == \
        {"first", "middle", "last"}
    # every network URL of a case is distinct: each chain is answered on its own
    for instance in found.values():
        urls = [route["url"] for route in instance.given["network"]]
        assert len(urls) == len(set(urls))


def test_each_forbidden_target_is_refused_by_the_matcher_and_each_near_one_allowed():
    """The kinds are what their names say: the §7 matcher under the fixture's grants refuses
    every forbidden target (each a redirect from a granted URL) and allows every near one."""
    grants = PatternSet.from_strings(load_fixture("hookconf.redirect-chain")["manifest"]["hostPermissions"])
    start = "https://api.example/allowed/t/start"
    for kind, (url, _) in FORBIDDEN.items():
        target = url.format(c="t", n=1)
        decision = check_request(grants, [start, target])
        assert (decision.allowed, decision.refused_hop) == (False, 1), kind
        assert urlsplit(target).hostname in {"api.example", "other.example"}
    for kind, (near, _) in ALLOWED_NEAR.items():
        assert check_request(grants, [start, near.format(c="t", n=1)]).allowed, kind


def test_the_reference_meets_every_instance():
    for key, instance in _instances().items():
        fixture = load_fixture(instance.given["plugin"])
        observed = run_plugin(fixture["manifest"], fixture["source"], instance.given["invocations"],
                              network=instance.given["network"])
        for wanted, seen in zip(instance.expect["results"], observed["results"], strict=True):
            assert entry_problems(wanted, seen) == [], key


def test_the_entry_timeout_reaches_every_case():
    found = expand("guest.capability-redirects", {"timeoutMs": 5000}, seed=0,
                   template_id="guest.capability-redirects")
    assert {i.given["timeoutMs"] for i in found} == {5000}
