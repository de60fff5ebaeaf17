"""Mutant (H15, §11): a hook that raises is dead-lettered instead of retried.

§11: "激活失败、Worker crash 和 timeout 可重试"; "每行独立捕获插件错误".  This dispatcher catches
each row's exception on its own, but records a raised hook as a permanent failure: the row
goes to ``dead_letter`` where §11 retries it (``pending``, an attempt counted, the next retry
after the delay).
"""

from hookconf.reference.delivery.queue import drain_materialised
from tests.mutants.delivery.base import mutant


def drain(queue, run_hook, max_rounds):
    def caught(claim):
        try:
            return run_hook(claim)
        except Exception:  # noqa: BLE001 - the mutant: a crash taken for a permanent error
            return "permanent"

    return drain_materialised(queue, caught, max_rounds=max_rounds)


factory = mutant("dispatch-throw-permanent", drain=drain)
