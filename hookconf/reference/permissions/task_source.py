"""The ordinary task-source admission policy for download URLs (§9.4, invariant H17).

A URL that a ``beforeCreate`` hook returns is admitted exactly as a user-provided URL would
be: supported scheme, no embedded credentials, within the §9.1 URL limit.  The returning
plugin's network ``hostPermissions`` play no part — they authorise the plugin's own HTTP
requests (§7), not the URL handed to the download engine.  That is why :func:`admit` takes
no permissions at all: H17 holds by construction.

Rejections carry ``plugin.hook.output_invalid`` (§13): the hook produced an effect the host
does not accept.

Not modelled yet: the remote-operator/private-network policy of the Server shell, which
depends on the request's provenance (§9.4).
"""

from __future__ import annotations

from dataclasses import dataclass

import ada_url

from hookconf.reference.errors import ErrorCode
from hookconf.reference.schemas.limits import limit, utf8_len

__all__ = ["SUPPORTED_SCHEMES", "Admission", "admit"]

#: Schemes the download engine accepts as a task source for a URL-list request.
SUPPORTED_SCHEMES = frozenset({"http", "https", "ftp", "sftp"})


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


def admit(url: str) -> Admission:
    """Admit or refuse a hook-returned download URL by the ordinary task-source policy (§9.4).

    Refused: more than ``url_bytes`` (16,384) UTF-8 bytes (§9.1, inclusive bound); a URL the
    WHATWG parser rejects; a scheme outside :data:`SUPPORTED_SCHEMES`; a username or
    password in the URL.
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
    return Admission(True)
