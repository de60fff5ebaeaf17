"""Mutant (H4, §9.1/§9.4): a ``beforeFinalize`` exit's effects are not checked against the
hook's own effects schema.

The exit message itself still validates (``HookExitMessageV1``), but what ``beforeFinalize``
may return — a ``filePath`` patch only, a non-empty path within the path limit — is never
checked, so a wrong-typed, empty or over-long ``filePath`` (or another hook's field) is taken.
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.vm import PluginVm
from hookconf.reference.schemas import validate


class FinalizeUncheckedVm(PluginVm):
    def _exit(self, message: Any, outcome: Any, refusals: Any) -> Any:
        if outcome.hook == "beforeFinalize" and isinstance(message, dict) \
                and message.get("ok") is True and outcome.aborted is None \
                and all(message.get(k) == v for k, v in outcome.scope().items()):
            checked = validate("HookExitMessageV1", message, direction="output")
            if not checked.valid:
                return outcome.fail(ErrorCode.OUTPUT_INVALID, f"{checked.path}: {checked.reason}")
            effects = message["effects"]
            return outcome.success({"contextPatches": effects["contextPatches"],
                                    "metadataOperations": effects["metadataOperations"]})
        return super()._exit(message, outcome, refusals)


class FinalizeEffectsUnchecked(ReferenceCandidate):
    vm_class = FinalizeUncheckedVm

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-finalize-effects-unchecked"}


def factory() -> FinalizeEffectsUnchecked:
    return FinalizeEffectsUnchecked()
