"""Mutant (H7, §9.3): an abort met while the guest's capability calls wait is deferred until
the host has answered them.

§9.3: "…并在拒绝未完成的 capability promise 前排队一个 abort 事件".  Here the host takes
``guest.run``'s ``abort`` (and echoes it) but, finding answers ready for the calls the guest
posted, settles those first and aborts only in a round with nothing to answer — so the guest
sees its calls resolve, and one that ends meanwhile never sees the abort at all.
"""

from typing import Any

from hookconf.reference.guest.bridge import Reply
from hookconf.reference.guest.vm import PluginVm
from tests.mutants.guest.bridge_bounds import BridgeMutant


class AbortAfterAnswersVm(PluginVm):
    def _run(self, message: Any, outcome: Any, abort_when: Any) -> Any:
        if abort_when is None:
            return super()._run(message, outcome, abort_when)
        answered: list[Reply] = []
        handle = self.bridge.handle

        def counting(worker_message: Any) -> Reply:
            reply = handle(worker_message)
            if reply.result is not None:
                answered.append(reply)
            return reply

        deferred: list[Any] = []

        def later(round_number: int) -> Any:
            requested = deferred.pop() if deferred else abort_when(round_number)
            ready, answered[:] = bool(answered), []
            if requested is not None and ready:  # answer what the guest asked, abort next round
                deferred.append(requested)
                return None
            return requested

        self.bridge.handle = counting  # type: ignore[method-assign]
        try:
            return super()._run(message, outcome, later)
        finally:
            del self.bridge.handle


def factory() -> BridgeMutant:
    return BridgeMutant("abort-after-answers", vm=AbortAfterAnswersVm)
