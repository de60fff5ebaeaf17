"""The §7 generators produce only what they claim: every spelling in the model's tables parses
to the component the model says, and every generated expectation follows from the URL the
WHATWG parser actually makes of what the generator wrote (never from the reference matcher)."""

import re

import ada_url
import pytest

from hookconf.harness.generate import expand
from hookconf.harness.generate.urlmodel import (
    DNS_HOSTS,
    IDN_HOSTS,
    IPV4_HOSTS,
    IPV6_HOSTS,
    PATH_SPELLINGS,
    Url,
    glob_matches,
    model_match,
    pattern,
)

_PARTS = ("href", "username", "password", "protocol", "hostname", "pathname", "search", "host_type")


def _upper_hex(text: str) -> str:
    return re.sub(r"%([0-9a-fA-F]{2})", lambda m: "%" + m.group(1).upper(), text)


def _observed(text: str, base: str | None = None) -> Url:
    """What the URL Standard makes of ``text``, in the model's terms (for checking only)."""
    try:
        absolute = text if base is None else ada_url.join_url(base, text)
        parts = ada_url.parse_url(absolute, attributes=_PARTS)
    except ValueError:
        return Url(text, "", "", False, "", valid=False)
    scheme = parts["protocol"].rstrip(":")
    is_ip = parts["host_type"] in (ada_url.HostType.IPV4, ada_url.HostType.IPV6)
    host = parts["hostname"]
    host = host if is_ip or not host.endswith(".") else host[:-1]
    valid = scheme in ("http", "https") and not (parts["username"] or parts["password"])
    return Url(parts["href"], scheme, host, is_ip, _upper_hex(parts["pathname"] + parts["search"]),
               valid=valid)


@pytest.mark.parametrize("spelling", DNS_HOSTS + IDN_HOSTS + IPV4_HOSTS + IPV6_HOSTS,
                         ids=lambda h: h.written)
def test_every_host_spelling_parses_to_its_canonical_host(spelling):
    url = _observed(f"https://{spelling.written}/")
    assert (url.host, url.is_ip) == (spelling.canonical, spelling.is_ip)


@pytest.mark.parametrize(("written", "target"), PATH_SPELLINGS)
def test_every_path_spelling_serialises_to_its_target(written, target):
    assert _observed(f"https://files.example.test{written}").target == target


def test_the_model_glob_has_one_wildcard():
    assert glob_matches("/a/*", "/a/") and glob_matches("/a/*", "/a/b/c?x")
    assert not glob_matches("/a/*", "/a") and not glob_matches("/a?c", "/abc")
    assert glob_matches("/a*b*c", "/a-b-b-c") and not glob_matches("/ab*ba", "/aba")
    assert not glob_matches("/a.c", "/abc")


def test_the_model_suffix_wildcard_is_label_bounded_and_never_an_ip():
    p = pattern("*://*.example.test/*", "*", "suffix", "example.test", "/*")
    assert model_match(p, Url("", "https", "example.test", False, "/"))
    assert model_match(p, Url("", "http", "a.b.example.test", False, "/x"))
    assert not model_match(p, Url("", "https", "badexample.test", False, "/"))
    assert not model_match(p, Url("", "ftp", "a.example.test", False, "/"))


def _instances(name, params, seed):
    return expand(name, params, seed=seed, template_id=f"perm.gen.{name}")


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_pattern_url_expectations_follow_from_the_parsed_url(seed):
    instances = _instances("permissions.pattern_url", {"instances": 300}, seed)
    assert len(instances) >= 290
    matches = sum(i.expect["match"] for i in instances)
    assert 0.4 * len(instances) <= matches <= 0.6 * len(instances)
    for instance in instances:
        url = _observed(instance.given["url"])
        expected = model_match(_model_pattern(instance.given["pattern"]), url)
        assert instance.expect["match"] == expected, (instance.given, url)


def _model_pattern(text: str):
    if text == "<all_urls>":
        return pattern(text, "*", "any", "", "/*")
    scheme, rest = text.split("://", 1)
    host, glob = rest.split("/", 1)
    kind = "any" if host == "*" else "suffix" if host.startswith("*.") else "exact"
    return pattern(text, scheme, kind, host.removeprefix("*."), "/" + glob)


