"""The ordinary task-source admission policy for download URLs (§9.4, invariant H17).

A URL that a ``beforeCreate`` hook returns is admitted exactly as a user-provided URL would
be: supported scheme, no embedded credentials, within the §9.1 URL limit.  The returning
plugin's network ``hostPermissions`` play no part — they authorise the plugin's own HTTP
requests (§7), not the URL handed to the download engine.  That is why :func:`admit` takes
no permissions at all: H17 holds by construction.

Rejections carry ``plugin.hook.output_invalid`` (§13): the hook produced an effect the host
does not accept.

:func:`admit_patch` applies the policy to every URL a ``beforeCreate`` patch returns (each
``uris`` item; the list is non-empty and within the §9.1 count).  The remote-operator /
private-network policy (§9.4 names it without defining it) is modelled as: for a request of
a remote operator (``operator="remote"``, the Server shell's remote API), a host in the
loopback, private or link-local address space, or a name for the local host, is refused; a
local user's request may name any host.  Which ranges count beyond RFC 1918, loopback and
link-local (unique-local IPv6, shared address space, IPv4-mapped forms, ``localhost``) is
this reference's choice.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import ada_url

from hookconf.reference.errors import ErrorCode
from hookconf.reference.schemas.limits import limit, utf8_len

__all__ = ["PRIVATE_NETWORKS", "SUPPORTED_SCHEMES", "Admission", "Operator", "admit",
           "admit_patch", "is_private_host"]

#: Schemes the download engine accepts as a task source for a URL-list request.
SUPPORTED_SCHEMES = frozenset({"http", "https", "ftp", "sftp"})

#: Who asked for the download: the local user, or a remote operator of the Server shell.
Operator = Literal["local", "remote"]

#: Address space a remote operator's task may not reach (§9.4 private-network policy).
PRIVATE_NETWORKS = tuple(ipaddress.ip_network(n) for n in (
    "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16",
    "172.16.0.0/12", "192.168.0.0/16", "::/128", "::1/128", "fc00::/7", "fe80::/10",
))
_LOCAL_NAMES = ("localhost",)


@dataclass(frozen=True, slots=True)
class Admission:
    """Decision on one candidate download URL.

    Attributes:
        admitted: True when the URL may be handed to the download engine.
        code: ``plugin.hook.output_invalid`` when refused, else None.
        reason: a short human-readable reason when refused.
    """

    admitted: bool
    code: ErrorCode | None = None
    reason: str = ""

    @classmethod
    def refuse(cls, reason: str) -> Admission:
        return cls(False, ErrorCode.OUTPUT_INVALID, reason)


def admit(url: str, *, operator: Operator = "local") -> Admission:
    """Admit or refuse a hook-returned download URL by the ordinary task-source policy (§9.4).

    Refused: more than ``url_bytes`` (16,384) UTF-8 bytes (§9.1, inclusive bound); a URL the
    WHATWG parser rejects; a scheme outside :data:`SUPPORTED_SCHEMES`; a username or
    password in the URL; for a ``remote`` operator, a private-network host
    (:func:`is_private_host`).
    """
    if not isinstance(url, str) or not url:
        return Admission.refuse("the URL must be a non-empty string")
    size = utf8_len(url)
    if size > limit("url_bytes"):
        return Admission.refuse(f"URL is {size} bytes; the limit is {limit('url_bytes')}")
    try:
        parts = ada_url.parse_url(url)
    except ValueError:
        return Admission.refuse("not a valid URL")
    scheme = parts["protocol"].removesuffix(":")
    if scheme not in SUPPORTED_SCHEMES:
        return Admission.refuse(f"scheme {scheme!r} is not a supported task source")
    if parts["username"] or parts["password"]:
        return Admission.refuse("embedded credentials are rejected")
    if operator == "remote" and is_private_host(parts["hostname"]):
        return Admission.refuse(f"host {parts['hostname']!r} is on a private network")
    return Admission(True)


def is_private_host(hostname: str) -> bool:
    """True for a WHATWG-canonical host in :data:`PRIVATE_NETWORKS` (IPv4-mapped IPv6 by its
    IPv4 address) or a name of the local host (``localhost`` and its subdomains)."""
    name = hostname.removesuffix(".").lower()
    if any(name == n or name.endswith("." + n) for n in _LOCAL_NAMES):
        return True
    try:
        address = ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in PRIVATE_NETWORKS
               if network.version == address.version)


def admit_patch(patch: Mapping[str, Any], *, operator: Operator = "local") -> tuple[Admission, str]:
    """Admit every download URL a ``beforeCreate`` patch returns (§9.4: "each passes").

    ``patch`` is a ``BeforeCreatePatchV1`` object; its ``uris`` (when present) must be a
    non-empty list of at most ``urls_per_request`` (128) URLs, each admitted by :func:`admit`.
    Returns the decision and the JSON pointer of the refused value (``""`` when admitted).
    """
    if "uris" not in patch:
        return Admission(True), ""
    uris = patch["uris"]
    if not isinstance(uris, list) or not uris:
        return Admission.refuse("the final URI list must not be empty"), "/uris"
    if len(uris) > limit("urls_per_request"):
        return (Admission.refuse(f"{len(uris)} URLs; the limit is {limit('urls_per_request')}"),
                "/uris")
    for index, url in enumerate(uris):
        decision = admit(url, operator=operator)
        if not decision.admitted:
            return decision, f"/uris/{index}"
    return Admission(True), ""
