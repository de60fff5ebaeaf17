"""The ``delivery.*`` operations (family ``delivery``, ``docs/protocol.md``), §5.3 and §11.

The harness plays the delivery workers: it claims rows, runs (or pretends to run) the hook,
and reports the exit with the claim's fencing token; the candidate is the durable queue.
The clock is the harness's: it only moves by ``delivery.advance``.

=======================  ===============================================================
``delivery.reset``       a fresh queue with a §11 configuration → accepted or the field
``delivery.policy``      install / upgrade / grant / revoke / disable / enable /
                         quarantine / release / uninstall a plugin (§6, §11)
``delivery.terminal``    the terminal transaction of one task (§5.3, §11)
``delivery.claim``       claim a batch: leases with fresh fencing tokens
``delivery.heartbeat``   extend a lease (current unexpired token only)
``delivery.complete``    the matching hook exit: the receipt
``delivery.fail``        a retryable or permanent hook failure
``delivery.dispatch``    the queue's own dispatcher, once: claims and runs what is
                         claimable now, each hook's exit scripted by the harness
``delivery.advance``     move the injected clock
``delivery.restart``     the process restarted: volatile state gone, start-up recovery
``delivery.state``       the durable state, read only
=======================  ===============================================================

``delivery.reset`` may name a file-system ``root`` and a ``database`` path under it
(default ``delivery.db``): the queue then lives in that SQLite file, opened through APSW over
the root's Vfs port (:func:`~hookconf.reference.delivery.store.connect_vfs`; an in-process
harness attaches a ``FaultyVfs`` over ``ModelVfs`` for the root first, ``attach_vfs``, so it
can crash the candidate at any write, fsync or journal deletion).  Without ``root`` the queue
is in memory.  ``delivery.restart`` of a file-backed queue drops the connection unclosed (a
crashed process closes nothing) and opens the database again from the root's Vfs, which the
harness may have replaced by a post-crash state, before start-up recovery.  A process started
anew (a subprocess candidate killed at a crash point under a mount) is told where its queue
is: ``delivery.restart`` with ``root``, ``database``, ``config``, ``jitter`` and ``nowMs``
opens that file (an absolute directory: the OS file system there) without resetting it.
"""

from __future__ import annotations

from typing import Any

from hookconf.reference.delivery.limits import ConfigError, validate_config
from hookconf.reference.delivery.queue import DeliveryQueue, drain_materialised
from hookconf.reference.delivery.store import connect_memory, connect_vfs
from hookconf.reference.errors import ErrorCode, HookRuntimeError

__all__ = ["DeliveryOps"]

_NAMES = ("reset", "policy", "terminal", "claim", "heartbeat", "complete", "fail", "dispatch",
          "advance", "restart", "state")


