"""Mutants (H5): a redirect chain checked at one hop only, or its refused hop misnumbered.

Each is a plausible shortcut in an HTTP client's redirect handling; §7 wants the initial
request and every redirect hop checked with the same matcher, and ``refused_hop`` is the
index of the first hop refused (0 is the initial request).
"""

from typing import Any

import ada_url

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.permissions.matcher import PatternSet, check_request


def _resolved(hops: list[str]) -> list[str]:
    """Each hop resolved against the previous one, as the client follows them."""
    out: list[str] = []
    for hop in hops:
        try:
            out.append(hop if not out else ada_url.join_url(out[-1], hop))
        except ValueError:
            out.append(hop)
    return out


class _Redirects(ReferenceCandidate):
    name = "redirect"

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": f"mutant-{self.name}"}

    def answer(self, patterns: PatternSet, hops: list[str]) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def permissions_redirect(self, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("proxy") is not None:
            return super().permissions_redirect(args)
        return self.answer(PatternSet.from_strings(args["patterns"]), list(args["hops"]))


def _refused(index: int) -> dict[str, Any]:
    return {"allowed": False, "refused_hop": index, "code": "plugin.http.host_not_permitted"}


class FirstHopOnly(_Redirects):
    """Checks the request URL; redirects are followed unchecked."""

    name = "first-hop-only"

    def answer(self, patterns: PatternSet, hops: list[str]) -> dict[str, Any]:
        if not check_request(patterns, hops[:1]).allowed:
            return _refused(0)
        return {"allowed": True, "refused_hop": None, "code": None}


class LastHopOnly(_Redirects):
    """Follows every redirect, then checks only the URL it ends at."""

    name = "last-hop-only"

    def answer(self, patterns: PatternSet, hops: list[str]) -> dict[str, Any]:
        final = _resolved(hops)[-1]
        if not check_request(patterns, [final]).allowed:
            return _refused(len(hops) - 1)
        return {"allowed": True, "refused_hop": None, "code": None}


class RefusedHopOffByOne(_Redirects):
    """Checks every hop but reports the refused one counted from 1."""

    name = "refused-hop-off-by-one"

    def answer(self, patterns: PatternSet, hops: list[str]) -> dict[str, Any]:
        decision = check_request(patterns, hops)
        if decision.allowed:
            return {"allowed": True, "refused_hop": None, "code": None}
        return _refused((decision.refused_hop or 0) + 1)


first_hop_only = FirstHopOnly
last_hop_only = LastHopOnly
refused_hop_off_by_one = RefusedHopOffByOne
