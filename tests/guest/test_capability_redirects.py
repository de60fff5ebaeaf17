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
    assert len(found) == MAX_LENGTH * (len(FORBIDDEN) + 1)
    for length in range(1, MAX_LENGTH + 1):
        for kind in FORBIDDEN:
            instance = found[f"n{length}.{kind}"]
            assert instance.polarity == "negative" and not instance.advisory
            results = instance.expect["results"]
            assert len(results) == len(instance.given["invocations"]) == len(positions(length))
            for (hop, _), wanted in zip(positions(length), results, strict=True):
                assert len(wanted["requests"]) == hop  # the start URL and the hops before the forbidden one
                assert wanted["requestsExclude"][0] not in wanted["requests"]
        positive = found[f"n{length}.allowed"]
        assert positive.polarity == "positive"
        assert len(positive.expect["results"]) == len(ALLOWED_NEAR)
    assert {label for length in range(1, MAX_LENGTH + 1) for _, label in positions(length)} == \
        {"first", "middle", "last"}


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


def test_the_reference_meets_the_shortest_and_longest_chains():
    """(``hookconf run`` on the reference meets every instance; here the ends of the range.)"""
    for key, instance in _instances().items():
        if not key.startswith(("n1.", f"n{MAX_LENGTH}.")):
            continue
        fixture = load_fixture(instance.given["plugin"])
        observed = run_plugin(fixture["manifest"], fixture["source"], instance.given["invocations"],
                              network=instance.given["network"])
        for wanted, seen in zip(instance.expect["results"], observed["results"], strict=True):
            assert entry_problems(wanted, seen) == [], key
