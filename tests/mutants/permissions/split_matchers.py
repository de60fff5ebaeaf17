"""Mutant (H5): resolver selection uses the structured matcher, redirects a substring check.

Each route on its own looks plausible; only comparing the routes, as the H5 oracle does,
shows that the candidate does not use one matcher (§7: the same matcher for every hop).
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate


class SplitMatchers(ReferenceCandidate):
    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-split-matchers"}

    def permissions_redirect(self, args: dict[str, Any]) -> dict[str, Any]:
        for index, hop in enumerate(args["hops"]):
            hosts = [p.split("://", 1)[-1].split("/", 1)[0].lstrip("*.") for p in args["patterns"]]
            if not any(h in hop for h in hosts):
                return {"allowed": False, "refused_hop": index,
                        "code": "plugin.http.host_not_permitted"}
        return {"allowed": True, "refused_hop": None, "code": None}


def factory() -> SplitMatchers:
    return SplitMatchers()
