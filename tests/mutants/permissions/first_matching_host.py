"""Mutant (H5): of several host permissions, only the first for the URL's host is consulted.

A plausible "find the permission for this host, then check its path" lookup: with
``https://h/a/*`` and ``https://h/a/b*`` (or the same host listed twice with different
globs) a URL that only the later pattern allows is refused.  §7 grants what any valid
pattern matches.
"""

from dataclasses import dataclass, replace
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.permissions.matcher import (
    HostPattern,
    InvalidUrl,
    PatternSet,
    RequestUrl,
    check_request,
    glob_match,
    parse_url,
)


def _host_matches(p: HostPattern, url: RequestUrl) -> bool:
    return replace(p, path_glob="*").matches(url)  # scheme and host only


@dataclass(frozen=True, slots=True)
class FirstForHost(PatternSet):
    def matches(self, url: str | RequestUrl) -> bool:
        if isinstance(url, str):
            try:
                url = parse_url(url)
            except InvalidUrl:
                return False
        for p in self.patterns:
            if _host_matches(p, url):
                return glob_match(p.path_glob, url.path_and_query)
        return False


class FirstMatchingHost(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-first-matching-host"}

    def permissions_match_any(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"match": FirstForHost.from_strings(args["patterns"]).matches(args["url"])}

    def permissions_redirect(self, args: dict[str, Any]) -> dict[str, Any]:
        decision = check_request(FirstForHost.from_strings(args["patterns"]), args["hops"],
                                 args.get("proxy"))
        return {"allowed": decision.allowed, "refused_hop": decision.refused_hop,
                "code": None if decision.code is None else str(decision.code)}


def factory() -> FirstMatchingHost:
    return FirstMatchingHost()
