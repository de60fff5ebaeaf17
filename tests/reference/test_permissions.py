"""The reference §7 matcher: properties over generated hosts and paths, and the glob."""

import re

import ada_url
from hypothesis import given, settings
from hypothesis import strategies as st

from hookconf.reference.errors import ErrorCode
from hookconf.reference.permissions.matcher import PatternSet, check_request, glob_match, match, parse_pattern


def _plain_dns_label(label: str) -> bool:
    """A label the WHATWG host parser keeps as written: not numeric (all digits or ``0x``
    hex, which make a host that ends in it an IPv4 candidate) and not of the reserved
    ``??--`` form (an A-label that must decode as Punycode)."""
    return not (label.isdigit() or re.fullmatch(r"0x[0-9a-f]*", label) or label[2:4] == "--")


LABEL = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?", fullmatch=True).filter(_plain_dns_label)
#: Hosts of 2–5 plain labels: each parses to itself (checked below), so a failed match is the
#: matcher's, never the URL parser refusing a host the generator should not have made.
HOST = st.lists(LABEL, min_size=2, max_size=5).map(".".join)
SEGMENT = st.text(alphabet="abcxyz019-._~!$&'()+,;=:@", min_size=0, max_size=8).filter(
    lambda s: s not in (".", "..")
)
PATH = st.lists(SEGMENT, min_size=1, max_size=4).map(lambda s: "/" + "/".join(s))


def test_label_generator_leaves_out_what_the_url_parser_reads_otherwise():
    for label in ("0x", "0x1f", "08", "xn--a", "ab--c"):
        assert not _plain_dns_label(label), label
    assert _plain_dns_label("a-b") and _plain_dns_label("0xg") and _plain_dns_label("x0")


@settings(max_examples=500, deadline=None)
@given(host=HOST)
def test_generated_hosts_parse_to_themselves(host):
    assert ada_url.parse_url(f"http://{host}/")["hostname"] == host


@settings(max_examples=300, deadline=None)
@given(host=HOST, path=PATH, scheme=st.sampled_from(["http", "https"]))
def test_pattern_of_a_urls_own_host_and_path_matches_it(host, path, scheme):
    url = f"{scheme}://{host}{path}"
    assert match(f"{scheme}://{host}{path}", url)
    assert match(f"*://{host}/*", url)
    assert match(f"*://*.{host}/*", url)


@settings(max_examples=300, deadline=None)
@given(host=HOST, path=PATH, data=st.data())
def test_changing_any_host_label_breaks_the_match(host, path, data):
    labels = host.split(".")
    index = data.draw(st.integers(0, len(labels) - 1))
    other = data.draw(LABEL.filter(lambda s: s != labels[index]))
    changed = ".".join(labels[:index] + [other] + labels[index + 1 :])
    url = f"https://{changed}{path}"
    assert not match(f"*://{host}{path}", url)
    assert not match(f"*://{host}/*", url)


@settings(max_examples=200, deadline=None)
@given(prefix=LABEL, suffix=HOST)
def test_suffix_wildcard_respects_the_label_boundary(prefix, suffix):
    assert match(f"*://*.{suffix}/*", f"http://{prefix}.{suffix}/")
    assert not match(f"*://*.{suffix}/*", f"http://{prefix}{suffix}/")


def test_glob_star_is_the_only_wildcard():
    assert glob_match("/a*c", "/abbbc")
    assert glob_match("/*", "/x/y?z")
    assert not glob_match("/a?c", "/abc")
    assert not glob_match("/a.c", "/abc")
    assert glob_match("/a*b*c", "/a-b-b-c")
    assert not glob_match("/a*b*c", "/a-c")
    assert not glob_match("/ab*ba", "/aba")


def test_invalid_patterns_are_inert_but_recorded():
    patterns = PatternSet.from_strings(["*://ok.example/*", "*://bad.example:8080/*"])
    assert [p.text for p in patterns.patterns] == ["*://ok.example/*"]
    assert patterns.invalid[0][0] == "*://bad.example:8080/*"
    assert not patterns.matches("http://bad.example:8080/")


def test_redirect_hops_resolve_against_the_previous_hop():
    patterns = PatternSet.from_strings(["https://api.example/*"])
    assert check_request(patterns, ["https://api.example/a", "../b?c"]).allowed
    decision = check_request(patterns, ["https://api.example/a", "//evil.example/"])
    assert (decision.allowed, decision.refused_hop, decision.code) == (
        False, 1, ErrorCode.HOST_NOT_PERMITTED)
    proxied = check_request(patterns, ["https://api.example/a"], proxy="http://api.example:3128")
    assert (proxied.allowed, proxied.code) == (False, ErrorCode.PERMISSION_DENIED)


def test_pattern_hosts_are_canonicalised_like_urls():
    assert parse_pattern("*://BÜCHER.example./*").host == "xn--bcher-kva.example"
    assert parse_pattern("*://[0:0::1]/*").host == "[::1]"
    assert parse_pattern("*://0x7f.1/*").host == "127.0.0.1"


def test_an_empty_request_chain_is_refused():
    assert not check_request(PatternSet.from_strings(["<all_urls>"]), []).allowed


def test_text_after_a_bracketed_ipv6_literal_makes_no_pattern():
    # the URL parser reads "#x]" as a fragment and "?x]" as a query: neither is part of a host (§7)
    for host in ("[2001:db8::1]#x]", "[2001:db8::1]?x]", "[2001:db8::1]\\x]"):
        assert PatternSet.from_strings([f"https://{host}/*"]).patterns == ()
        assert not match(f"https://{host}/*", "https://[2001:db8::1]/file.bin")
    assert parse_pattern("https://[2001:db8::1]/*").host == "[2001:db8::1]"
