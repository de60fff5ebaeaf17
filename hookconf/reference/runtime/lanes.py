"""Per-plugin lanes (§8): one FIFO per plugin, call chains, re-entrancy refused before enqueue.

Every host-initiated guest entry — hook call, command call, lifecycle callback,
deactivation — goes through its plugin's :class:`Lane`; at most one entry of a lane runs
at a time (H2) while different plugins' lanes run in parallel.

Each entry carries an immutable :class:`CallChain`: the chain id and the plugins already
entered on it.  :meth:`Lanes.admit` refuses an entry whose plugin is already on its chain
(self-calls ``A -> A`` and cycles ``A -> B -> A``) with ``plugin.runtime.reentrant_call``
**before** it is enqueued, so it can never wait behind the lane owner it came from (H22).
Aborting an entry cancels its queued descendants (:meth:`Lanes.abort`).

Invocation contexts are kept by invocation id in :class:`ContextStore` and cleared in a
``finally`` by the runtime (H3).  :meth:`Lanes.current_invocation` is what the capability
bridge compares every worker message against.
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from hookconf.reference.errors import ErrorCode, HookRuntimeError

__all__ = ["CallChain", "ContextStore", "Lane", "LaneEntry", "Lanes", "ReentrantCall"]


class ReentrantCall(HookRuntimeError):
    """§8: the target plugin is already on the entry's call chain (H22)."""

    def __init__(self, plugin_id: str, chain: CallChain) -> None:
        super().__init__(ErrorCode.REENTRANT_CALL,
                         f"{plugin_id} is already on call chain {' -> '.join(chain.plugins)}")
        self.plugin_id = plugin_id
        self.chain = chain


@dataclass(frozen=True, slots=True)
class CallChain:
    """An immutable call chain: its id and the plugins entered on it, outermost first."""

    chain_id: str
    plugins: tuple[str, ...] = ()

    def extended(self, plugin_id: str) -> CallChain:
        return CallChain(self.chain_id, (*self.plugins, plugin_id))


@dataclass(slots=True)
class LaneEntry:
    """One admitted guest entry.

    Attributes:
        entry_id: unique id; ``kind`` is hook, command, lifecycle or deactivation.
        chain: the chain *including* this entry's plugin.
        parent: the entry that made this call, if any (for cancelling descendants).
        enqueued_ms: when it was admitted (queue delay, §15).
        status: queued, running, done or cancelled; ``code`` when cancelled.
    """

    entry_id: str
    plugin_id: str
    kind: str
    chain: CallChain
    parent: str | None
    enqueued_ms: float
    status: str = "queued"
    code: str | None = None
    invocation_id: str | None = None
    lane_key: str = ""
    abort_code: str | None = None
    terminated: bool = False
    #: The permission generation the entry was admitted under (§6).
    generation: int = 0
    #: Worker messages the bridge accepted for this entry's invocation outside its guest
    #: script (``runtime.worker_message``): metadata operations, an exit or an error exit.
    posted: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class Lane:
    """One plugin's FIFO; ``running`` is the single entry inside the VM, if any."""

    plugin_id: str
    queue: deque[LaneEntry] = field(default_factory=deque)
    running: LaneEntry | None = None

    @property
    def empty(self) -> bool:
        return self.running is None and not self.queue

    def can_start(self, entry: LaneEntry) -> bool:
        return self.running is None and bool(self.queue) and self.queue[0] is entry


