"""Mutant (H4, §9.1/§9.4): a ``beforeFinalize`` exit's effects are not checked against the
hook's own effects schema.

The exit message itself still validates (``HookExitMessageV1``), but what ``beforeFinalize``
may return — a ``filePath`` patch only, a non-empty path within the path limit — is never
checked, so a wrong-typed, empty or over-long ``filePath`` (or another hook's field) is taken.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from tests.mutants.guest.effects_one_hook import OneHookVm


class FinalizeUncheckedVm(OneHookVm):
    @staticmethod
    def unchecked(hook: str) -> bool:
        return hook == "beforeFinalize"


class FinalizeEffectsUnchecked(ReferenceCandidate):
    vm_class = FinalizeUncheckedVm

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-finalize-effects-unchecked"}


def factory() -> FinalizeEffectsUnchecked:
    return FinalizeEffectsUnchecked()
