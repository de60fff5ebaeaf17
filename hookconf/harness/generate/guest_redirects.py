"""Guest redirect chains (§7, H5): every hop of a guest's ``http`` call against the host permissions.

``guest.capability-redirects`` runs the ``hookconf.redirect-chain`` fixture in the candidate's
own worker.  Its manifest grants ``https://api.example/allowed/*`` and
``https://cdn.example/files/*``; the case's network answers the first URL with a redirect, and
each redirect target with the next, ``length`` redirects in all (1..:data:`MAX_LENGTH`).  One
redirect target is forbidden — at each position of the chain (first, middle, last) and of each
kind of :data:`FORBIDDEN` (another host, the granted host outside the path glob, a scheme the
grant does not name, a percent-escaped spelling of the granted path, embedded credentials) —
or none is (positive cases, whose targets are allowed spellings near each kind: another
granted host, a deeper path, the default port spelled out, an upper-case host, a percent-escape
inside the glob's wildcard).  The SDK method (``request``, ``get``, ``post``: each follows
redirects) cycles with the chain.

§7 decides each case: "Guest 初始 HTTP 请求和每次 redirect hop 必须使用同一个 matcher", the
call fails with ``plugin.http.host_not_permitted`` (§13) and the refused hop never leaves the
host — ``requests`` is exactly the hops before it.  A case is one ``guest.run`` with an
invocation per chain: per forbidden kind, one case with a chain for every length and position
(10 invocations) and one positive case with an allowed chain of every length (4), 10 cases in
all (a worker start costs more than a chain, so a case carries many).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hookconf.harness.generate import Instance, template

__all__ = ["ALLOWED_NEAR", "FIXTURE", "FORBIDDEN", "MAX_LENGTH", "positions"]

FIXTURE = "hookconf.redirect-chain"
#: The most redirects a generated chain has.
MAX_LENGTH = 4
_DENIED = "plugin.http.host_not_permitted"
#: The SDK methods that make a request and follow its redirects, cycled over the chains.
_METHODS = ("request", "get", "post")
#: A forbidden redirect target by kind, ``{c}`` the chain's tag and ``{n}`` the hop's position
#: (every URL of a case is distinct).  Each is spelled as the WHATWG parser serializes it
#: (the network answers by exact URL).
FORBIDDEN: dict[str, tuple[str, str]] = {
    "other-host": ("https://other.example/allowed/{c}/h{n}",
                   "a host no pattern names"),
    "other-path": ("https://api.example/private/{c}/h{n}",
                   "the granted host, a path outside the glob /allowed/*"),
    "scheme": ("http://api.example/allowed/{c}/h{n}",
               "http where the pattern names https only"),
    "percent-escaped": ("https://api.example/%61llowed/{c}/h{n}",
                        "/%61llowed/: the granted path's first letter percent-escaped, which the "
                        "matcher never decodes"),
    "userinfo": ("https://user:secret@api.example/allowed/{c}/h{n}",
                 "the granted host and path with embedded credentials"),
}
#: An allowed redirect target near each forbidden kind: ``(as the Location says it, as sent)``.
ALLOWED_NEAR: dict[str, tuple[str, str]] = {
    "other-host": ("https://cdn.example/files/{c}/h{n}", "https://cdn.example/files/{c}/h{n}"),
    "other-path": ("https://api.example/allowed/deeper/{c}/h{n}", "https://api.example/allowed/deeper/{c}/h{n}"),
    "scheme": ("https://api.example:443/allowed/{c}/h{n}", "https://api.example/allowed/{c}/h{n}"),
    "percent-escaped": ("https://api.example/allowed/%7e{c}/h{n}", "https://api.example/allowed/%7e{c}/h{n}"),
    "userinfo": ("https://API.example/allowed/{c}/h{n}", "https://api.example/allowed/{c}/h{n}"),
}
_SEVEN = ("§7 'Guest 初始 HTTP 请求和每次 redirect hop 必须使用同一个 matcher' and the matcher's "
          "rules: path-glob over the WHATWG pathname + search, '禁止 percent-decode', '* 仅表示 HTTP 与 "
          "HTTPS' per the pattern's scheme, '拒绝内嵌凭据', exact host by component; §13 "
          f"{_DENIED}; a refused hop is never sent")


def positions(length: int) -> list[tuple[int, str]]:
    """``(hop, label)`` for every redirect target of a chain of ``length`` redirects (1-based);
    the label is ``first``, ``middle`` or ``last`` (a one-redirect chain's only hop is ``first``)."""
    return [(n, "first" if n == 1 else "last" if n == length else "middle")
            for n in range(1, length + 1)]


def _allowed(tag: str, n: int) -> str:
    """The n-th allowed redirect target of chain ``tag``, alternating the two granted hosts."""
    return f"https://api.example/allowed/{tag}/h{n}" if n % 2 else f"https://cdn.example/files/{tag}/h{n}"


def _chain(tag: str, length: int, targets: dict[int, tuple[str, str]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The network of chain ``tag`` and its URLs as sent: its start URL then ``length``
    redirect targets, ``targets[n]`` (``(location, sent)``) replacing the default at hop n."""
    start = f"https://api.example/allowed/{tag}/start"
    hops = [(start, start)] + [targets.get(n, (_allowed(tag, n),) * 2) for n in range(1, length + 1)]
    network = []
    for index, (_, sent) in enumerate(hops):
        if index < length:
            network.append({"url": sent, "status": 302, "location": hops[index + 1][0]})
        else:
            network.append({"url": sent, "status": 200, "body": "done"})
    return network, [sent for _, sent in hops]


def _invocation(n: int, method: str, start: str) -> dict[str, Any]:
    from hookconf.harness.tables import example

    context = {**example("BeforeFinalizeContextV1"), "invocationId": f"inv-{n}"}
    return {"hook": "beforeFinalize", "context": context,
            "metadata": {"hookconf.http": {"method": method, "url": start}}}


def _given(chains: list[tuple[str, list[dict[str, Any]], list[str]]],
           timeout_ms: float | None) -> dict[str, Any]:
    """One ``guest.run``: an invocation per chain ``(method, network, sent)``, in one worker."""
    given: dict[str, Any] = {"plugin": FIXTURE,
                             "network": [route for _, network, _ in chains for route in network],
                             "invocations": [_invocation(n, method, sent[0])
                                             for n, (method, _, sent) in enumerate(chains, start=1)]}
    if timeout_ms is not None:
        given["timeoutMs"] = timeout_ms
    return given


@template("guest.capability-redirects", params={
    "type": "object", "additionalProperties": False,
    "properties": {"timeoutMs": {"type": "number", "exclusiveMinimum": 0}}})
def capability_redirects(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Guest redirect chains of 1..4 redirects.  Per kind of :data:`FORBIDDEN`, one case
    (``forbidden.<kind>``) runs a chain for every length and every position of the forbidden
    target in it (first, middle, last: 10 chains), each its own invocation: every call is
    refused with ``plugin.http.host_not_permitted`` and only the hops before the forbidden one
    are sent.  Per kind, one positive case (``allowed.<kind>``) runs a chain of every length
    whose targets are all allowed spellings near that kind: every call succeeds and sends every
    hop (§7, H5).  The invocations of a case share one worker (a worker start costs more than
    a chain)."""
    del rng  # exhaustive
    timeout_ms = params.get("timeoutMs")
    serial = 0

    def method() -> str:
        nonlocal serial
        serial += 1
        return _METHODS[(serial - 1) % len(_METHODS)]

    for kind, (url, why) in FORBIDDEN.items():
        chains, results, shown = [], [], []
        for length in range(1, MAX_LENGTH + 1):
            for hop, label in positions(length):
                tag = f"n{length}-{label}{hop}"
                target = url.format(c=tag, n=hop)
                network, sent = _chain(tag, length, {hop: (target, target)})
                chains.append((method(), network, sent))
                results.append({"code": None, "requests": sent[:hop], "requestsExclude": [target],
                                "logs": [{"message": "http", "fields": {"outcome": "refused", "code": _DENIED}}]})
                shown.append(f"invocation {len(shown)}: {length} redirect(s), the {label} one forbidden")
        yield Instance(
            f"forbidden.{kind}",
            f"http calls through 1-{MAX_LENGTH} redirects, one target ({why}) at each position "
            f"(first, middle, last): each refused with {_DENIED}, that hop never sent",
            "guest.run", "negative", _given(chains, timeout_ms), {"results": results},
            notes=f"{_SEVEN}; the forbidden target is {url.format(c='<chain>', n='<hop>')}; "
                  + "; ".join(shown))
        near, near_sent = ALLOWED_NEAR[kind]
        chains, results = [], []
        for length in range(1, MAX_LENGTH + 1):
            tag = f"n{length}-allowed"
            network, sent = _chain(tag, length, {n: (near.format(c=tag, n=n), near_sent.format(c=tag, n=n))
                                                 for n in range(1, length + 1)})
            chains.append((method(), network, sent))
            results.append({"code": None, "requests": sent, "logs": [
                {"message": "http", "fields": {"outcome": "accepted", "status": 200,
                                               "finalUrl": sent[-1], "redirected": True}}]})
        yield Instance(
            f"allowed.{kind}",
            f"http calls through 1-{MAX_LENGTH} redirects, every target an allowed spelling near "
            f"'{kind}' ({near.format(c='…', n=1)}): accepted, every hop sent",
            "guest.run", "positive", _given(chains, timeout_ms), {"results": results},
            notes=f"{_SEVEN}; every target here matches a granted pattern")
