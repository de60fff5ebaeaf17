"""A model of §7 matching over components the generator chose itself.

The generated H5 cases need an expected answer that does not come from any matcher under
test.  This module states §7 in a few lines over values whose canonical form is known in
advance: the generator writes every URL from a table of spellings (``HostSpelling``,
``PATH_SPELLINGS``) whose canonical host and ``pathname + search`` were worked out by hand
from the URL Standard, so the model never parses a URL.  A test checks every spelling
against the WHATWG parser, so the tables hold only what they claim.

§7 as the model states it:

* the URL's scheme is one of the pattern's schemes (``*`` is http and https);
* the host: ``*`` matches every host; an exact host is equal to the canonical URL host; a
  ``*.`` suffix matches that host and its subdomains, never an IP literal;
* the path glob matches the whole ``pathname + search`` (percent hex uppercased, never
  decoded), ``*`` being the only wildcard;
* a pattern outside the grammar or a URL with credentials, another scheme or that does not
  parse never matches (fail closed); ports and the fragment play no part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DNS_HOSTS", "IDN_HOSTS", "IPV4_HOSTS", "IPV6_HOSTS", "PATH_SPELLINGS",
           "HostSpelling", "Pattern", "Url", "glob_matches", "model_match", "pattern"]

WEB = frozenset({"http", "https"})


@dataclass(frozen=True, slots=True)
class HostSpelling:
    """A host as written in a URL and the canonical host §7 compares (``[...]`` for IPv6)."""

    written: str
    canonical: str
    is_ip: bool


def _spellings(canonical: str, written: tuple[str, ...], *, is_ip: bool = False) -> tuple[HostSpelling, ...]:
    return tuple(HostSpelling(w, canonical, is_ip) for w in (canonical, *written))


#: DNS names: case, one trailing dot and fullwidth letters are canonicalised away.
DNS_HOSTS = (
    *_spellings("files.example.test", ("FILES.EXAMPLE.TEST", "Files.Example.Test",
                                       "files.example.test.", "ｆｉｌｅｓ.example.test")),
    *_spellings("cdn.example.net", ("CDN.example.net.",)),
    *_spellings("a-b.example.org", ("A-B.Example.Org",)),
    *_spellings("localhost", ("LOCALHOST",)),
)
#: IDNs: the URL may spell the A-label or the Unicode label, in any case.
IDN_HOSTS = (
    *_spellings("xn--bcher-kva.example", ("bücher.example", "BÜCHER.example",
                                          "XN--BCHER-KVA.EXAMPLE", "bücher.example.")),
    *_spellings("xn--mnchen-3ya.test", ("münchen.test", "MÜNCHEN.test")),
)
#: IPv4: the URL Standard reads decimal, octal, hex, short and single-number forms.
IPV4_HOSTS = (
    *_spellings("10.0.0.1", ("012.0.0.1", "0xa.0.0.1", "167772161", "10.1", "0x0A000001",
                             "10.0.0.1."), is_ip=True),
    *_spellings("127.0.0.1", ("0x7f.1", "2130706433", "127.1", "0177.0.0.1"), is_ip=True),
    *_spellings("192.0.2.7", ("0xc0.0.2.7", "3221225991", "192.0.519"), is_ip=True),
)
#: IPv6: every spelling serialises to the compressed lowercase form in brackets.
IPV6_HOSTS = (
    *_spellings("[2001:db8::1]", ("[2001:DB8::1]", "[2001:0db8:0000:0000:0000:0000:0000:0001]",
                                  "[2001:db8:0:0:0:0:0:1]"), is_ip=True),
    *_spellings("[::1]", ("[0:0:0:0:0:0:0:1]", "[::0:1]"), is_ip=True),
    *_spellings("[2001:db8::1:0:0:1]", ("[2001:db8:0:0:1:0:0:1]",), is_ip=True),
    *_spellings("[::ffff:a00:1]", ("[::ffff:10.0.0.1]",), is_ip=True),
)

#: ``(written, pathname + search)``: what the URL Standard makes of each path spelling after
#: a host (dot segments removed, ``\\`` read as ``/``, the fragment dropped, ``%2e%2e`` a dot
#: segment, percent hex uppercased by §7, nothing decoded).
PATH_SPELLINGS = (
    ("", "/"), ("/", "/"), ("/a", "/a"), ("/a/", "/a/"), ("/a/b", "/a/b"), ("/a/bc", "/a/bc"),
    ("/a/x/c", "/a/x/c"), ("/ab", "/ab"), ("/A/b", "/A/b"), ("/a/./b", "/a/b"),
    ("/a/x/../b", "/a/b"), ("/a%2fb", "/a%2Fb"), ("/a%2Fb", "/a%2Fb"), ("/a/b#frag", "/a/b"),
    ("/dl/f.iso", "/dl/f.iso"), ("/f.iso?x=1", "/f.iso?x=1"), ("/dl/f?x=1", "/dl/f?x=1"),
    ("?x=1", "/?x=1"), ("/a/b?x=1", "/a/b?x=1"), ("/a/b/c", "/a/b/c"), ("/a\\b", "/a/b"),
    ("/a/%2e%2e/b", "/b"), ("/a/b*", "/a/b*"), ("/f.iso#x.iso", "/f.iso"),
)


@dataclass(frozen=True, slots=True)
class Pattern:
    """A host permission as the generator wrote it.

    Attributes:
        text: the pattern string of the case.
        schemes: URL schemes it admits.
        host_kind: ``"any"``, ``"exact"`` or ``"suffix"``.
        host: the canonical host (the suffix without ``*.``; ``""`` for any).
        glob: the path glob (``*`` the only wildcard).
        valid: False for a pattern outside the §7 grammar (it never matches).
    """

    text: str
    schemes: frozenset[str]
    host_kind: str
    host: str
    glob: str
    valid: bool = True


def pattern(text: str, scheme: str, host_kind: str, host: str, glob: str, *,
            valid: bool = True) -> Pattern:
    """A :class:`Pattern`; ``scheme`` as written in the pattern (``*``, ``http``, ``https``)."""
    return Pattern(text, WEB if scheme == "*" else frozenset({scheme}), host_kind, host, glob,
                   valid)


@dataclass(frozen=True, slots=True)
class Url:
    """A URL as the generator wrote it, with the components the URL Standard gives it.

    ``valid`` is False for a URL §7 refuses whatever the pattern (credentials, a scheme
    other than http/https, a URL that does not parse); the other fields are then unused.
    """

    text: str
    scheme: str
    host: str
    is_ip: bool
    target: str
    valid: bool = True

    def explain(self, p: Pattern) -> str:
        """One line a reviewer can check the expectation against."""
        if not self.valid:
            return "the URL embeds credentials, is not http(s) or does not parse: fail closed"
        if not p.valid:
            return "the pattern is outside the manifest v1 grammar: fail closed"
        return (f"URL scheme {self.scheme}, host {self.host}, pathname+search {self.target!r}; "
                f"pattern schemes {'/'.join(sorted(p.schemes))}, {p.host_kind} host "
                f"{p.host or '*'}, glob {p.glob!r}")


def glob_matches(glob: str, target: str) -> bool:
    """The whole ``target`` against ``glob``: ``*`` any run of characters, all else literal."""
    regex = ".*".join(re.escape(part) for part in glob.split("*"))
    return re.fullmatch(regex, target, re.DOTALL) is not None


def model_match(p: Pattern, u: Url) -> bool:
    """§7: scheme, then host, then path glob; invalid on either side never matches."""
    if not (p.valid and u.valid) or u.scheme not in p.schemes:
        return False
    if p.host_kind == "exact":
        host_ok = u.host == p.host
    elif p.host_kind == "suffix":
        host_ok = not u.is_ip and (u.host == p.host or u.host.endswith("." + p.host))
    else:
        host_ok = True
    return host_ok and glob_matches(p.glob, u.target)
