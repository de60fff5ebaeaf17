"""Structured host-permission matching (§7): one matcher for selection, requests and redirects.

A manifest v1 host permission has the form ``scheme://host/path-glob`` or is ``<all_urls>``.
Each pattern is parsed once into a frozen :class:`HostPattern`; a URL is parsed once with the
WHATWG parser (``ada_url``, the parser Node and Electron use) into a :class:`RequestUrl`.
Matching compares components; no regular expression ever runs over the raw URL text.

The same :func:`PatternSet.matches` decides ``beforeCreate`` resolver selection (§6 rule 5),
immediate activation, the first guest HTTP request and every redirect hop
(:func:`check_request`) — invariant H5.

Fails closed (never matches, never raises out of :meth:`PatternSet.matches`):

* a pattern that does not parse (:class:`InvalidPattern`): a scheme other than ``http``,
  ``https`` or ``*``; userinfo; any port; a wildcard anywhere but a whole host ``*``, a leading
  ``*.`` label or the path glob; a wildcard inside IPv6 brackets; a suffix wildcard over an IP
  address; a host that is not a canonical DNS name or IP literal; a path that does not start
  with ``/`` or that contains a fragment, whitespace, control or non-ASCII characters;
* a URL that the WHATWG parser rejects, whose scheme is not ``http``/``https``, or that embeds
  a username or password.

Normalisation on both sides: DNS names lowercased and IDNA-mapped (UTS #46, as the WHATWG
host parser does; ``idna`` checks pattern labels), one trailing DNS dot removed, IPv4 and IPv6
literals in WHATWG canonical form, default ports dropped (ports never restrict a v1 pattern),
the fragment ignored, and percent-escape hex digits uppercased in the path and query.  Path
and query are never percent-decoded, so ``%2F`` stays distinct from ``/``.

Choices where §7 is silent (no corpus case asserts them): the pattern scheme and host are
case-insensitive; a pattern's own trailing host dot is removed like a URL's; underscores are
allowed in ASCII host labels; a pattern path is taken literally (not WHATWG-normalised), so a
character the URL serialiser would percent-encode makes the pattern invalid.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

import ada_url
import idna

from hookconf.reference.errors import ErrorCode

__all__ = [
    "ALL_URLS",
    "HostKind",
    "HostPattern",
    "InvalidPattern",
    "InvalidUrl",
    "PatternSet",
    "RequestDecision",
    "RequestUrl",
    "check_request",
    "match",
    "parse_pattern",
    "parse_url",
]

ALL_URLS = "<all_urls>"
_WEB_SCHEMES = frozenset({"http", "https"})
_PERCENT_HEX = re.compile(r"%([0-9a-fA-F]{2})")
_ASCII_LABEL = re.compile(r"^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$")
_PATH_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    "-._~!$&'()*+,;=:@/?%[]"
)
_MAX_DNS_NAME = 253
#: The URL components §7 compares (asking ada for fewer attributes keeps matching cheap).
_URL_PARTS = ("href", "username", "password", "protocol", "hostname", "pathname", "search",
              "host_type")


class InvalidPattern(ValueError):
    """A host-permission pattern that §7 does not accept; the pattern never matches."""


class InvalidUrl(ValueError):
    """A URL the matcher refuses: unparsable, not http(s), or with embedded credentials."""


class HostKind(Enum):
    """What a pattern's host component matches (§7)."""

    ANY = "any"  # "*": every host
    EXACT = "exact"  # one canonical DNS name or IP literal, compared for equality
    SUFFIX = "suffix"  # "*.example.test": the suffix itself and its subdomains


@dataclass(frozen=True, slots=True)
class HostPattern:
    """A parsed manifest v1 host permission.

    Attributes:
        text: the pattern as written.
        schemes: the URL schemes it admits, a subset of ``{"http", "https"}``.
        host_kind: how ``host`` is compared.
        host: canonical host (``""`` for :attr:`HostKind.ANY`); a suffix without its ``*.``.
        path_glob: glob over ``pathname + search`` with percent hex uppercased; ``*`` is the
            only wildcard.
    """

    text: str
    schemes: frozenset[str]
    host_kind: HostKind
    host: str
    path_glob: str

    def matches(self, url: RequestUrl) -> bool:
        """True when ``url`` is inside this permission (§7): scheme, host, then path glob."""
        if url.scheme not in self.schemes:
            return False
        if self.host_kind is HostKind.EXACT:
            host_ok = url.host == self.host
        elif self.host_kind is HostKind.SUFFIX:
            host_ok = not url.is_ip and (
                url.host == self.host or url.host.endswith("." + self.host)
            )
        else:
            host_ok = True
        return host_ok and glob_match(self.path_glob, url.path_and_query)