@pytest.mark.parametrize("seed", [0, 3])
def test_redirect_chains_refuse_at_the_first_hop_the_parsed_chain_leaves(seed):
    instances = _instances("permissions.redirect_positions", {"maxHops": 5, "variants": 3}, seed)
    positions = {(len(i.given["hops"]), i.expect.get("refused_hop")) for i in instances}
    for length in range(1, 6):  # every position of every length, and the allowed chain
        assert {(length, None)} | {(length, k) for k in range(length)} <= positions
    for instance in instances:
        patterns = [_model_pattern(t) for t in instance.given["patterns"]]
        if instance.given["proxy"] is not None:
            assert instance.expect == {"allowed": False, "refused_hop": 0,
                                       "code": "plugin.hook.permission_denied"}
            continue
        base, first = None, None
        for index, hop in enumerate(instance.given["hops"]):
            url = _observed(hop, base)
            if not any(model_match(p, url) for p in patterns):
                first = index
                break
            base = url.text
        assert instance.expect.get("refused_hop") == first, instance.given["hops"]


def test_pattern_sets_put_the_only_matching_pattern_after_another_for_its_host():
    instances = _instances("permissions.pattern_sets", {"instances": 200}, 0)
    later = 0
    for instance in instances:
        url = _observed(instance.given["url"])
        hits = [i for i, t in enumerate(instance.given["patterns"])
                if "@" not in t and ":8443" not in t and model_match(_model_pattern(t), url)]
        assert bool(hits) == instance.expect["match"]
        later += bool(hits) and hits[0] > 0
    assert later >= 20


def test_grammar_instances_are_valid_only_when_built_from_the_grammar():
    instances = _instances("permissions.pattern_grammar", {"instances": 120}, 0)
    assert {i.expect["valid"] for i in instances} == {True, False}
    for instance in instances:
        text = instance.given["pattern"]
        if instance.expect["valid"]:
            assert text.split("://")[0] in ("*", "http", "https") and "@" not in text
        else:
            assert instance.key.startswith("invalid.")


def test_expansion_is_a_function_of_the_seed():
    one = _instances("permissions.pattern_url", {"instances": 50}, 5)
    two = _instances("permissions.pattern_url", {"instances": 50}, 5)
    assert one == two
    assert one != _instances("permissions.pattern_url", {"instances": 50}, 6)


@pytest.mark.parametrize("seed", [0, 2, 9])
def test_glob_literal_texts_start_with_the_prefix_and_end_with_the_suffix(seed):
    instances = _instances("permissions.glob_literals", {"instances": 80}, seed)
    assert len(instances) == 80
    overlaps = [i for i in instances if i.key.startswith("overlap.")]
    assert len(overlaps) >= 10 and not any(i.expect["match"] for i in overlaps)
    assert {i.polarity for i in instances} == {"positive", "negative"}
    for instance in instances:
        url = _observed(instance.given["url"])
        model = _model_pattern(instance.given["pattern"])
        assert url.target == instance.given["url"].split("example.test", 1)[1]  # no dot segment formed
        assert instance.expect["match"] == model_match(model, url), instance.given
        if instance.key.startswith("overlap."):  # the bug's shape: both ends fit, the length does not
            first, *_, last = model.glob.split("*")
            assert url.target.startswith(first) and url.target.endswith(last)
            assert len(url.target) < len(first) + len(last)


@pytest.mark.parametrize("seed", [0, 4])
def test_percent_hex_cases_are_advisory_exactly_where_the_pattern_hex_decides(seed):
    instances = _instances("permissions.percent_hex", {"instances": 60}, seed)
    assert len(instances) == 60
    normative = [i for i in instances if not i.advisory]
    assert {i.polarity for i in normative} == {"positive", "negative"}
    assert any(i.advisory for i in instances)
    for instance in instances:
        url = _observed(instance.given["url"])
        model = _model_pattern(instance.given["pattern"])
        upper = pattern(model.text, "https", model.host_kind, model.host, _upper_hex(model.glob))
        assert instance.expect["match"] == model_match(upper, url), instance.given
        # advisory exactly when the glob taken as written would answer otherwise
        assert bool(instance.advisory) == (model_match(model, url) != model_match(upper, url))


