"""Host permissions (§7) and the task-source policy for hook-returned URLs (§9.4).

=========================  =====================================================  ======
module                     what it holds                                          spec
=========================  =====================================================  ======
``matcher``                the one structured matcher: patterns, URLs, redirects  §7, H5
``task_source``            admission of a download URL a hook returns             §9.4, H17
=========================  =====================================================  ======

The two never meet: a plugin's ``hostPermissions`` govern its own requests and the HTTP
selection of ``beforeCreate``; a URL handed to the download engine passes ``task_source``.
"""

from hookconf.reference.permissions.matcher import (
    ALL_URLS,
    HostKind,
    HostPattern,
    InvalidPattern,
    InvalidUrl,
    PatternSet,
    RequestDecision,
    RequestUrl,
    check_request,
    match,
    parse_pattern,
    parse_url,
)
from hookconf.reference.permissions.task_source import SUPPORTED_SCHEMES, Admission, admit

__all__ = [
    "ALL_URLS",
    "SUPPORTED_SCHEMES",
    "Admission",
    "HostKind",
    "HostPattern",
    "InvalidPattern",
    "InvalidUrl",
    "PatternSet",
    "RequestDecision",
    "RequestUrl",
    "admit",
    "check_request",
    "match",
    "parse_pattern",
    "parse_url",
]