class Lanes:
    """All lanes of a runtime, keyed by plugin id."""

    def __init__(self) -> None:
        self.lanes: dict[str, Lane] = {}
        self.entries: dict[str, LaneEntry] = {}
        self._ids = itertools.count(1)

    def lane(self, plugin_id: str) -> Lane:
        return self.lanes.setdefault(plugin_id, Lane(plugin_id))

    def check_reentry(self, plugin_id: str, chain: CallChain) -> None:
        """Raise :class:`ReentrantCall` if ``plugin_id`` is already on ``chain`` (§8)."""
        if plugin_id in chain.plugins:
            raise ReentrantCall(plugin_id, chain)

    def admit(self, plugin_id: str, kind: str, chain: CallChain, *, parent: str | None,
              now_ms: float, lane_key: str | None = None, check: bool = True) -> LaneEntry:
        """Check re-entry (unless ``check`` is False), then enqueue on ``lane_key`` (the
        plugin's own lane by default); returns the queued entry.

        Raises:
            ReentrantCall: before anything is enqueued.
        """
        if check:
            self.check_reentry(plugin_id, chain)
        entry = LaneEntry(f"e{next(self._ids)}", plugin_id, kind, chain.extended(plugin_id),
                          parent, now_ms, lane_key=lane_key or plugin_id)
        self.entries[entry.entry_id] = entry
        self.lane(entry.lane_key).queue.append(entry)
        return entry

    def start(self, entry: LaneEntry) -> None:
        """Move the queue head into the VM; raises if the lane is busy (a runtime bug)."""
        lane = self.lane(entry.lane_key)
        if not lane.can_start(entry):
            raise RuntimeError(f"lane {entry.lane_key} cannot start {entry.entry_id} now")
        lane.queue.popleft()
        lane.running = entry
        entry.status = "running"

    def finish(self, entry: LaneEntry) -> None:
        """The entry left the VM (success, failure, timeout or crash alike)."""
        lane = self.lane(entry.lane_key)
        if lane.running is entry:
            lane.running = None
        elif entry in lane.queue:
            lane.queue.remove(entry)
        if entry.status != "cancelled":
            entry.status = "done"

    def cancel(self, entry: LaneEntry, code: str) -> None:
        """Cancel a queued entry (it never enters the VM)."""
        lane = self.lane(entry.lane_key)
        if entry in lane.queue:
            lane.queue.remove(entry)
        entry.status, entry.code = "cancelled", code

    def descendants(self, entry: LaneEntry) -> list[LaneEntry]:
        """Entries whose parent chain leads to ``entry``."""
        found, frontier = [], {entry.entry_id}
        changed = True
        while changed:
            changed = False
            for other in self.entries.values():
                if other.parent in frontier and other.entry_id not in frontier:
                    frontier.add(other.entry_id)
                    found.append(other)
                    changed = True
        return found

    def abort(self, entry: LaneEntry, code: str) -> list[LaneEntry]:
        """Cancel ``entry``'s queued descendants (§8); returns those cancelled."""
        cancelled = [d for d in self.descendants(entry) if d.status == "queued"]
        for d in cancelled:
            self.cancel(d, code)
        return cancelled

    def current_invocation(self, lane_key: str) -> str | None:
        """The invocation id of the running entry of a lane (the bridge's key, §8)."""
        running = self.lane(lane_key).running
        return running.invocation_id if running else None

    def of_plugin(self, plugin_id: str) -> list[LaneEntry]:
        """The plugin's queued and running entries, oldest first."""
        return [e for e in self.entries.values()
                if e.plugin_id == plugin_id and e.status in ("queued", "running")]

    def snapshot(self) -> dict[str, dict[str, Any]]:
        return {pid: {"running": lane.running.entry_id if lane.running else None,
                      "queued": [e.entry_id for e in lane.queue]}
                for pid, lane in sorted(self.lanes.items())}


class ContextStore:
    """Invocation contexts keyed by invocation id, never an unkeyed slot (§8, H3)."""

    def __init__(self) -> None:
        self._contexts: dict[str, dict[str, Any]] = {}

    def put(self, invocation_id: str, context: dict[str, Any]) -> None:
        self._contexts[invocation_id] = context

    def get(self, invocation_id: str | None) -> dict[str, Any] | None:
        return self._contexts.get(invocation_id) if invocation_id else None

    def clear(self, invocation_id: str) -> None:
        self._contexts.pop(invocation_id, None)

    def open_ids(self) -> list[str]:
        return sorted(self._contexts)
