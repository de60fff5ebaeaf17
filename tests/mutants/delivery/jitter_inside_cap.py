"""Mutant (H14, §11): the jitter is applied before the delay cap, not after it.

§11: "重试延迟为 min(1 hour, 1 second * 2^(attempt-1))，再乘注入的 [0.75, 1.25] jitter" — the
capped delay is then multiplied by the jitter.  This queue caps the jittered delay instead,
``min(cap, base·2^(attempt-1)·jitter)``: a jitter above 1 never passes the cap and a jitter
below 1 shortens a delay only while its uncapped value is under ``cap / jitter``.  The default
configuration never reaches the hour within its 12 attempts, so only a capped schedule shows it.
"""

from dataclasses import replace

from hookconf.reference.delivery import machine
from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class JitterInsideCap(DeliveryQueue):
    def _apply(self, r, event):
        if isinstance(event, machine.RetryScheduled):
            lim = self.limits
            uncapped = lim.baseDelayMs * (1 << max(0, r["attempts"] - 1)) * lim.jitter
            event = replace(event, next_retry_ms=self.now_ms() + int(min(lim.delayCapMs, uncapped)))
        return super()._apply(r, event)


factory = mutant("jitter-inside-cap", JitterInsideCap)