@dataclass(frozen=True, slots=True)
class RequestUrl:
    """A URL reduced to what §7 compares.

    Attributes:
        scheme: ``"http"`` or ``"https"``.
        host: canonical host: lowercase ASCII DNS name without one trailing dot, dotted-quad
            IPv4, or bracketed canonical IPv6.
        is_ip: True for IPv4 and IPv6 hosts (they have no subdomains).
        path_and_query: WHATWG-serialised ``pathname + search``, percent hex uppercased.
        href: the WHATWG serialisation, for diagnostics.
    """

    scheme: str
    host: str
    is_ip: bool
    path_and_query: str
    href: str


def uppercase_percent_hex(text: str) -> str:
    """Uppercase the two hex digits of every ``%XX`` escape; nothing is decoded (§7)."""
    return _PERCENT_HEX.sub(lambda m: "%" + m.group(1).upper(), text)


def glob_match(glob: str, text: str) -> bool:
    """Anchored glob match where ``*`` matches any run of characters, ``/`` and ``?`` included.

    Every other character is literal.  Runs in O(len(glob) * len(text)) without backtracking
    blow-up: literal segments are matched left to right with ``str.find``.
    """
    parts = glob.split("*")
    if len(parts) == 1:
        return glob == text
    first, *middle, last = parts
    if not text.startswith(first) or len(text) < len(first) + len(last):
        return False
    if not text.endswith(last):
        return False
    pos = len(first)
    end = len(text) - len(last)
    for part in middle:
        found = text.find(part, pos, end)
        if found < 0:
            return False
        pos = found + len(part)
    return True


def parse_url(url: str, base: str | None = None) -> RequestUrl:
    """Parse ``url`` (resolved against ``base`` when given) for matching.

    Raises:
        InvalidUrl: the WHATWG parser rejects it, its scheme is not http/https, or it
            carries a username or password (§7 rejects embedded credentials).
    """
    try:
        absolute = url if base is None else ada_url.join_url(base, url)
        parts = ada_url.parse_url(absolute, attributes=_URL_PARTS)
    except ValueError as exc:
        raise InvalidUrl(f"not a valid URL: {url!r}") from exc
    scheme = parts["protocol"].removesuffix(":")
    if scheme not in _WEB_SCHEMES:
        raise InvalidUrl(f"scheme {scheme!r} is not http or https")
    if parts["username"] or parts["password"]:
        raise InvalidUrl("embedded credentials are rejected")
    host_type = parts["host_type"]
    is_ip = host_type in (ada_url.HostType.IPV4, ada_url.HostType.IPV6)
    host = parts["hostname"]
    if not is_ip and host.endswith("."):
        host = host[:-1]
    return RequestUrl(
        scheme=scheme,
        host=host,
        is_ip=is_ip,
        path_and_query=uppercase_percent_hex(parts["pathname"] + parts["search"]),
        href=parts["href"],
    )


def _canonical_host(text: str) -> tuple[str, bool]:
    """Canonicalise a pattern host with the URL parser; returns ``(host, is_ip)``."""
    if not text or any(c in text for c in "@:/\\?#%*") and not text.startswith("["):
        raise InvalidPattern(f"host {text!r} is not a DNS name or IP literal")
    try:
        parts = ada_url.parse_url(f"http://{text}/")
    except ValueError as exc:
        raise InvalidPattern(f"host {text!r} does not parse") from exc
    if parts["port"] or parts["pathname"] != "/" or parts["search"] or parts["hash"] \
            or parts["username"]:
        raise InvalidPattern(f"host {text!r} is not a bare host")
    host_type = parts["host_type"]
    if host_type in (ada_url.HostType.IPV4, ada_url.HostType.IPV6):
        return parts["hostname"], True
    if text.startswith("["):
        raise InvalidPattern(f"{text!r} is not an IPv6 literal")
    host = parts["hostname"].removesuffix(".")
    _check_dns_name(host, text)
    return host, False


def _check_dns_name(host: str, written: str) -> None:
    """Require an LDH (plus ``_``) DNS name; a Unicode name must map alike under IDNA and WHATWG.

    A-labels (``xn--``) are taken as the URL parser canonicalises them: the pattern host must
    equal what the platform parser makes of the same text, nothing stricter.
    """
    if not host or len(host) > _MAX_DNS_NAME:
        raise InvalidPattern(f"host {written!r} is not a DNS name")
    for label in host.split("."):
        if not _ASCII_LABEL.match(label):
            raise InvalidPattern(f"host {written!r} has an invalid label {label!r}")
    written_host = written.removesuffix(".").lower()
    if not written_host.isascii():
        try:
            expected = idna.encode(written_host, uts46=True).decode("ascii")
        except idna.IDNAError as exc:
            raise InvalidPattern(f"host {written!r} is not a valid IDNA name") from exc
        if expected != host:
            raise InvalidPattern(f"host {written!r} maps differently under IDNA and WHATWG")