class DeliveryOps:
    """Mixin of the reference candidate: the ``delivery.*`` operations."""

    _delivery: DeliveryQueue | None = None
    _delivery_now_ms: int = 0
    _delivery_file: tuple[str, str] | None = None  # (root, database) of a file-backed queue

    def delivery_ops(self) -> dict[str, Any]:
        return {f"delivery.{n}": getattr(self, f"delivery_{n}") for n in _NAMES}

    def make_queue(self, db: Any, limits: Any) -> DeliveryQueue:
        """The queue over ``db`` (a mutant's seam: a subclass of :class:`DeliveryQueue`)."""
        return DeliveryQueue(db, limits, lambda: self._delivery_now_ms)

    def _queue(self) -> DeliveryQueue:
        if self._delivery is None:
            self.delivery_reset({})
        assert self._delivery is not None
        return self._delivery

    def delivery_reset(self, args: dict[str, Any]) -> dict[str, Any]:
        try:
            limits = validate_config(args.get("config"), args.get("jitter", 1.0))
        except ConfigError as exc:
            return {"accepted": False, "field": exc.field, "reason": exc.message[:300]}
        self._delivery_now_ms = int(args.get("nowMs", 0))
        root = args.get("root")
        if root is None:
            self._delivery_file = None
            db = connect_memory()
        else:
            database = args.get("database", "delivery.db")
            if not isinstance(root, str) or not isinstance(database, str):
                raise HookRuntimeError(ErrorCode.INPUT_INVALID, "root and database are strings")
            self._delivery_file = (root, database)
            vfs = self._delivery_vfs(root)
            for stale in (database, f"{database}-journal"):  # reset: a fresh queue
                try:
                    vfs.unlink(stale)
                except FileNotFoundError:
                    pass
            db = connect_vfs(vfs, database)
        self._delivery = self.make_queue(db, limits)
        return {"accepted": True, "limits": limits.to_json()}

    def _delivery_vfs(self, root: str) -> Any:
        """The Vfs the harness attached for ``root`` (or an absolute directory's)."""
        find = getattr(self, "_vfs", None)  # FinalizeOps: attached roots, absolute dirs
        if find is None:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, "no file system ports")
        return find(root)

    def delivery_policy(self, args: dict[str, Any]) -> dict[str, Any]:
        fields = {k: args[k] for k in ("version", "digest", "hooks", "grants", "requires", "grant")
                  if k in args}
        try:
            return self._queue().policy(args["pluginId"], args["action"], **fields)
        except KeyError as exc:
            raise HookRuntimeError(ErrorCode.NOT_REGISTERED, f"no plugin {exc}") from None

    def delivery_terminal(self, args: dict[str, Any]) -> dict[str, Any]:
        try:
            return self._queue().terminal(args["taskId"], args["hook"], args["dto"],
                                          args.get("status", "completed"))
        except ValueError as exc:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, str(exc)) from None

    def delivery_claim(self, args: dict[str, Any]) -> dict[str, Any]:
        return {"claims": self._queue().claim()}

    def delivery_heartbeat(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._queue().heartbeat(args["deliveryId"], args["token"])

    def delivery_complete(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._queue().complete(args["deliveryId"], args["token"])

    def delivery_fail(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._queue().fail(args["deliveryId"], args["token"], bool(args["retryable"]),
                                  args.get("code", str(ErrorCode.POST_RETRYABLE)))

    def delivery_dispatch(self, args: dict[str, Any]) -> dict[str, Any]:
        """The runtime's own dispatcher of materialised deliveries (§11, §16 step 8 "drain
        已物化 delivery"), run once at the current instant: up to ``args["rounds"]`` (default 1)
        claims, each batch's hooks run and their exits recorded row by row, stopping at the
        first claim that takes nothing.

        ``args["outcomes"]`` maps a plugin id to its hook's exit: ``delivered`` (the matching
        hook exit: the receipt), ``retry`` (a retryable failure), ``permanent`` (a permanent
        failure), ``throw`` (the hook raises: a worker failing unexpectedly, retryable by §11
        "Worker crash 和 timeout 可重试"); a plugin it does not name fails retryably (its
        activation failed).  Returns ``{claimed, delivered, retried, permanent}``, counted by
        the hooks' exits (``retried`` includes ``throw``); the clock does not move.
        """
        outcomes = args.get("outcomes") or {}

        def run_hook(claim: dict[str, Any]) -> str:
            outcome = outcomes.get(claim["pluginId"], "retry")
            if outcome == "throw":
                raise HookRuntimeError(ErrorCode.WORKER_CRASHED,
                                       f"the hook of {claim['pluginId']} raised")
            return outcome

        return self.drain(self._queue(), run_hook, int(args.get("rounds", 1)))

    def drain(self, queue: DeliveryQueue, run_hook: Any, rounds: int) -> dict[str, int]:
        """Run the dispatcher over ``queue`` for at most ``rounds`` claims (a mutant's seam:
        :func:`~hookconf.reference.delivery.queue.drain_materialised`)."""
        return drain_materialised(queue, run_hook, max_rounds=rounds)

    def delivery_advance(self, args: dict[str, Any]) -> dict[str, Any]:
        self._delivery_now_ms += int(args["ms"])
        return {"nowMs": self._delivery_now_ms}

    def delivery_restart(self, args: dict[str, Any]) -> dict[str, Any]:
        if args.get("root") is not None:
            self._reopen(args)
        queue = self._queue()
        db = queue.db
        if self._delivery_file is not None:
            # A restarted process: the old connection is abandoned, not closed (closing would
            # write through a file system that may have crashed); the file is opened again.
            root, database = self._delivery_file
            db = connect_vfs(self._delivery_vfs(root), database)
        # Nothing of the queue is volatile: a new queue object over the durable database.
        self._delivery = self.make_queue(db, queue.limits)
        return self._delivery.recover()

    def _reopen(self, args: dict[str, Any]) -> None:
        """A process started anew (§11 start-up): the queue reset with ``args["root"]`` and
        ``database`` is found there again, with the configuration, jitter and clock (``nowMs``)
        the harness states, since nothing of a killed process is left to remember them."""
        try:
            limits = validate_config(args.get("config"), args.get("jitter", 1.0))
        except ConfigError as exc:
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, f"{exc.field}: {exc.message}"[:300]) from None
        root, database = args["root"], args.get("database", "delivery.db")
        if not isinstance(root, str) or not isinstance(database, str):
            raise HookRuntimeError(ErrorCode.INPUT_INVALID, "root and database are strings")
        self._delivery_now_ms = int(args.get("nowMs", self._delivery_now_ms))
        self._delivery_file = (root, database)
        self._delivery = self.make_queue(connect_vfs(self._delivery_vfs(root), database), limits)

    def delivery_state(self, args: dict[str, Any]) -> dict[str, Any]:
        return self._queue().state()
