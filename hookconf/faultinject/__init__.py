"""Fault injection for hookconf: the VFS port, a durability-modelling filesystem, crash exploration.

The machinery finalization (§10) and delivery (§11) tests stand on:

- :class:`Vfs` — the port, the only door to the filesystem for finalization and recovery
  code (:mod:`hookconf.faultinject.port`); :class:`OsVfs` on real Linux syscalls
  (:mod:`hookconf.faultinject.osvfs`); :class:`ModelVfs`, in memory with a durable and a volatile
  layer (:mod:`hookconf.faultinject.model`, whose docstring states the persistence model);
- :data:`FAULTS`, :class:`Fault`, :class:`FaultPlan` — the named fault registry
  (:mod:`hookconf.faultinject.faults`); :class:`FaultyVfs` records the op trace and injects
  (:mod:`hookconf.faultinject.injector`);
- :func:`explore` — every crash point of a scenario's trace, every allowed post-crash
  state, recovery run twice, a check; a :class:`CrashReport` whose violations carry a
  :class:`Rerun` handle (:mod:`hookconf.faultinject.explorer`, ``python -m hookconf.faultinject replay``);
- :func:`sweep` — fail the Nth operation with a named fault for every N until a run
  injects nothing (:mod:`hookconf.faultinject.sweep`);
- :mod:`hookconf.faultinject.sqlite` — SQLite (APSW) whose file I/O goes through a Vfs, so it
  crashes with the filesystem; imported on demand (it loads ``apsw``).
"""

from .explorer import CrashReport, Rerun, Scenario, Violation, explore, replay
from .faults import FAULTS, Crash, Fault, FaultPlan, outside_writer
from .injector import FaultyVfs, TraceEvent
from .model import ModelVfs, collisions, fold_name
from .noreplace import publish_by_link
from .osvfs import OsVfs
from .port import DirHandle, FileHandle, Kind, Publication, Stat, Vfs, fs_error, split_path
from .snapshot import diff, snapshot
from .sweep import SweepReport, replay_fault, sweep

__all__ = [
    "Vfs",
    "Kind",
    "Stat",
    "DirHandle",
    "FileHandle",
    "Publication",
    "fs_error",
    "split_path",
    "OsVfs",
    "ModelVfs",
    "fold_name",
    "collisions",
    "publish_by_link",
    "FAULTS",
    "Fault",
    "FaultPlan",
    "Crash",
    "outside_writer",
    "FaultyVfs",
    "TraceEvent",
    "Scenario",
    "explore",
    "replay",
    "CrashReport",
    "Violation",
    "Rerun",
    "snapshot",
    "diff",
    "sweep",
    "replay_fault",
    "SweepReport",
]
