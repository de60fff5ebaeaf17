"""§15 HTTP URL diagnostics: the log copy of a URL and the records an HTTP ``beforeCreate``
leaves in each participating plugin's log.

Every plugin taking part in an HTTP task's ``beforeCreate`` chain gets host-written records
keyed by ``taskId`` (§15, "HTTP URL 诊断"): ``beforeCreate.input`` (the URIs it was given),
``beforeCreate.output`` (the URIs it returned) or ``beforeCreate.error`` (its §13 code, when
it failed and the chain dealt with it), and ``engine.dispatch`` once the task's arguments
have been handed to the engine adapter (not that the download succeeded).

URLs in those records are *log copies* (:func:`log_copy`): the value of every query
parameter with a credential name (:data:`CREDENTIAL_NAMES`: §15 names ``token``, ``sig``,
``signature`` and ``X-Amz-Credential``; the rest of the list is the reference's) becomes
``[redacted]``, and the user name, password and fragment are removed.  Everything else —
ordinary parameters such as ``id``, ``export``, ``confirm``, their order, repeats, empty
values and percent-encoding — is kept byte for byte.  Only the copy changes: the hook
context and the engine request keep the original URL bytes.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["CREDENTIAL_NAMES", "REDACTED", "is_credential_name", "log_copy"]

REDACTED = "[redacted]"
#: Query parameter names whose values never reach a log (compared after percent-decoding,
#: case-insensitively).  §15 names the first four; the others follow the same rule.
CREDENTIAL_NAMES = frozenset({
    "token", "sig", "signature", "x-amz-credential",
    "x-amz-signature", "x-amz-security-token", "access_token", "refresh_token", "id_token",
    "auth", "password", "passwd", "secret", "client_secret", "api_key", "apikey",
})
_AUTHORITY = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*:)//(?P<authority>[^/?#]*)(?P<rest>.*)$", re.S)


def is_credential_name(name: str) -> bool:
    """Whether a query parameter named ``name`` (raw, possibly percent-encoded) is a credential."""
    return unquote(name).lower() in CREDENTIAL_NAMES


def log_copy(url: str) -> str:
    """The copy of ``url`` a log may hold (§15): credential values ``[redacted]``, no user
    name, password or fragment; every other byte as given.  Never raises; a value that is
    not a string is logged as its type name."""
    if not isinstance(url, str):
        return f"<{type(url).__name__}>"
    head = url.split("#", 1)[0]
    match = _AUTHORITY.match(head)
    if match:
        authority = match.group("authority").rsplit("@", 1)[-1]
        head = f"{match.group('scheme')}//{authority}{match.group('rest')}"
    base, mark, query = head.partition("?")
    if not mark:
        return base
    parts = []
    for part in query.split("&"):
        name, equals, _value = part.partition("=")
        parts.append(f"{name}={REDACTED}" if equals and is_credential_name(name) else part)
    return f"{base}?{'&'.join(parts)}"
