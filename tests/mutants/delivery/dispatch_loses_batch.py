"""Mutant (H15, §11): the dispatcher loses a whole batch when one hook raises.

§11: "每行独立捕获插件错误，不能阻止其他插件执行"; "一个插件失败不能让无关 consumer 或插件保持
undispatched".  This dispatcher runs every hook of a claimed batch first and records the exits
afterwards, under one try/except around the batch: a hook that raises discards the exits of
the whole batch, so the other plugins' rows — even those whose hook succeeded — stay
``delivering`` with no receipt until their leases run out.
"""

from hookconf.reference.errors import ErrorCode
from tests.mutants.delivery.base import mutant


def drain(queue, run_hook, max_rounds):
    counts = {"claimed": 0, "delivered": 0, "retried": 0, "permanent": 0}
    for _ in range(max_rounds):
        batch = queue.claim()
        if not batch:
            break
        try:
            exits = [(claim, run_hook(claim)) for claim in batch]
        except Exception:  # noqa: BLE001 - the batch failed: its leases expire and retry
            counts["claimed"] += len(batch)
            continue
        for claim, outcome in exits:
            counts["claimed"] += 1
            if outcome == "delivered":
                queue.complete(claim["deliveryId"], claim["token"])
                counts["delivered"] += 1
            elif outcome == "permanent":
                queue.fail(claim["deliveryId"], claim["token"], False, str(ErrorCode.POST_PERMANENT))
                counts["permanent"] += 1
            else:
                queue.fail(claim["deliveryId"], claim["token"], True, str(ErrorCode.POST_RETRYABLE))
                counts["retried"] += 1
    return counts


factory = mutant("dispatch-loses-batch", drain=drain)
