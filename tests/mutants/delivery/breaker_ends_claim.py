"""Mutant (H15): a plugin paused by its open breaker ends the claim's round-robin walk.

§11: "Circuit breaker … 暂停该插件 15 分钟"; "每行独立捕获插件错误，不能阻止其他插件执行" — the
breaker pauses that plugin alone.  Here the walk over plugins with due rows stops (``break``
instead of ``continue``) at the first one whose breaker is open, so every plugin after it in
the claim order waits too; plugins before it are served.
"""

from hookconf.reference.delivery.queue import DeliveryQueue
from tests.mutants.delivery.base import mutant


class BreakerEndsClaim(DeliveryQueue):
    def eligible_plugins(self, now):
        served = super().eligible_plugins(now)
        paused = {r[0] for r in self.db.execute(
            "SELECT plugin_id FROM breakers WHERE open_until_ms > ?", (now,))}
        due = {r[0] for r in self.db.execute(
            "SELECT DISTINCT plugin_id FROM deliveries WHERE status = 'pending' AND next_retry_ms <= ?",
            (now,))}
        stops = sorted(paused & due)
        if not stops:
            return served
        last = self.db.execute("SELECT value FROM cursor WHERE name = 'plugin'").fetchone()
        order = sorted(set(served) | set(stops))
        if last is not None:
            order = [p for p in order if p > last[0]] + [p for p in order if p <= last[0]]
        cut = min(order.index(p) for p in stops)
        return [p for p in order[:cut] if p in served]


factory = mutant("breaker-ends-claim", BreakerEndsClaim)
