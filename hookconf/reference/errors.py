"""The §13 error taxonomy: one enum of the stable codes and one exception root.

Every error the reference raises carries a :class:`ErrorCode` spelled exactly as §13
spells it, and says whose fault it is (:class:`Fault`): the guest plugin's, the
caller's (host code or a request that breaks the contract), or the environment's
(filesystem, database, clock).  Post-delivery dead-letter *reasons* (§11, §13) are a
separate enum because they qualify ``plugin.post.dead_letter`` rather than replace it.
"""

from __future__ import annotations

import enum

__all__ = [
    "DeadLetterReason",
    "ErrorCode",
    "Fault",
    "HookRuntimeError",
]


class ErrorCode(enum.StrEnum):
    """The stable error categories of §13, in the order §13 lists them."""

    INPUT_INVALID = "plugin.hook.input_invalid"
    OUTPUT_INVALID = "plugin.hook.output_invalid"
    NOT_REGISTERED = "plugin.hook.not_registered"
    TIMEOUT = "plugin.hook.timeout"
    WORKER_CRASHED = "plugin.hook.worker_crashed"
    PERMISSION_DENIED = "plugin.hook.permission_denied"
    HOST_NOT_PERMITTED = "plugin.http.host_not_permitted"
    CONCURRENT_PROTOCOL_VIOLATION = "plugin.hook.concurrent_protocol_violation"
    REENTRANT_CALL = "plugin.runtime.reentrant_call"
    PERMISSION_GENERATION_STALE = "plugin.runtime.permission_generation_stale"
    PLAN_INVALID = "plugin.finalize.plan_invalid"
    TARGET_EXISTS = "plugin.finalize.target_exists"
    STAGING_INVALID = "plugin.finalize.staging_invalid"
    ARTIFACT_TOO_LARGE = "plugin.finalize.artifact_too_large"
    FILE_COMMIT_FAILED = "plugin.finalize.file_commit_failed"
    DB_COMMIT_FAILED = "plugin.finalize.db_commit_failed"
    RECOVERY_QUARANTINED = "plugin.finalize.recovery_quarantined"
    POST_RETRYABLE = "plugin.post.retryable"
    POST_PERMANENT = "plugin.post.permanent"
    POST_ADMISSION_REJECTED = "plugin.post.admission_rejected"
    POST_DEAD_LETTER = "plugin.post.dead_letter"


class DeadLetterReason(enum.StrEnum):
    """Explicit reasons that qualify a permanent or dead-lettered delivery (§11, §13)."""

    QUEUE_CAPACITY = "queue_capacity"
    IDENTITY_MISSING = "identity_missing"
    SUPERSEDED = "superseded"
    PERMISSION_REVOKED = "permission_revoked"


class Fault(enum.Enum):
    """Who is at fault for an error."""

    GUEST = "guest"
    CALLER = "caller"
    ENVIRONMENT = "environment"


class HookRuntimeError(Exception):
    """Root of every error the reference raises on purpose.

    Attributes:
        code: the §13 category.
        fault: whose fault it is.
        message: a bounded human-readable explanation; never another plugin's details.
    """

    def __init__(self, code: ErrorCode, message: str, *, fault: Fault = Fault.CALLER) -> None:
        super().__init__(f"{code}: {message}")
        self.code = ErrorCode(code)
        self.fault = fault
        self.message = message
