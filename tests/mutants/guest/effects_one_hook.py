"""Mutant (H4): a hook exit's effects are checked against what the hook may return only for
``beforeCreate``; any other hook's exit is checked against the general ``HookEffectsV1``.

So an ``afterComplete`` exit carrying a metadata write or a context patch, or a
``beforeFinalize`` exit patching ``uris``, is taken as sent — effects valid for some hook, but
not for this one (§9.3, §9.4, §9.5).
"""

from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.errors import ErrorCode
from hookconf.reference.guest.vm import PluginVm
from hookconf.reference.schemas import validate


class OneHookVm(PluginVm):
    @staticmethod
    def unchecked(hook: str) -> bool:
        """Whether this hook's exit skips its own effects schema (the bug)."""
        return hook != "beforeCreate"

    def _exit(self, message: Any, outcome: Any, refusals: Any) -> Any:
        if self.unchecked(outcome.hook) and isinstance(message, dict) and message.get("ok") is True \
                and all(message.get(k) == v for k, v in outcome.scope().items()) \
                and outcome.aborted is None:
            checked = validate("HookExitMessageV1", message, direction="output")
            if not checked.valid:
                return outcome.fail(ErrorCode.OUTPUT_INVALID, f"{checked.path}: {checked.reason}")
            effects = message["effects"]
            return outcome.success({"contextPatches": effects["contextPatches"],
                                    "metadataOperations": effects["metadataOperations"]})
        return super()._exit(message, outcome, refusals)


class EffectsOneHook(ReferenceCandidate):
    vm_class = OneHookVm

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": "mutant-effects-one-hook"}


def factory() -> EffectsOneHook:
    return EffectsOneHook()
