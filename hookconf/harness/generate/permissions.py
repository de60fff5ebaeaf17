"""Generated §7 host-permission cases (H5), judged by a model written for the generator.

Seven templates, each seeded and bounded:

``permissions.pattern_url``
    pattern × URL pairs from the §7 grammar — scheme ``*``/``http``/``https``; host ``*``,
    an exact DNS name, a ``*.`` suffix, an IPv4 or bracketed IPv6 literal, an IDN; a path
    glob — against URLs that spell the same or a related host in the ways the WHATWG parser
    canonicalises (case, one trailing dot, IPv4 number forms, IPv6 zero forms, Unicode
    labels), with or without a port, over paths inside and outside the glob.
``permissions.pattern_sets``
    several patterns where only one (or none) matches: overlapping globs (``/a/*`` and
    ``/a/b*``), the matching pattern anywhere in the list.
``permissions.redirect_positions``
    redirect chains of 1..N hops with the first forbidden hop at every position (and a second
    one after it), absolute, protocol-relative, path-absolute, relative and query-only hops,
    with and without a guest proxy; ``refused_hop`` is the index of the first forbidden hop.
``permissions.pattern_grammar``
    patterns built from the grammar (valid) and one rule broken at a time (invalid).
``permissions.pattern_hosts``
    every way a pattern host breaks §7's host rule (DNS length edges, empty labels, two
    leading ``*.``, text after an IPv6 literal, no path), as parses and as matches.
``permissions.glob_literals``
    globs whose literal segments overlap (the suffix begins with the prefix's end, a middle
    literal shares characters with either) against texts that start with the prefix and end
    with the suffix but are too short to hold them one after another, and texts that do.
``permissions.percent_hex_spellings``
    every upper/lower combination of an escape's two hex digits, exhaustively, in the URL's
    path and search, in the glob, and in redirect hops.
``permissions.percent_hex``
    percent escapes in upper, lower and mixed hex in the glob and in the URL's path or query,
    and the decoded character; cases whose answer turns on uppercasing the pattern's own
    hex are advisory (§7 uppercases the URL side; it does not say the glob's).
``permissions.trailing_dots``
    URL hosts written with 0, 1, 2 and 3 trailing dots against exact and ``*.`` pattern hosts
    (lowercase, uppercase, an IDN), and as every hop of redirect chains of 1..3 hops (absolute
    and protocol-relative): one dot is removed (§7), so two or more never match.

The expected answer never comes from a matcher under test: :mod:`.urlmodel` states §7's rules
over components the generator itself chose, and every URL is written from a hand-checked table
of spellings whose canonical form is known (``tests/harness/test_generate_permissions.py``
checks each spelling against the WHATWG parser, so the generator produces only what it
claims).  Every ``permissions.match`` instance is also asked through ``beforeCreate``
selection when the candidate implements the runtime family (see the H5 runner).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterator
from itertools import permutations
from typing import Any

from hookconf.harness.generate import Instance, template
from hookconf.harness.generate.urlmodel import (
    DNS_HOSTS,
    IDN_HOSTS,
    IPV4_HOSTS,
    IPV6_HOSTS,
    PATH_SPELLINGS,
    HostSpelling,
    Pattern,
    Url,
    glob_matches,
    model_match,
    pattern,
)

__all__ = ["expand_glob_literals", "expand_pattern_grammar", "expand_pattern_hosts", "expand_pattern_sets",
           "expand_pattern_url", "expand_percent_hex", "expand_percent_hex_spellings",
           "expand_redirect_positions", "expand_trailing_dots", "hex_spellings", "upper_hex"]

_NOT_PERMITTED = "plugin.http.host_not_permitted"
_PERMISSION_DENIED = "plugin.hook.permission_denied"

_COUNT = {"type": "object", "additionalProperties": False,
          "properties": {"instances": {"type": "integer", "minimum": 1, "maximum": 5000}}}


def _key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:10]


def _pick(rng: random.Random, items: list[Any] | tuple[Any, ...]) -> Any:
    return items[rng.randrange(len(items))]


# ----------------------------------------------------------------------------- hosts and globs

#: Path globs of the grammar, from the whole-path wildcard to literals and overlaps.
GLOBS = ("/*", "/", "/a/*", "/a/b*", "/a/*/c", "/*.iso", "/dl/*?x=1", "/a", "/*/b", "/a%2Fb")


def _pattern_hosts() -> list[tuple[str, str, str, bool]]:
    """``(kind, written, canonical, is_ip)`` for each pattern host the grammar allows."""
    hosts = [("any", "*", "", False)]
    for h in DNS_HOSTS:
        hosts.append(("exact", h.canonical, h.canonical, False))
        hosts.append(("suffix", "*." + h.canonical, h.canonical, False))
    for h in IDN_HOSTS:
        hosts.append(("exact", h.canonical, h.canonical, False))
        hosts.append(("suffix", "*." + h.canonical, h.canonical, False))
    hosts += [("exact", h.canonical, h.canonical, True) for h in IPV4_HOSTS + IPV6_HOSTS]
    return hosts


def _url_hosts(kind: str, canonical: str, is_ip: bool) -> list[HostSpelling]:
    """Spellings of hosts a pattern host is compared with: itself, subdomains, neighbours."""
    every = list(DNS_HOSTS + IDN_HOSTS + IPV4_HOSTS + IPV6_HOSTS)
    if kind == "any":
        return every
    same = [h for h in every if h.canonical == canonical]
    others = [h for h in every if h.canonical != canonical and h.written == h.canonical]
    if is_ip:
        return same + others
    related = [HostSpelling(s, s, False) for s in (
        "www." + canonical, "a.b." + canonical, "bad" + canonical, canonical + ".evil.test",
        canonical.split(".", 1)[1] if canonical.count(".") > 1 else "other.test")]
    return same + related + others


def _url(scheme: str, host: HostSpelling, port: str, path: tuple[str, str]) -> Url:
    written_path, target = path
    return Url(f"{scheme}://{host.written}{port}{written_path}", scheme.lower(), host.canonical,
               host.is_ip, target)


#: URLs §7 refuses whatever the pattern: credentials, a non-web scheme, a URL that does not parse.
HOSTILE_URLS = (
    ("credentials", "https://user:secret@{host}/a/b"),
    ("username", "http://user@{host}/a/b"),
    ("password", "https://:secret@{host}/dl/f.iso"),
    ("ftp", "ftp://{host}/a/b"),
    ("ws", "ws://{host}/a/b"),
    ("space", "https://exa mple.test/a"),
    ("port-range", "https://{host}:65536/a"),
)


# ----------------------------------------------------------------------------- pattern × URL

@template("permissions.pattern_url", params=_COUNT)
def expand_pattern_url(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Pattern × URL pairs from the §7 grammar: half match, a tenth are hostile URLs (H5)."""
    wanted = params.get("instances", 300)
    hosts = _pattern_hosts()
    quota = {True: wanted // 2, False: wanted - wanted // 2 - wanted // 10}
    chosen: dict[tuple[str, str], tuple[Pattern, Url]] = {}
    for _ in range(wanted * 200):
        if not any(quota.values()):
            break
        kind, written, canonical, is_ip = _pick(rng, hosts)
        scheme, glob = _pick(rng, ("*", "http", "https")), _pick(rng, GLOBS)
        p = pattern(f"{scheme}://{written}{glob}", scheme, kind, canonical, glob)
        url_scheme = _pick(rng, ("http", "https", "HTTPS", "Http"))
        port = _pick(rng, ("", "", ":80" if url_scheme.lower() == "http" else ":443", ":8443"))
        u = _url(url_scheme, _pick(rng, _url_hosts(kind, canonical, is_ip)), port,
                 _pick(rng, PATH_SPELLINGS))
        expected = model_match(p, u)
        if quota[expected] and (p.text, u.text) not in chosen:
            quota[expected] -= 1
            chosen[(p.text, u.text)] = (p, u)
    patterns = [p for p, _ in chosen.values()]
    for _ in range(wanted // 10):  # hostile URLs fail closed under any pattern
        p = _pick(rng, patterns)
        _, text = _pick(rng, HOSTILE_URLS)
        host = p.host if p.host_kind == "exact" else "files.example.test"
        u = Url(text.format(host=host), "", "", False, "", valid=False)
        chosen[(p.text, u.text)] = (p, u)
    for p, u in chosen.values():
        expected = model_match(p, u)
        yield Instance(
            key=f"{p.host_kind}.{_key(p.text, u.text)}",
            title=f"{p.text} {'matches' if expected else 'does not match'} {u.text}",
            kind="permissions.match",
            polarity="positive" if expected else "negative",
            given={"pattern": p.text, "url": u.text},
            expect={"match": expected},
            notes=u.explain(p),
        )


# ----------------------------------------------------------------------------- pattern sets

def _p(text: str, host_kind: str, host: str, glob: str, *, valid: bool = True) -> Pattern:
    return pattern(text, text.split("://", 1)[0], host_kind, host, glob, valid=valid)


_FILES = "files.example.test"
#: Pattern sets whose members overlap or differ in one component; URL paths probe each.
PATTERN_SETS: tuple[tuple[Pattern, ...], ...] = (
    (_p("https://files.example.test/a/*", "exact", _FILES, "/a/*"),
     _p("https://files.example.test/a/b*", "exact", _FILES, "/a/b*")),
    (_p("https://files.example.test/a/b*", "exact", _FILES, "/a/b*"),
     _p("https://files.example.test/*.iso", "exact", _FILES, "/*.iso")),
    (_p("https://files.example.test/dl/*", "exact", _FILES, "/dl/*"),
     _p("https://files.example.test/a/*", "exact", _FILES, "/a/*")),
    (_p("*://*.example.test/a/*", "suffix", "example.test", "/a/*"),
     _p("https://files.example.test/dl/*", "exact", _FILES, "/dl/*"),
     _p("http://files.example.test/*", "exact", _FILES, "/*")),
    (_p("https://other.example.test/*", "exact", "other.example.test", "/*"),
     _p("*://*.example.net/*", "suffix", "example.net", "/*"),
     _p("https://files.example.test/a/*", "exact", _FILES, "/a/*")),
    (_p("http://files.example.test/*", "exact", _FILES, "/*"),
     _p("https://files.example.test/dl/*?x=1", "exact", _FILES, "/dl/*?x=1")),
    (_p("*://[2001:db8::1]/a/*", "exact", "[2001:db8::1]", "/a/*"),
     _p("*://10.0.0.1/*", "exact", "10.0.0.1", "/*"),
     _p("*://files.example.test/a/b*", "exact", _FILES, "/a/b*")),
    (_p("https://files.example.test:8443/*", "exact", _FILES, "/*", valid=False),
     _p("https://files.example.test/a/*", "exact", _FILES, "/a/*")),
    (_p("https://user@files.example.test/*", "exact", _FILES, "/*", valid=False),
     _p("*://*.files.example.test/dl/*", "suffix", _FILES, "/dl/*")),
)


def _u(scheme: str, host: str, path: str, *, port: str = "") -> Url:
    return Url(f"{scheme}://{host}{port}{path}", scheme, host, host.startswith("[") or
               host.replace(".", "").isdigit(), path)


_SET_URLS = (
    _u("https", _FILES, "/a/bc"), _u("https", _FILES, "/a/x"), _u("https", _FILES, "/abc"),
    _u("https", _FILES, "/dl/f.iso"), _u("https", _FILES, "/dl/f?x=1"),
    _u("http", _FILES, "/a/b"), _u("https", "cdn.example.net", "/a"), _u("http", "10.0.0.1", "/q"),
    _u("https", "[2001:db8::1]", "/a/z"), _u("https", "www.files.example.test", "/dl/x"),
    _u("https", _FILES, "/z", port=":8443"),
)


@template("permissions.pattern_sets", params=_COUNT)
def expand_pattern_sets(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Several patterns, only one or none matching, in every order (H5)."""
    wanted = params.get("instances", 120)
    pool = [([patterns[i] for i in order], u)
            for patterns in PATTERN_SETS for u in _SET_URLS
            for order in permutations(range(len(patterns)))]
    for patterns, u in rng.sample(pool, min(wanted, len(pool))):
        hits = [p.text for p in patterns if model_match(p, u)]
        expected = bool(hits)
        texts = [p.text for p in patterns]
        yield Instance(
            key=f"n{len(texts)}.{_key(*texts, u.text)}",
            title=f"{u.text} against {len(texts)} patterns: "
                  + (f"only {', '.join(hits)} matches" if len(hits) == 1
                     else f"{len(hits)} match" if hits else "none matches"),
            kind="permissions.match",
            polarity="positive" if expected else "negative",
            given={"patterns": texts, "url": u.text},
            expect={"match": expected},
            notes="matching: " + (", ".join(hits) or "none"),
        )


# ----------------------------------------------------------------------------- redirect chains

#: The guest's permissions in every chain: an https API path and http(s) CDN subdomains.
CHAIN_PATTERNS = (_p("https://api.example.test/v1/*", "exact", "api.example.test", "/v1/*"),
                  _p("*://*.cdn.example.test/files/*", "suffix", "cdn.example.test", "/files/*"))
_WORDS = ("a", "b", "next", "f.iso", "x")

# Each hop form: (name, allowed?, builder(word, state) -> (written, resolved state) or None).
# A state is (scheme, host, path_and_query); hops are resolved the way the URL Standard
# resolves these plain forms against the previous hop.
State = tuple[str, str, str]


def _abs(name: str, scheme: str, host: str, path: str, written: str = "") -> tuple[str, str, State]:
    """An absolute hop: written as ``scheme://host/path`` unless ``written`` spells it otherwise."""
    return name, written or f"{scheme}://{host}{path}", (scheme, host, path)


def _allowed_forms(word: str, state: State | None) -> list[tuple[str, str, State]]:
    forms = [
        _abs("api", "https", "api.example.test", f"/v1/{word}"),
        _abs("cdn", "https", "eu.cdn.example.test", f"/files/{word}"),
        _abs("cdn-http", "http", "cdn.example.test", f"/files/{word}"),
        _abs("cdn-upper", "https", "eu.cdn.example.test", f"/files/{word}",
             f"HTTPS://EU.CDN.Example.Test./files/{word}"),
        _abs("api-port", "https", "api.example.test", f"/v1/{word}",
             f"https://api.example.test:8443/v1/{word}"),
    ]
    if state is not None:
        scheme, host, path = state
        directory = path.split("?")[0].rsplit("/", 1)[0]
        forms += [
            ("protocol-relative", f"//us.cdn.example.test/files/{word}",
             (scheme, "us.cdn.example.test", f"/files/{word}")),
            ("query", f"?page={word}", (scheme, host, path.split("?")[0] + f"?page={word}")),
            ("path-absolute", f"/v1/{word}", (scheme, host, f"/v1/{word}")),
            ("path-absolute", f"/files/{word}", (scheme, host, f"/files/{word}")),
            ("relative", word, (scheme, host, f"{directory}/{word}")),
        ]
    return [f for f in forms if _chain_allows(f[2])]


def _forbidden_forms(word: str, state: State | None) -> list[tuple[str, str, State | None]]:
    forms: list[tuple[str, str, State | None]] = [
        _abs("other-host", "https", "evil.example.net", f"/v1/{word}"),
        _abs("suffix-confusion", "https", "badcdn.example.test", f"/files/{word}"),
        _abs("host-prefix", "https", "api.example.test.evil.net", f"/v1/{word}"),
        _abs("path-outside", "https", "api.example.test", f"/v2/{word}"),
        _abs("encoded-slash", "https", "api.example.test", f"/v1%2F..%2Fv2/{word}"),
        _abs("scheme-downgrade", "http", "api.example.test", f"/v1/{word}"),
        _abs("cdn-root", "https", "cdn.example.test", f"/{word}"),
        ("credentials", f"https://u:p@api.example.test/v1/{word}", None),
        ("ftp", f"ftp://cdn.example.test/files/{word}", None),
        ("unparsable", f"https://exa mple.test/v1/{word}", None),
    ]
    if state is not None:
        scheme, host, _ = state
        forms += [
            ("protocol-relative", f"//evil.example.net/files/{word}",
             (scheme, "evil.example.net", f"/files/{word}")),
            ("backslashes", f"\\\\evil.example.net/v1/{word}", (scheme, "evil.example.net", f"/v1/{word}")),
            ("path-absolute", f"/v2/{word}", (scheme, host, f"/v2/{word}")),
            ("dot-segments", f"/v1/../v2/{word}", (scheme, host, f"/v2/{word}")),
        ]
    return [f for f in forms if f[2] is None or not _chain_allows(f[2])]


def _chain_allows(state: State) -> bool:
    scheme, host, path = state
    u = Url(f"{scheme}://{host}{path}", scheme, host, False, path)
    return any(model_match(p, u) for p in CHAIN_PATTERNS)


def _chain(rng: random.Random, length: int, forbidden: tuple[int, ...]) -> list[tuple[str, str]]:
    """``[(form name, written hop)]``; hops at ``forbidden`` positions are outside the
    permissions, the others inside; after the first forbidden hop every hop is absolute."""
    hops: list[tuple[str, str]] = []
    state: State | None = None
    for index in range(length):
        word = _pick(rng, _WORDS)
        base = state if (not forbidden or index <= forbidden[0]) else None
        if index in forbidden:
            name, written, state = _pick(rng, _forbidden_forms(word, base))
        else:
            name, written, state = _pick(rng, _allowed_forms(word, base))
        hops.append((name, written))
        if not forbidden or index < forbidden[0]:
            continue
        state = None  # past the first forbidden hop, no hop depends on an earlier one
    return hops


@template("permissions.redirect_positions", params={
    "type": "object", "additionalProperties": False,
    "properties": {"maxHops": {"type": "integer", "minimum": 1, "maximum": 12},
                   "variants": {"type": "integer", "minimum": 1, "maximum": 50}}})
def expand_redirect_positions(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Chains of 1..maxHops hops, the first forbidden hop at every position (H5, §7)."""
    max_hops, variants = params.get("maxHops", 5), params.get("variants", 3)
    seen: set[str] = set()

    def fresh(length: int, plan: tuple[int, ...], proxy: str | None) -> Iterator[Instance]:
        for _ in range(20):  # short chains have few distinct spellings: never repeat one
            instance = _redirect_instance(length, plan, _chain(rng, length, plan), proxy)
            if instance.key not in seen:
                seen.add(instance.key)
                yield instance
                return

    for length in range(1, max_hops + 1):
        plans: list[tuple[int, ...]] = [()] + [(i,) for i in range(length)]
        plans += [(i, j) for i in range(length) for j in range(i + 1, length)][:length]
        for plan in plans:
            for _ in range(variants):
                yield from fresh(length, plan, None)
        yield from fresh(length, (), _pick(rng, ("http://proxy.example.test:3128",
                                                 "https://api.example.test/",
                                                 "socks5://u:p@proxy.example.net:1080")))


def _redirect_instance(length: int, plan: tuple[int, ...], hops: list[tuple[str, str]],
                       proxy: str | None) -> Instance:
    written = [h for _, h in hops]
    names = [n for n, _ in hops]
    if proxy is not None:
        expect: dict[str, Any] = {"allowed": False, "refused_hop": 0, "code": _PERMISSION_DENIED}
        where, title = "proxy", f"a guest proxy refuses a {length}-hop chain at hop 0"
    elif plan:
        expect = {"allowed": False, "refused_hop": plan[0], "code": _NOT_PERMITTED}
        where = "at" + "-".join(map(str, plan))
        title = (f"{length}-hop chain refused at its first forbidden hop {plan[0]} "
                 f"({names[plan[0]]})")
    else:
        expect, where = {"allowed": True}, "allowed"
        title = f"{length}-hop chain inside the permissions is allowed"
    return Instance(
        key=f"len{length}.{where}.{_key(*written, proxy or '')}",
        title=title,
        kind="permissions.redirect",
        polarity="positive" if expect["allowed"] else "negative",
        given={"patterns": [p.text for p in CHAIN_PATTERNS], "hops": written, "proxy": proxy},
        expect=expect,
        notes="hops: " + ", ".join(names),
    )


# ----------------------------------------------------------------------------- grammar

#: One rule of the grammar broken at a time; each makes a pattern that §7 does not accept.
BROKEN = (
    ("port", lambda s, h, g: f"{s}://{h}:8080{g}"),
    ("port-wildcard", lambda s, h, g: f"{s}://{h}:*{g}"),
    ("userinfo", lambda s, h, g: f"{s}://user@{h}{g}"),
    ("scheme-ftp", lambda s, h, g: f"ftp://{h}{g}"),
    ("scheme-partial-wildcard", lambda s, h, g: f"http*://{h}{g}"),
    ("host-inner-wildcard", lambda s, h, g: f"{s}://a*.{h.lstrip('*.')}{g}"),
    ("host-trailing-wildcard", lambda s, h, g: f"{s}://{h.lstrip('*.').split('.')[0]}.*{g}"),
    ("no-scheme", lambda s, h, g: f"{h}{g}"),
    ("ipv6-wildcard", lambda s, h, g: f"{s}://[2001:db8::*]{g}"),
)


@template("permissions.pattern_grammar", params=_COUNT)
def expand_pattern_grammar(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Patterns from the §7 grammar (valid) and with one rule broken (invalid) (H5)."""
    wanted = params.get("instances", 120)
    pool: list[tuple[str, bool, str]] = []
    for kind, written, _, _ in _pattern_hosts():
        for scheme in ("*", "http", "https"):
            for glob in GLOBS:
                pool.append((f"{scheme}://{written}{glob}", True, kind))
                if written != "*":
                    for name, broken in BROKEN:
                        pool.append((broken(scheme, written, glob), False, name))
    valid = [p for p in pool if p[1]]
    invalid = [p for p in pool if not p[1]]
    chosen = rng.sample(valid, min(len(valid), wanted // 2))
    chosen += rng.sample(invalid, min(len(invalid), wanted - len(chosen)))
    seen: set[str] = set()
    for text, ok, what in chosen:
        if text in seen:
            continue
        seen.add(text)
        yield Instance(
            key=f"{'valid' if ok else 'invalid'}.{what}.{_key(text)}",
            title=f"{text!r} is {'a valid' if ok else 'not a'} manifest v1 host permission"
                  + ("" if ok else f" ({what})"),
            kind="permissions.parse",
            polarity="positive" if ok else "negative",
            given={"pattern": text},
            expect={"valid": ok},
        )



# ----------------------------------------------------------------------------- pattern hosts

#: §7 (Chinese text): "host 是 *、规范化后的精确 DNS/IP host，或 *.example.test" and "无效 pattern 或
#: URL 一律 fail closed"; "scheme://host/path-glob" has a path.
_HOST_SENTENCE = ("§7 'scheme://host/path-glob … host 是 *、规范化后的精确 DNS/IP host，或 "
                  "*.example.test' and '无效 pattern 或 URL 一律 fail closed'")
#: Why a label of characters outside letters, digits, '-' and '_' is not decided.
_LDH_UNDECIDED = ("§7 asks for an exact DNS host; DNS itself allows any octet in a label and the "
                  "platform URL parser keeps '!' and '~' in a host, so whether such a name is a "
                  "'DNS host' is not said")
#: Why an IDNA name the URL Standard accepts but IDNA2008's hyphen rules refuse is not decided.
_HYPHEN_UNDECIDED = ("§7 parses with the platform URL parser (UTS #46 with CheckHyphens off) and "
                     "also says 'IDNA 规范化'; IDNA2008 refuses '--' in the third and fourth "
                     "positions and a leading '-', the URL Standard does not: which one a pattern "
                     "host obeys is not said")


def _labels(total: int) -> str:
    """A DNS name of exactly ``total`` characters: 63-character labels, then the rest."""
    labels, left = [], total
    while left > 0:
        size = min(63, left)
        labels.append("abcdefghij"[len(labels) % 10] * size)
        left -= size + 1
    name = ".".join(labels)
    return name[:total - 1] + "t" if len(name) >= total else name


#: ``(name, pattern host, URL host or "", valid, advisory)``: each way a pattern host can break
#: §7's host rule (or sit exactly on its edge); the URL host, when given, is a URL the broken
#: pattern would match if it were read leniently — an invalid pattern matches nothing.
HOST_RULES: tuple[tuple[str, str, str, bool, str], ...] = (
    ("label-63", "b" * 63 + ".example.test", "b" * 63 + ".example.test", True, ""),
    ("label-64", "b" * 64 + ".example.test", "b" * 64 + ".example.test", False, ""),
    ("name-253", _labels(253), _labels(253), True, ""),
    ("name-254", _labels(254), _labels(254), False, ""),
    ("suffix-name-254", "*." + _labels(254), "www." + _labels(254), False, ""),
    ("empty-label", "a..example.test", "", False, ""),
    ("root-only", ".", "", False, ""),
    ("two-leading-wildcards", "*.*.example.test", "a.b.example.test", False, ""),
    ("two-leading-wildcards-ip", "*.*.192.0.2.1", "", False, ""),
    ("ipv6-then-query", "[2001:db8::1]?x]", "", False, ""),
    ("ipv6-then-backslash", "[2001:db8::1]\\x]", "", False, ""),
    ("ipv6-then-fragment", "[2001:db8::1]#x]", "[2001:db8::1]", False, ""),
    ("bang-label", "ex!ample.test", "ex!ample.test", False, _LDH_UNDECIDED),
    ("idn-double-hyphen", "ab--c\u00fc.example.test", "ab--c\u00fc.example.test", False, _HYPHEN_UNDECIDED),
    ("idn-leading-hyphen", "-\u00fc.example.test", "-\u00fc.example.test", False, _HYPHEN_UNDECIDED),
)


@template("permissions.pattern_hosts", params={"type": "object", "additionalProperties": False,
                                                "properties": {}})
def expand_pattern_hosts(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every way a pattern host breaks §7's host rule, and the DNS length edges (H5): a label
    of 63 and 64 characters, a name of 253 and 254, an empty label, two leading ``*.``, text
    after a bracketed IPv6 literal, a pattern with no path — each asked as a parse (valid or
    not) and, where a lenient reading would grant a URL, as a match against that URL (an
    invalid pattern matches nothing)."""
    rules = list(HOST_RULES)
    for scheme in ("http", "https", "*"):
        for host in ("files.example.test", "*.example.test", "[2001:db8::1]", "192.0.2.1"):
            url_host = host.removeprefix("*.")
            rules.append((f"no-path.{scheme.replace('*', 'any')}.{_key(host)}", host, url_host, False, ""))
    for name, host, url_host, valid, advisory in rules:
        no_path = name.startswith("no-path")
        scheme = name.split(".")[1].replace("any", "*") if no_path else "https"
        text = f"{scheme}://{host}" if no_path else f"{scheme}://{host}/*"
        why = ("§7 'scheme://host/path-glob': the path-glob is not optional" if no_path
               else _HOST_SENTENCE + ("; a DNS label holds 1–63 octets and a name at most 253 "
                                      "characters" if "label" in name or "name" in name else ""))
        state = "a valid" if valid else "not a"
        yield Instance(
            key=f"parse.{name}", title=f"{text[:90]!r} is {state} manifest v1 host permission ({name})",
            kind="permissions.parse", polarity="positive" if valid else "negative",
            given={"pattern": text}, expect={"valid": valid}, advisory=advisory, notes=why)
        if url_host:
            url = f"https://{url_host}/" if no_path else f"https://{url_host}/file.bin"
            yield Instance(
                key=f"match.{name}",
                title=f"{text[:60]!r} {'matches' if valid else 'grants nothing, not even'} {url[:60]}",
                kind="permissions.match", polarity="positive" if valid else "negative",
                given={"pattern": text, "url": url}, expect={"match": valid}, advisory=advisory,
                notes=why + ("" if valid else "; an invalid pattern fails closed: it matches no URL"))


# ----------------------------------------------------------------------------- glob literals

#: §7 (Chinese text, authoritative): "path-glob 针对 WHATWG 序列化的 pathname + search 匹配 …
#: * 是唯一 wildcard" — the glob is matched against the whole pathname + search, each ``*`` a run
#: of characters between the literals around it.
_GLOB_SENTENCE = "§7 'path-glob 针对 WHATWG 序列化的 pathname + search 匹配 … * 是唯一 wildcard'"
#: Characters of generated literals: ones the URL Standard keeps as written after a host and
#: that can form no dot segment, no query and no escape (so a text's pathname + search is
#: itself); two letters and the separator make overlaps between literals frequent.
_LITERAL_CHARS = "ab/"
#: Pattern hosts of the literal cases: each host kind of the grammar; URLs are on FILES.
_LITERAL_HOSTS = (("https", "exact", _FILES, _FILES), ("*", "suffix", "*.example.test", "example.test"),
                  ("http", "any", "*", ""))


def _word(rng: random.Random, low: int, high: int) -> str:
    return "".join(_pick(rng, _LITERAL_CHARS) for _ in range(rng.randint(low, high)))


def _overlapping_glob(rng: random.Random) -> tuple[list[str], list[tuple[str, str]]]:
    """Literals of a glob whose neighbours overlap, and ``(name, text)`` probes: texts that
    start with the prefix and end with the suffix but are too short to hold both (and a
    middle literal) one after another, texts that hold them exactly, and texts between."""
    first = "/" + _word(rng, 0, 3)
    k = rng.randint(1, len(first))  # the suffix begins with the prefix's last k characters
    last = first[-k:] + _word(rng, 0, 2)
    probes = [("overlap", first + last[k:]), ("exact", first + last),
              ("between", first + _word(rng, 1, 2) + last)]
    if rng.random() < 0.5:
        return [first, last], probes
    # a middle literal overlapping the prefix's end or the suffix's start
    if rng.random() < 0.5:
        j = rng.randint(1, len(first))
        middle = first[-j:] + _word(rng, 1, 2)
        probes = [("middle-overlaps-prefix", first + middle[j:] + last)]
    else:
        j = rng.randint(1, len(last))
        middle = _word(rng, 1, 2) + last[:j]
        probes = [("middle-overlaps-suffix", first + middle[:-j] + last)]
    probes += [("exact", first + middle + last), ("between", first + "a" + middle + "b" + last),
               ("overlap", first + last[k:])]
    return [first, middle, last], probes


@template("permissions.glob_literals", params=_COUNT)
def expand_glob_literals(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Path globs whose literal segments overlap (``/a/*a/b``, ``/ab*b*ba``) against texts that
    start with the prefix and end with the suffix while too short to hold the literals one
    after another, texts holding them exactly and texts with characters between, under each
    host kind (H5, §7).  A glob matches the whole pathname + search, so the literals may not
    share characters of the text: ``/foo*/foo`` does not match ``/foo``."""
    wanted = params.get("instances", 80)
    seen: set[tuple[str, str]] = set()
    for _ in range(wanted * 20):
        if len(seen) >= wanted:
            break
        literals, probes = _overlapping_glob(rng)
        glob = "*".join(literals)
        scheme, kind, written, host = _pick(rng, _LITERAL_HOSTS)
        p = pattern(f"{scheme}://{written}{glob}", scheme, kind, host, glob)
        name, text = _pick(rng, probes)
        u = _u("https" if scheme != "http" else "http", _FILES, text)
        if (p.text, u.text) in seen:
            continue
        seen.add((p.text, u.text))
        expected = model_match(p, u)
        yield Instance(
            key=f"{name}.{_key(p.text, u.text)}",
            title=f"{p.text} {'matches' if expected else 'does not match'} {u.text} "
                  f"({name.replace('-', ' ')}: literals {', '.join(map(repr, literals))})",
            kind="permissions.match",
            polarity="positive" if expected else "negative",
            given={"pattern": p.text, "url": u.text},
            expect={"match": expected},
            notes=f"{_GLOB_SENTENCE}: the text {text!r} ({len(text)} characters) against literals "
                  f"of {sum(map(len, literals))} characters that must follow one another",
        )


# ----------------------------------------------------------------------------- percent-hex case

#: §7 "并把百分号转义中的十六进制字母转为大写。禁止 percent-decode": the URL's pathname + search
#: has its percent-escape hex uppercased and is never decoded.
_HEX_SENTENCE = ("§7 'path-glob 针对 WHATWG 序列化的 pathname + search 匹配，并把百分号转义中的十六进制"
                 "字母转为大写。禁止 percent-decode'")
#: Whether a pattern's own escapes are uppercased too is not said: the sentence names what the
#: glob is matched against, not the glob.
PATTERN_HEX_UNDECIDED = (
    "§7 uppercases the percent-escape hex of the URL's pathname + search it matches against; "
    "whether a pattern's own lowercase escapes (%2f in the glob) are uppercased like it, or "
    "taken literally and so never match, is not said (the reference uppercases both)")
#: ``(escape, decoded character, what the URL Standard makes of the decoded character)``.
_ESCAPES = (("%2F", "/", "/"), ("%3A", ":", ":"), ("%C3%A9", "é", "%C3%A9"), ("%5B", "[", "["),
            ("%E2%82%AC", "€", "%E2%82%AC"))
_HEX_CASES = ("upper", "lower", "mixed")


def _hex_case(escape: str, case: str, rng: random.Random) -> str:
    if case == "upper":
        return escape.upper()
    if case == "lower":
        return escape.lower()
    spelled = "".join(c.lower() if c.isalpha() and rng.random() < 0.5 else c for c in escape)
    if spelled in (escape.upper(), escape.lower()):  # keep it mixed where the escape has letters
        letters = [i for i, c in enumerate(escape) if c.isalpha()]
        if len(letters) > 1:
            spelled = "".join(c.lower() if i == letters[0] else c.upper()
                              for i, c in enumerate(escape))
    return spelled


def upper_hex(text: str) -> str:
    """``text`` with the two hex digits of each ``%XX`` uppercased (§7), nothing decoded."""
    return re.sub(r"%[0-9a-fA-F]{2}", lambda m: m.group(0).upper(), text)


@template("permissions.percent_hex", params=_COUNT)
def expand_percent_hex(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Percent escapes spelled with uppercase, lowercase and mixed hex in the pattern's glob and
    in the URL's path or query, the decoded character and the escape escaped again (``%252F``) in
    the URL, under exact, prefix,
    suffix and query globs (H5, §7).  The URL side is decided (its hex is uppercased, never
    decoded); a case whose answer turns on uppercasing the pattern's own hex is advisory."""
    wanted = params.get("instances", 60)
    seen: set[tuple[str, str]] = set()
    for _ in range(wanted * 20):
        if len(seen) >= wanted:
            break
        escape, decoded, decoded_target = _pick(rng, _ESCAPES)
        before, after = "/" + _pick(rng, ("a", "dl", "s/x")), _pick(rng, ("b", "f.iso", "a/b"))
        query = rng.random() < 0.25
        if query:
            before = "/s?q=" + before[1:]
        pattern_case = _pick(rng, ("upper", "upper", "lower", "mixed"))
        url_case = _pick(rng, _HEX_CASES + ("decoded", "double"))
        in_glob = _hex_case(escape, pattern_case, rng)
        shape = _pick(rng, ("exact", "prefix", "suffix"))
        glob = {"exact": before + in_glob + after, "prefix": before + in_glob + "*",
                "suffix": "/*" + in_glob + after}[shape]
        if url_case == "decoded":
            written, target = before + decoded + after, before + decoded_target + after
        elif url_case == "double":  # the escape's own % escaped: %252F is not %2F
            written = before + "%25" + escape[1:] + after
            target = written
        else:
            written = before + _hex_case(escape, url_case, rng) + after
            target = upper_hex(written)
        p = pattern(f"https://{_FILES}{glob}", "https", "exact", _FILES, upper_hex(glob))
        u = Url(f"https://{_FILES}{written}", "https", _FILES, False, target)
        if (p.text, u.text) in seen:
            continue
        seen.add((p.text, u.text))
        expected = model_match(p, u)  # the pattern's hex uppercased: the reference's reading
        literal = glob_matches(glob, target)  # the glob taken as written: the other reading
        advisory = PATTERN_HEX_UNDECIDED if literal != expected else ""
        yield Instance(
            key=f"{shape}.{pattern_case}-{url_case}.{_key(p.text, u.text)}",
            title=f"{p.text} {'matches' if expected else 'does not match'} {u.text} "
                  f"({pattern_case} hex in the pattern, "
                  + {"decoded": "the decoded character", "double": "the escape escaped again"}.get(
                      url_case, f"{url_case} hex")
                  + f" in the URL{'s query' if query else ''})",
            kind="permissions.match",
            polarity="positive" if expected else "negative",
            given={"pattern": p.text, "url": u.text},
            expect={"match": expected},
            advisory=advisory,
            notes=f"{_HEX_SENTENCE}: pathname + search {target!r}, glob {glob!r}"
                  + (f" (as {p.glob!r} with its hex uppercased)" if p.glob != glob else ""),
        )


#: ``(escape's two hex digits, another byte's two digits in the same letter/digit shape)``:
#: two letters, a digit then a letter, a letter then a digit.
HEX_PAIRS = (("AB", "AC"), ("2F", "2E"), ("C3", "D3"))


def hex_spellings(digits: str) -> list[str]:
    """Every upper/lower spelling of two hex digits (``AB`` -> ``ab aB Ab AB``), in that order."""
    out = [""]
    for c in digits:
        out = [s + v for s in out for v in dict.fromkeys((c.lower(), c.upper()))]
    return out


def _shape(spelling: str) -> str:
    """A spelling's case as a key: ``d`` a digit, ``l`` a lowercase, ``u`` an uppercase letter."""
    return "".join("d" if c.isdigit() else "l" if c.islower() else "u" for c in spelling)


def _spelled_like(digits: str, like: str) -> str:
    return "".join(d.lower() if c.islower() else d for d, c in zip(digits, like, strict=True))


_HEX_PLACES = {"path": ("/dl/x", "/y"), "search": ("/s?q=x", "&z=1")}


@template("permissions.percent_hex_spellings", params={"type": "object",
                                                       "additionalProperties": False,
                                                       "properties": {}})
def expand_percent_hex_spellings(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every upper/lower combination of an escape's two hex digits (``%ab %aB %Ab %AB``, and
    the two spellings of a digit+letter and a letter+digit escape), exhaustively (H5, §7):

    Keys spell a spelling's case as ``d``/``l``/``u`` per digit (``%aB`` -> ``lu``).

    - ``match.<place>.<digits>.<glob case>-<url case>``: in the URL's path and in its search,
      against a prefix glob holding every spelling of the same escape; a glob spelled in
      uppercase is decided (the URL side's hex is uppercased), another spelling is advisory
      where the glob taken as written would answer otherwise (:data:`PATTERN_HEX_UNDECIDED`);
    - ``other.<place>.<digits>.<url case>``: the same spelling of another byte never matches;
    - ``redirect.<digits>.every``: one hop per spelling, all allowed;
      ``redirect.<digits>.<case>``: a hop so spelled allowed, then the same spelling of another
      byte refused at hop 1.
    """
    del params, rng  # exhaustive
    for digits, other in HEX_PAIRS:
        spellings = hex_spellings(digits)
        for place, (before, after) in _HEX_PLACES.items():
            for in_glob in spellings:
                glob = f"{before}%{in_glob}*"
                for in_url in spellings:
                    yield _hex_match(f"match.{place}.{digits.lower()}.{_shape(in_glob)}-{_shape(in_url)}", glob,
                                     f"{before}%{in_url}{after}", place)
            for in_url in hex_spellings(other):
                yield _hex_match(f"other.{place}.{digits.lower()}.{_shape(in_url)}", f"{before}%{digits}*",
                                 f"{before}%{in_url}{after}", place)
        granted = [f"https://{_FILES}/dl/x%{digits}*"]
        hops = [f"https://{_FILES}/dl/x%{s}/{k}" for k, s in enumerate(spellings)]
        yield Instance(
            key=f"redirect.{digits.lower()}.every", title=f"a {len(hops)}-hop chain through every "
            f"spelling of %{digits} is allowed by {granted[0]}", kind="permissions.redirect",
            polarity="positive", given={"patterns": granted, "hops": hops, "proxy": None},
            expect={"allowed": True}, notes=f"{_HEX_SENTENCE}: every hop's hex is uppercased")
        for s in spellings:
            refused = f"https://{_FILES}/dl/x%{_spelled_like(other, s)}/z"
            yield Instance(
                key=f"redirect.{digits.lower()}.{_shape(s)}", title=f"a hop spelled %{s} passes {granted[0]}, "
                f"the next hop (%{_spelled_like(other, s)}) is refused at hop 1",
                kind="permissions.redirect", polarity="negative",
                given={"patterns": granted, "hops": [f"https://{_FILES}/dl/x%{s}/a", refused],
                       "proxy": None},
                expect={"allowed": False, "refused_hop": 1, "code": _NOT_PERMITTED},
                notes=f"{_HEX_SENTENCE}: hop 0 is %{digits} once uppercased, hop 1 another byte")


def _hex_match(key: str, glob: str, written: str, place: str) -> Instance:
    p = pattern(f"https://{_FILES}{glob}", "https", "exact", _FILES, upper_hex(glob))
    u = Url(f"https://{_FILES}{written}", "https", _FILES, False, upper_hex(written))
    expected = model_match(p, u)
    literal = glob_matches(glob, upper_hex(written))
    return Instance(
        key=key, title=f"{p.text} {'matches' if expected else 'does not match'} {u.text} "
        f"(the escape in the URL's {place})", kind="permissions.match",
        polarity="positive" if expected else "negative",
        given={"pattern": p.text, "url": u.text}, expect={"match": expected},
        advisory=PATTERN_HEX_UNDECIDED if literal != expected else "",
        notes=f"{_HEX_SENTENCE}: pathname + search {upper_hex(written)!r}, glob {glob!r}")



# ----------------------------------------------------------------------------- trailing dots

_DOT_SENTENCE = "§7 'Matcher 对 DNS 名称执行小写和 IDNA 规范化，去掉一个结尾点'"
#: ``(key, pattern, host kind, pattern host, URL host as written before its dots, canonical)``:
#: the URL host equals or lies under the pattern host once one trailing dot is removed.
DOT_HOSTS = (
    ("exact", "https://files.example.test/dl/*", "exact", "files.example.test",
     "files.example.test", "files.example.test"),
    ("exact-upper", "https://files.example.test/dl/*", "exact", "files.example.test",
     "FILES.Example.TEST", "files.example.test"),
    ("exact-idn", "https://xn--bcher-kva.example/dl/*", "exact", "xn--bcher-kva.example",
     "bücher.example", "xn--bcher-kva.example"),
    ("suffix-sub", "*://*.example.test/dl/*", "suffix", "example.test",
     "a.files.example.test", "a.files.example.test"),
    ("suffix-apex", "https://*.files.example.test/dl/*", "suffix", "files.example.test",
     "files.example.test", "files.example.test"),
)
DOT_COUNTS = (0, 1, 2, 3)


def _dotted(canonical: str, dots: int) -> str:
    """The host the matcher compares: one trailing dot removed (§7), any further ones kept."""
    return canonical + "." * max(dots - 1, 0)


@template("permissions.trailing_dots", params={"type": "object", "additionalProperties": False,
                                               "properties": {}})
def expand_trailing_dots(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """URL hosts with 0–3 trailing dots, exhaustively, wherever the matcher reads a host (H5, §7):

    - ``match.<host>.<dots>``: a URL whose host is written with that many trailing dots against
      an exact or ``*.`` pattern host (:data:`DOT_HOSTS`): 0 and 1 match, 2 and 3 do not (one
      dot is removed, the host then ends in a dot no pattern host has);
    - ``redirect.len<n>.at<i>.<dots>``: a chain of ``n`` absolute hops inside the permissions,
      hop ``i`` spelled with that many dots: allowed for 0 and 1, refused at hop ``i`` for 2, 3;
    - ``redirect.len<n>.at<i>.<dots>.protocol-relative``: the same hop written ``//host./path``
      (resolved against the previous hop), for ``i`` ≥ 1.
    """
    del params, rng  # exhaustive
    for key, text, kind, host, written, canonical in DOT_HOSTS:
        p = pattern(text, text.split(":", 1)[0], kind, host, "/dl/*")
        for dots in DOT_COUNTS:
            u = Url(f"https://{written}{'.' * dots}/dl/f.iso", "https", _dotted(canonical, dots), False,
                    "/dl/f.iso")
            expected = model_match(p, u)
            yield Instance(
                key=f"match.{key}.{dots}", title=f"{p.text} {'matches' if expected else 'does not match'} "
                f"{u.text} ({dots} trailing dot{'s' if dots != 1 else ''})", kind="permissions.match",
                polarity="positive" if expected else "negative",
                given={"pattern": p.text, "url": u.text}, expect={"match": expected},
                notes=f"{_DOT_SENTENCE}: the host compared is {u.host!r}")
    granted = "https://files.example.test/dl/*"
    for length in (1, 2, 3):
        for at in range(length):
            forms = [("", "https:")] + ([(".protocol-relative", "")] if at else [])
            for dots in DOT_COUNTS:
                for suffix, scheme in forms:
                    hops = [f"https://files.example.test/dl/{k}" for k in range(length)]
                    hops[at] = f"{scheme}//files.example.test{'.' * dots}/dl/{at}"
                    allowed = dots <= 1
                    expect: dict[str, Any] = ({"allowed": True} if allowed else
                                              {"allowed": False, "refused_hop": at, "code": _NOT_PERMITTED})
                    yield Instance(
                        key=f"redirect.len{length}.at{at}.{dots}{suffix}",
                        title=f"a {length}-hop chain whose hop {at} names the host with {dots} trailing "
                        f"dot{'s' if dots != 1 else ''} is " + ("allowed" if allowed else f"refused at hop {at}"),
                        kind="permissions.redirect", polarity="positive" if allowed else "negative",
                        given={"patterns": [granted], "hops": hops, "proxy": None}, expect=expect,
                        notes=f"{_DOT_SENTENCE}; §7 '每次 redirect hop 必须使用同一个 matcher': hop {at}'s host "
                        f"is compared as {_dotted('files.example.test', dots)!r}")


from hookconf.harness.generate import task_source as _task_source  # noqa: E402,F401  (§9.4 templates)
