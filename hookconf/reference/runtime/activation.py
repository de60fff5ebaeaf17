"""The §5.1 plugin lifecycle as one transition table, sans I/O.

::

    Inactive -> Activating -> Active -> Quiescing -> Inactive
                    |           |
                    +-> Faulted +-> Faulted

:func:`step` is the machine: ``step(state, event) -> (state, effects)``.  Effects are values
(:class:`StartWorker`, :class:`PublishActive`, :class:`StopWorker`) carried out by the
runtime.  A pair missing from :data:`TRANSITIONS` raises :class:`ActivationProtocolError`.

Rules the table encodes (§5.1):

- a request while ``Activating`` (or ``Active``) starts nothing: concurrent activations
  coalesce onto the one worker being started;
- ``Active`` is published only on :class:`WorkerReady` whose registered hooks cover every
  hook the runtime needs; a worker missing one is ``Faulted`` (``plugin.hook.not_registered``);
- idle reclaim (:class:`IdleReclaim`) leaves ``Active`` only with an empty lane and no
  capability operation in flight, otherwise it is a no-op;
- a crash fails only the current invocation: ``Faulted`` stops that worker, and a later
  request from ``Faulted`` starts a clean one;
- a request during ``Quiescing`` is deferred: the runtime re-requests once ``Inactive``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "ActivationFailed",
    "ActivationProtocolError",
    "ActivationRequested",
    "IdleReclaim",
    "PolicyQuiesce",
    "PublishActive",
    "StartWorker",
    "State",
    "StopWorker",
    "TRANSITIONS",
    "WorkerCrashed",
    "WorkerReady",
    "WorkerStopped",
    "step",
]


class State(enum.Enum):
    """§5.1 lifecycle states, spelled as the spec spells them."""

    INACTIVE = "Inactive"
    ACTIVATING = "Activating"
    ACTIVE = "Active"
    QUIESCING = "Quiescing"
    FAULTED = "Faulted"


# Events --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ActivationRequested:
    """A candidate was admitted and needs a ready worker."""


@dataclass(frozen=True, slots=True)
class WorkerReady:
    """The worker evaluated the bundle; ``registered`` hooks vs ``needed`` hooks."""

    registered: frozenset[str]
    needed: frozenset[str]


@dataclass(frozen=True, slots=True)
class ActivationFailed:
    """The worker could not start or evaluate the bundle; ``code`` is the §13 category."""

    code: str


@dataclass(frozen=True, slots=True)
class WorkerCrashed:
    """The worker died during an invocation."""


@dataclass(frozen=True, slots=True)
class IdleReclaim:
    """Idle disposal was asked for; eligible only when both facts say idle (§5.1)."""

    lane_empty: bool
    capability_ops: int


@dataclass(frozen=True, slots=True)
class PolicyQuiesce:
    """The policy barrier drained the lane and stops the worker (§6)."""


@dataclass(frozen=True, slots=True)
class WorkerStopped:
    """The worker is gone."""


Event = (ActivationRequested | WorkerReady | ActivationFailed | WorkerCrashed | IdleReclaim
         | PolicyQuiesce | WorkerStopped)

# Effects -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StartWorker:
    """Create a worker and evaluate the bundle."""


@dataclass(frozen=True, slots=True)
class PublishActive:
    """Make the worker available to lane entries."""


@dataclass(frozen=True, slots=True)
class StopWorker:
    """Tear the worker down; ``reason`` is idle, policy, crash or not_registered."""

    reason: str


Effect = StartWorker | PublishActive | StopWorker


class ActivationProtocolError(RuntimeError):
    """An event that the §5.1 machine does not accept in the current state (a runtime bug)."""


S = State
#: (state, event type) -> next state.  Guards that depend on event fields are in :func:`step`.
TRANSITIONS: dict[tuple[State, type], State] = {
    (S.INACTIVE, ActivationRequested): S.ACTIVATING,
    (S.ACTIVATING, ActivationRequested): S.ACTIVATING,
    (S.ACTIVATING, WorkerReady): S.ACTIVE,
    (S.ACTIVATING, ActivationFailed): S.FAULTED,
    (S.ACTIVATING, PolicyQuiesce): S.QUIESCING,
    (S.ACTIVE, ActivationRequested): S.ACTIVE,
    (S.ACTIVE, IdleReclaim): S.QUIESCING,
    (S.ACTIVE, PolicyQuiesce): S.QUIESCING,
    (S.ACTIVE, WorkerCrashed): S.FAULTED,
    (S.QUIESCING, ActivationRequested): S.QUIESCING,
    (S.QUIESCING, IdleReclaim): S.QUIESCING,
    (S.QUIESCING, PolicyQuiesce): S.QUIESCING,
    (S.QUIESCING, WorkerStopped): S.INACTIVE,
    (S.FAULTED, ActivationRequested): S.ACTIVATING,
    (S.FAULTED, PolicyQuiesce): S.FAULTED,
    (S.FAULTED, IdleReclaim): S.FAULTED,
    (S.INACTIVE, IdleReclaim): S.INACTIVE,
    (S.INACTIVE, PolicyQuiesce): S.INACTIVE,
    (S.ACTIVATING, IdleReclaim): S.ACTIVATING,
}


def step(state: State, event: Event) -> tuple[State, tuple[Effect, ...]]:
    """Apply one event.

    Raises:
        ActivationProtocolError: ``(state, type(event))`` is not in :data:`TRANSITIONS`.
    """
    key = (state, type(event))
    if key not in TRANSITIONS:
        raise ActivationProtocolError(f"{type(event).__name__} in {state.value}")
    target = TRANSITIONS[key]
    if isinstance(event, WorkerReady) and not event.needed <= event.registered:
        return S.FAULTED, (StopWorker("not_registered"),)
    if isinstance(event, IdleReclaim) and state is S.ACTIVE and (
            not event.lane_empty or event.capability_ops):
        return state, ()
    effects: tuple[Effect, ...] = ()
    if target is S.ACTIVATING and state is not S.ACTIVATING:
        effects = (StartWorker(),)
    elif target is S.ACTIVE and state is S.ACTIVATING:
        effects = (PublishActive(),)
    elif target is S.QUIESCING and state in (S.ACTIVE, S.ACTIVATING):
        effects = (StopWorker("idle" if isinstance(event, IdleReclaim) else "policy"),)
    elif target is S.FAULTED and state is not S.FAULTED:
        effects = (StopWorker("crash" if isinstance(event, WorkerCrashed) else "activation"),)
    return target, effects
