"""Derive §7 permission cases from the WHATWG URL test data (web-platform-tests).

Usage::

    python scripts/derive_urltestdata.py PATH/TO/urltestdata.json REVISION \\
        > hookconf/corpus/cases/permissions/wpt-urltestdata.json

``REVISION`` names the vector file's revision (where it was synced from and when, and its
sha256 prefix); every derived case records it in ``source.revision`` so that a failure on a
platform URL parser older than that revision of the URL Standard is shown as such.

Run once by a contributor when the vectors change; hookconf never reads the vector file at
run time: the derived cases are committed.  Expectations come from the vector's own
expected components and the §7 rules, never from a matcher:

* an http(s) result without credentials is matched by a pattern built from its own
  canonical host and its serialised ``pathname + search`` (percent hex uppercased); the
  same pattern with the other web scheme, or with a host that differs by a label prefix,
  does not match; a relative input (with a base) is checked as a redirect from its base;
* a result with a username or password never matches, not even ``<all_urls>``;
* a ``failure: true`` input never matches (invalid URLs fail closed, §7);
* a result with any other scheme (file, ws, data, javascript, ftp, …) never matches.

Entries whose host is not a plain LDH DNS name or IP literal (the spec does not say how
such hosts compare) get only the fail-closed cases.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

VECTOR = "url/urltestdata.json"
#: The revision of the vector file being derived (set by :func:`main`).
REVISION = [""]
_LDH = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")
_PATTERN_PATH = re.compile(r"^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$")
_PERCENT = re.compile(r"%([0-9a-fA-F]{2})")


def _host_for_pattern(hostname: str) -> str | None:
    if hostname.startswith("[") and hostname.endswith("]"):
        return hostname
    if _IPV4.match(hostname):
        return hostname
    host = hostname[:-1] if hostname.endswith(".") else hostname
    return host if _LDH.match(host) else None


def _other_host(host: str) -> str:
    if host.startswith("["):
        return host[:-1] + "1]" if not host.endswith("1]") else host[:-2] + "2]"
    if _IPV4.match(host):
        octets = host.split(".")
        octets[-1] = str((int(octets[-1]) + 1) % 256)
        return ".".join(octets)
    return "x" + host


def _case(i: int, entry: dict, variant: str, kind: str, polarity: str, title: str,
          given: dict, expect: dict, note: str) -> dict:
    return {
        "id": f"perm.wpt.{i}.{variant}",
        "title": title,
        "invariants": ["H5"],
        "spec": "§7",
        "kind": kind,
        "polarity": polarity,
        "given": given,
        "expect": expect,
        "source": {"from": "vector", "ref": VECTOR, "entry": i, "input": entry["input"],
                   "revision": REVISION[0], "note": note},
    }


def _never_allowed(i: int, entry: dict, variant: str, what: str, note: str) -> list[dict]:
    """A URL that must never match: as a request (no base) or as a redirect from its base."""
    base, text = entry.get("base"), entry["input"]
    if base is None:
        return [_case(i, entry, variant, "permissions.match", "negative",
                      f"{what} never matches <all_urls>",
                      {"pattern": "<all_urls>", "url": text}, {"match": False}, note)]
    if _simple_base(base) is None:
        return []
    return [_case(i, entry, variant, "permissions.redirect", "negative",
                  f"redirect to {what} is refused",
                  {"patterns": ["<all_urls>"], "hops": [base, text], "proxy": None},
                  {"allowed": False, "refused_hop": 1, "code": "plugin.http.host_not_permitted"},
                  note)]


def derive(entries: list) -> list[dict]:
    cases: list[dict] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        base = entry.get("base")
        web_base = isinstance(base, str) and base.lower().startswith(("http://", "https://"))
        if base is not None and not web_base:
            continue
        text = entry["input"]
        if entry.get("failure"):
            cases += _never_allowed(i, entry, "fail-closed", f"unparsable URL {text!r}",
                                    "failure: true — the WHATWG parser rejects this input")
            continue
        scheme = entry["protocol"].rstrip(":")
        href = entry["href"]
        if scheme not in ("http", "https"):
            if base is None:
                cases.append(_case(i, entry, "scheme", "permissions.match", "negative",
                                   f"{scheme}: URL {href!r} never matches <all_urls>",
                                   {"pattern": "<all_urls>", "url": text}, {"match": False},
                                   f"parses to {href}; <all_urls> means http and https only"))
            continue
        if entry["username"] or entry["password"]:
            cases += _never_allowed(i, entry, "credentials", f"URL with credentials {href!r}",
                                    f"parses to {href}, which embeds credentials")
            continue
        host = _host_for_pattern(entry["hostname"])
        if host is None:
            continue
        path = _PERCENT.sub(lambda m: "%" + m.group(1).upper(), entry["pathname"] + entry["search"])
        if not _PATTERN_PATH.match(path):
            path = "/*"
        pattern = f"{scheme}://{host}{path}"
        note = (f"parses to {href}: host {entry['hostname']!r}, "
                f"pathname+search {entry['pathname'] + entry['search']!r}")
        if base is None:
            cases.append(_case(i, entry, "own-pattern", "permissions.match", "positive",
                               f"{text!r} matches a pattern of its own host and path",
                               {"pattern": pattern, "url": text}, {"match": True}, note))
            other = "https" if scheme == "http" else "http"
            cases.append(_case(i, entry, "other-scheme", "permissions.match", "negative",
                               f"{text!r} does not match the same pattern with scheme {other}",
                               {"pattern": f"{other}://{host}{path}", "url": text},
                               {"match": False}, note))
            cases.append(_case(i, entry, "other-host", "permissions.match", "negative",
                               f"{text!r} does not match a pattern for a different host",
                               {"pattern": f"*://{_other_host(host)}/*", "url": text},
                               {"match": False}, note))
        else:
            parsed_base = _simple_base(base)
            if parsed_base is None:
                continue
            base_scheme, base_host, base_path = parsed_base
            base_pattern = f"{base_scheme}://{base_host}{base_path}"
            hops = [base, text]
            note += f"; base {base!r}"
            cases.append(_case(i, entry, "redirect", "permissions.redirect", "positive",
                               f"redirect to {text!r} from {base!r} is checked where it resolves",
                               {"patterns": [base_pattern, pattern], "hops": hops, "proxy": None},
                               {"allowed": True}, note))
            if (scheme, host, path) != (base_scheme, base_host, base_path) and path != "/*":
                cases.append(_case(i, entry, "redirect-outside", "permissions.redirect", "negative",
                                   f"redirect to {text!r} from {base!r} leaves the base's permission",
                                   {"patterns": [base_pattern], "hops": hops, "proxy": None},
                                   {"allowed": False, "refused_hop": 1,
                                    "code": "plugin.http.host_not_permitted"}, note))
    return cases


_SIMPLE_BASE = re.compile(r"^(https?)://([a-z0-9.-]+)(/[^#?]*)?(\?[^#]*)?(#.*)?$")


def _simple_base(base: str) -> tuple[str, str, str] | None:
    """``(scheme, host, pathname+search)`` of a plain base URL; None for anything else."""
    m = _SIMPLE_BASE.match(base)
    if m is None or not _LDH.match(m.group(2)):
        return None
    return m.group(1), m.group(2), (m.group(3) or "/") + (m.group(4) or "")


def main(argv: list[str]) -> int:
    path = Path(argv[1])
    raw = path.read_bytes()
    REVISION[0] = f"{argv[2]} (sha256:{hashlib.sha256(raw).hexdigest()[:12]})"
    cases = derive(json.loads(raw))
    sys.stderr.write(f"{len(cases)} cases from {path.name} sha256:{hashlib.sha256(raw).hexdigest()}\n")
    json.dump(cases, sys.stdout, indent=2, ensure_ascii=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