def test_host_rules_say_what_the_url_parser_makes_of_their_hosts():
    from hookconf.harness.generate.permissions import HOST_RULES

    instances = _instances("permissions.pattern_hosts", {}, 0)
    keys = {i.key for i in instances}
    for name, host, url_host, valid, _ in HOST_RULES:
        assert f"parse.{name}" in keys
        assert (f"match.{name}" in keys) == bool(url_host)
        if url_host:  # the match asks about a URL the parser accepts
            parsed = ada_url.parse_url(f"https://{url_host}/file.bin", attributes=_PARTS)
            canonical = parsed["hostname"].strip("[]")
            assert canonical
        size = re.fullmatch(r"(label|name|suffix-name)-(\d+)", name)
        if size:  # the DNS length edges are the lengths the rule names, counted on the parser's host
            hostname = ada_url.parse_url(f"https://{host.removeprefix('*.')}/", attributes=_PARTS)["hostname"]
            lengths = [len(label) for label in hostname.split(".")]
            seen = max(lengths) if size.group(1) == "label" else len(hostname)
            assert seen == int(size.group(2))
            assert valid == (seen <= (63 if size.group(1) == "label" else 253))
    assert sum(i.key.startswith("parse.no-path") for i in instances) == 12


def test_percent_hex_spellings_cover_every_case_combination_in_every_place():
    from hookconf.harness.generate.permissions import HEX_PAIRS, hex_spellings

    assert hex_spellings("AB") == ["ab", "aB", "Ab", "AB"] and hex_spellings("2F") == ["2f", "2F"]
    instances = _instances("permissions.percent_hex_spellings", {}, 0)
    keys = {i.key for i in instances}
    assert len(keys) == len(instances) == 75
    assert {"match.path.ab.uu-lu", "match.search.ab.uu-ul", "match.path.2f.du-dl",
            "match.search.c3.ud-ld", "other.path.ab.lu", "redirect.ab.ul", "redirect.c3.every"} <= keys
    for instance in instances:
        if instance.kind == "permissions.redirect":
            for hop in instance.given["hops"]:  # the parser keeps each hop's escape as written
                assert _observed(hop).target == _upper_hex(hop.split("example.test", 1)[1])
            continue
        url = _observed(instance.given["url"])
        model = _model_pattern(instance.given["pattern"])
        upper = pattern(model.text, "https", model.host_kind, model.host, _upper_hex(model.glob))
        assert instance.expect["match"] == model_match(upper, url), instance.given
        assert bool(instance.advisory) == (model_match(model, url) != model_match(upper, url))
        # decided exactly where the glob is spelled in uppercase
        assert bool(instance.advisory) == (model.glob != _upper_hex(model.glob)
                                           and instance.key.startswith("match."))
    assert len(HEX_PAIRS) == 3


def test_trailing_dots_follow_from_the_parsed_host_in_every_position():
    instances = _instances("permissions.trailing_dots", {}, 0)
    keys = {i.key for i in instances}
    assert len(keys) == len(instances) == 56
    assert {"match.exact.0", "match.suffix-apex.3", "redirect.len3.at2.2.protocol-relative",
            "redirect.len1.at0.1"} <= keys
    for instance in instances:
        dots = int(instance.key.split(".")[-2 if instance.key.endswith("relative") else -1])
        if instance.kind == "permissions.redirect":
            previous = None
            for hop in instance.given["hops"]:  # every hop names the granted host, dotted or not
                previous = _observed(hop, previous.text if previous else None)
                assert previous.host.rstrip(".") == "files.example.test"
            assert instance.expect["allowed"] == (dots <= 1)
            continue
        url = _observed(instance.given["url"])
        assert url.host.endswith("." * max(dots - 1, 0)) and not url.host.endswith("." * dots or "!")
        assert instance.expect["match"] == (dots <= 1) == model_match(_model_pattern(instance.given["pattern"]), url)
