"""Mutant (H4): the enter message's own ids are never compared with its payload's.

Each part is validated on its own, so an enter message whose ``ctxPayload`` belongs to
another invocation or task (published rule: payload ids equal envelope ids) is accepted.
"""

from tests.mutants.schemas.base import SchemaMutant


class EnterIdsUnchecked(SchemaMutant):
    name = "enter-ids-unchecked"

    def patch(self, defs):
        del defs["HookEnterMessageV1"]["sameValues"]


def factory():
    return EnterIdsUnchecked()