def parse_pattern(text: str) -> HostPattern:
    """Parse one manifest v1 host permission (§7).

    Raises:
        InvalidPattern: the pattern is outside the v1 grammar (see the module docstring).
    """
    if text == ALL_URLS:
        return HostPattern(text, _WEB_SCHEMES, HostKind.ANY, "", "/*")
    scheme, sep, rest = text.partition("://")
    if not sep:
        raise InvalidPattern(f"{text!r} has no '://'")
    scheme = scheme.lower()
    if scheme == "*":
        schemes = _WEB_SCHEMES
    elif scheme in _WEB_SCHEMES:
        schemes = frozenset({scheme})
    else:
        raise InvalidPattern(f"scheme {scheme!r} is not http, https or *")
    slash = rest.find("/")
    if slash < 0:
        raise InvalidPattern(f"{text!r} has no path")
    host_text, path = rest[:slash], rest[slash:]
    kind, host = _parse_host_component(host_text)
    return HostPattern(text, schemes, kind, host, _parse_path_glob(path))


def _parse_host_component(host_text: str) -> tuple[HostKind, str]:
    if host_text == "*":
        return HostKind.ANY, ""
    if "@" in host_text:
        raise InvalidPattern("a pattern cannot carry credentials")
    if host_text.startswith("["):
        if "*" in host_text or not host_text.endswith("]"):
            raise InvalidPattern(f"{host_text!r}: an IPv6 literal is exact, with no port")
        host, is_ip = _canonical_host(host_text)
        return HostKind.EXACT, host
    if ":" in host_text:
        raise InvalidPattern("manifest v1 patterns have no port")
    if host_text.startswith("*."):
        suffix = host_text[2:]
        if "*" in suffix:
            raise InvalidPattern(f"{host_text!r}: only one leading '*.' is allowed")
        host, is_ip = _canonical_host(suffix)
        if is_ip:
            raise InvalidPattern(f"{host_text!r}: an IP address has no subdomains")
        return HostKind.SUFFIX, host
    if "*" in host_text:
        raise InvalidPattern(f"{host_text!r}: '*' is a whole host or a leading '*.' label")
    host, _ = _canonical_host(host_text)
    return HostKind.EXACT, host


def _parse_path_glob(path: str) -> str:
    bad = [c for c in path if c not in _PATH_CHARS]
    if bad:
        raise InvalidPattern(f"path {path!r} has a character URLs never carry: {bad[0]!r}")
    return uppercase_percent_hex(path)


@dataclass(frozen=True, slots=True)
class PatternSet:
    """A plugin's host permissions, each parsed once; invalid ones are kept aside and inert.

    Attributes:
        patterns: the valid patterns, in manifest order.
        invalid: ``(text, reason)`` for every pattern that failed to parse (fails closed).
    """

    patterns: tuple[HostPattern, ...]
    invalid: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_strings(cls, texts: Iterable[str]) -> PatternSet:
        """Parse every pattern once; an invalid one grants nothing and is recorded."""
        valid: list[HostPattern] = []
        invalid: list[tuple[str, str]] = []
        for text in texts:
            try:
                valid.append(parse_pattern(text))
            except InvalidPattern as exc:
                invalid.append((text, str(exc)))
        return cls(tuple(valid), tuple(invalid))

    def matches(self, url: str | RequestUrl) -> bool:
        """True when some valid pattern matches ``url``; an invalid URL never matches."""
        if isinstance(url, str):
            try:
                url = parse_url(url)
            except InvalidUrl:
                return False
        return any(p.matches(url) for p in self.patterns)


def match(pattern: str, url: str) -> bool:
    """One pattern against one URL (§7); invalid pattern or URL → False."""
    return PatternSet.from_strings([pattern]).matches(url)


@dataclass(frozen=True, slots=True)
class RequestDecision:
    """The verdict on a guest HTTP request and its redirect chain (§7).

    Attributes:
        allowed: every hop matched and no guest proxy was asked for.
        code: ``plugin.hook.permission_denied`` for a guest-chosen proxy,
            ``plugin.http.host_not_permitted`` for a refused hop; None when allowed.
        refused_hop: index of the first refused hop (0 is the initial request).
    """

    allowed: bool
    code: ErrorCode | None = None
    refused_hop: int | None = None


def check_request(
    patterns: PatternSet, hops: Sequence[str], proxy: str | None = None
) -> RequestDecision:
    """Check a guest request: the initial URL and every redirect hop with the same matcher.

    ``hops[0]`` is the absolute request URL; each later hop is a ``Location`` value resolved
    against the previous hop's URL (so relative and protocol-relative redirects are checked
    on what they resolve to).  A guest-supplied proxy is refused whatever its host: target
    host permission is not proxy-endpoint permission (§7).  An empty chain is refused: there
    is nothing to authorise.
    """
    if proxy is not None:
        return RequestDecision(False, ErrorCode.PERMISSION_DENIED, 0)
    if not hops:
        return RequestDecision(False, ErrorCode.HOST_NOT_PERMITTED, 0)
    previous: str | None = None
    for index, hop in enumerate(hops):
        try:
            url = parse_url(hop, base=previous)
        except InvalidUrl:
            return RequestDecision(False, ErrorCode.HOST_NOT_PERMITTED, index)
        if not patterns.matches(url):
            return RequestDecision(False, ErrorCode.HOST_NOT_PERMITTED, index)
        previous = url.href
    return RequestDecision(True)
