"""Mutants (H4, §9.4): the BT/magnet source identity computed the wrong way.

§9.4: a valid 40-hex or 32-base32 info hash crosses as ``urn:btih:<infoHash>``, anything else
as ``urn:motrix:bt:<base64url(taskId)>``.  Each mutant is the reference with
``source_identity.expected_bt_source`` swapped while it handles an operation:

``hash_prefix``
    the hash is recognised by a prefix match, so ``<40 hex>x`` or 41 hex characters count as a
    valid hash (and the context's ``urn:motrix:bt:`` identity is refused);
``standard_base64``
    the task id is encoded with the standard base64 alphabet (``+``, ``/``), not base64url.
"""

from __future__ import annotations

import base64

from hookconf.reference.schemas import source_identity
from tests.mutants.finalize.base import patched

_HASH = source_identity._HASH


def _by_prefix(task_id: str, info_hash: str | None) -> str:
    if isinstance(info_hash, str) and _HASH.match(info_hash):
        return f"urn:btih:{info_hash}"
    encoded = base64.urlsafe_b64encode(task_id.encode()).decode().rstrip("=")
    return f"urn:motrix:bt:{encoded}"


def _standard(task_id: str, info_hash: str | None) -> str:
    if isinstance(info_hash, str) and _HASH.fullmatch(info_hash):
        return f"urn:btih:{info_hash}"
    encoded = base64.b64encode(task_id.encode()).decode().rstrip("=")
    return f"urn:motrix:bt:{encoded}"


hash_prefix = patched("bt-hash-prefix", source_identity, "expected_bt_source", _by_prefix)
standard_base64 = patched("bt-standard-base64", source_identity, "expected_bt_source", _standard)
