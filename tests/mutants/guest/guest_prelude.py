"""Mutant runtimes whose SDK prelude is the reference's with one deliberate defect.

Each factory returns the reference candidate running guests with a patched prelude, so
only the SDK surface differs; the ``guest.run`` cases must catch each one.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.guest.engine import PRELUDE


def _patched(old: str, new: str) -> str:
    if PRELUDE.count(old) != 1:  # the mutant must break exactly the line it names
        raise AssertionError(f"prelude no longer contains exactly one {old!r}")
    return PRELUDE.replace(old, new)


class PreludeMutant(ReferenceCandidate):
    def __init__(self, name: str, prelude: str) -> None:
        self.name = name
        self.prelude = prelude

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": f"mutant-{self.name}"}


def metadata_write_invisible() -> PreludeMutant:
    """H7: ``set`` records the operation but a later ``get`` does not see it."""
    return PreludeMutant("metadata-write-invisible",
                         _patched("data.set(key, jsonStringify(copy));", ""))


def post_hook_writable() -> PreludeMutant:
    """H7: post-hooks get the six-method metadata object with ``set`` and ``delete``."""
    return PreludeMutant("post-hook-writable", _patched(
        "ctx.metadata = makeMetadata(message.metadata, current, pre);",
        "ctx.metadata = makeMetadata(message.metadata, current, true);"))


def context_bleed() -> PreludeMutant:
    """H3: an exited invocation's ``ctx.update`` lands in whatever invocation is current,
    the unkeyed-slot failure §8 forbids."""
    return PreludeMutant("context-bleed", _patched(
        "assertLive(current);\n        if (patch === null",
        "current = entry || current;\n        if (patch === null"))


def response_any_invocation() -> PreludeMutant:
    """H3: an answer settles the pending call with its call id whatever invocation id the
    answer carries, so a refusal of a forged call with another invocation's id settles the
    current invocation's own call."""
    return PreludeMutant("response-any-invocation", _patched(
        "if (!waiter || waiter.current.id !== result.invocationId) continue;",
        "if (!waiter) continue;"))


def abort_rejects_first() -> PreludeMutant:
    """H7 (§9.3): an abort rejects the outstanding capability promises first and only then
    dispatches the abort event, so a rejection handler runs before the abort listeners."""
    queued = "      Promise.resolve().then(() => {\n        const event = { type: 'abort', target: signal };"
    prelude = _patched(queued, "      rejectPending(current, reason);\n" + queued)
    after = "      }).then(() => rejectPending(current, reason));"
    if prelude.count(after) != 1:
        raise AssertionError(f"prelude no longer contains exactly one {after!r}")
    return PreludeMutant("abort-rejects-first", prelude.replace(after, "      });"))


def metadata_set_after_abort() -> PreludeMutant:
    """H7 (§9.3): ``ctx.metadata.set`` still stages a write after the invocation's signal
    was aborted (its liveness check dropped); ``delete`` and the capabilities still fail."""
    check = "if (typeof key !== 'string') throw new TypeError('metadata key must be a string');\n"
    return PreludeMutant("metadata-set-after-abort", _patched(
        "assertLive(current);\n        " + check + "        const copy", check + "        const copy"))


def capability_after_abort() -> PreludeMutant:
    """H7 (§9.3): a capability call made after the abort is still posted to the host."""
    return PreludeMutant("capability-after-abort", _patched(
        "    if (current.control && current.control.signal.aborted) {\n"
        "      return Promise.reject(current.control.signal.reason);\n    }\n", ""))
