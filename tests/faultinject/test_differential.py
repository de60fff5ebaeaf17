"""Differential test: OsVfs on a temp dir and ModelVfs, driven in lockstep (§10.1).

A Hypothesis rule-based state machine applies the same Vfs calls to both backends and,
after every step, requires the same outcome (value or errno) and the same visible tree.
No crashes here: this is what makes the model trustworthy as a filesystem before it is
trusted as a persistence model.  The default run is small and derandomized; the slow
run (``-m slow``) drives thousands of generated sequences.
"""

from __future__ import annotations

import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.osvfs import OsVfs
from hookconf.faultinject.snapshot import snapshot

NAMES = ("a", "b", "c")
PATHS = st.one_of(st.sampled_from(NAMES),
                  st.builds(lambda x, y: f"{x}/{y}", st.sampled_from(NAMES),
                            st.sampled_from(NAMES)))
DIRS = st.one_of(st.just("."), PATHS)
DATA = st.binary(min_size=0, max_size=12)
OFFSETS = st.integers(min_value=0, max_value=16)
MODES = st.sampled_from(("r", "r+", "w", "x"))


def outcome(vfs, call):
    """Run ``call(vfs)``: ``("ok", value)`` or ``("err", errno)``."""
    try:
        return ("ok", call(vfs))
    except OSError as exc:
        return ("err", exc.errno)


def with_file(path, mode, body):
    def call(vfs):
        fh = vfs.open(path, mode)
        try:
            return body(vfs, fh)
        finally:
            vfs.close(fh)
    return call


def stat_view(st_):
    return (st_.kind, st_.size, st_.nlink)


class OsAgreesWithModel(RuleBasedStateMachine):
    @initialize()
    def start(self):
        self.root = tempfile.mkdtemp(prefix="hookconf-diff-")
        self.os = OsVfs(self.root)
        self.model = ModelVfs()

        self.held = []  # (OsVfs handle, ModelVfs handle) pairs kept across steps

    def teardown(self):
        if hasattr(self, "os"):
            self.os.close_root()
            shutil.rmtree(self.root)

    def pair(self, i):
        return self.held[i % len(self.held)] if self.held else None

    def both_held(self, i, call):
        """``call(vfs, handle)`` on the i-th held pair; the same outcome on both."""
        pair = self.pair(i)
        if pair is None:
            return
        got_os = outcome(self.os, lambda v: call(v, pair[0]))
        got_model = outcome(self.model, lambda v: call(v, pair[1]))
        assert got_os == got_model, f"OsVfs {got_os} != ModelVfs {got_model}"

    def both(self, call):
        got_os, got_model = outcome(self.os, call), outcome(self.model, call)
        assert got_os == got_model, f"OsVfs {got_os} != ModelVfs {got_model}"

    @invariant()
    def same_tree(self):
        if hasattr(self, "os"):
            assert snapshot(self.os) == snapshot(self.model)

    @rule(path=PATHS)
    def mkdir(self, path):
        self.both(lambda v: v.mkdir(path))

    @rule(path=PATHS, mode=MODES, data=DATA, offset=OFFSETS)
    def open_write(self, path, mode, data, offset):
        self.both(with_file(path, mode, lambda v, fh: v.write(fh, data, offset)))

    @rule(path=PATHS, size=OFFSETS)
    def truncate(self, path, size):
        self.both(with_file(path, "r+", lambda v, fh: v.truncate(fh, size)))

    @rule(path=PATHS, mode=MODES, offset=OFFSETS)
    def read(self, path, mode, offset):
        self.both(with_file(path, mode, lambda v, fh: (v.read(fh, 64, offset),
                                                      stat_view(v.fstat(fh)))))

    @rule(path=PATHS)
    def read_only_write_is_refused(self, path):
        self.both(with_file(path, "r", lambda v, fh: v.write(fh, b"x", 0)))

    @rule(path=PATHS)
    def fsync(self, path):
        self.both(with_file(path, "r+", lambda v, fh: v.fsync(fh)))

    @rule(path=DIRS)
    def fsync_dir(self, path):
        self.both(lambda v: v.fsync_dir(path))

    @rule(path=DIRS)
    def lstat(self, path):
        self.both(lambda v: stat_view(v.lstat(path)))

    @rule(path=DIRS)
    def listdir(self, path):
        self.both(lambda v: v.listdir(path))

    @rule(path=DIRS)
    def open_dir(self, path):
        def call(v):
            h = v.open_dir(path)
            names = v.listdir(".", at=h)
            v.close(h)
            return names
        self.both(call)

    @rule(path=DIRS)
    def device_is_stable(self, path):
        self.both(lambda v: v.device_of(path) == v.device_of("."))

    @rule(path=PATHS)
    def readlink(self, path):
        self.both(lambda v: v.readlink(path))

    @rule(link_to=st.sampled_from(("a", "a/b", "nowhere", "..")), path=PATHS)
    def symlink(self, link_to, path):
        self.both(lambda v: v.symlink(link_to, path))

    @rule(path=PATHS)
    def mkfifo(self, path):
        self.both(lambda v: v.mkfifo(path))

    @rule(src=PATHS, dst=PATHS)
    def link(self, src, dst):
        self.both(lambda v: v.link(src, dst))

    @rule(src=PATHS, dst=PATHS)
    def rename(self, src, dst):
        self.both(lambda v: v.rename(src, dst))

    @rule(src=PATHS, dst=PATHS)
    def rename_noreplace(self, src, dst):
        self.both(lambda v: v.rename_noreplace(src, dst))

    @rule(path=PATHS)
    def unlink(self, path):
        self.both(lambda v: v.unlink(path))

    @rule(path=PATHS)
    def rmdir(self, path):
        self.both(lambda v: v.rmdir(path))

    # ---- handles held across steps: the at= form of every call (§10.1) -------------
    @rule(path=DIRS)
    def hold_dir(self, path):
        if len(self.held) >= 4:
            return
        got = [outcome(v, lambda v: v.open_dir(path)) for v in (self.os, self.model)]
        assert [g[0] for g in got] == [got[0][0]] * 2 and got[0][0] in ("ok", "err"), got
        if got[0][0] == "ok":
            self.held.append((got[0][1], got[1][1]))
        else:
            assert got[0] == got[1]

    @rule(path=PATHS, mode=MODES)
    def hold_file(self, path, mode):
        if len(self.held) >= 4:
            return
        got = [outcome(v, lambda v: v.open(path, mode)) for v in (self.os, self.model)]
        if got[0][0] == "ok" and got[1][0] == "ok":
            self.held.append((got[0][1], got[1][1]))
        else:
            assert got[0] == got[1]

    @rule(i=st.integers(0, 3))
    def release(self, i):
        pair = self.pair(i)
        if pair is not None:
            self.both_held(i, lambda v, h: v.close(h))
            self.held.remove(pair)

    @rule(i=st.integers(0, 3), name=st.sampled_from(NAMES), data=DATA)
    def create_at(self, i, name, data):
        def call(v, h):
            fh = v.open(name, "x", at=h)
            v.write(fh, data, 0)
            v.close(fh)
        self.both_held(i, call)

    @rule(i=st.integers(0, 3), name=st.sampled_from(NAMES))
    def mkdir_at(self, i, name):
        self.both_held(i, lambda v, h: v.mkdir(name, at=h))

    @rule(i=st.integers(0, 3))
    def listdir_at(self, i):
        self.both_held(i, lambda v, h: v.listdir(".", at=h))

    @rule(i=st.integers(0, 3), name=st.sampled_from(NAMES), dst=PATHS)
    def rename_from_held_dir(self, i, name, dst):
        self.both_held(i, lambda v, h: v.rename_noreplace(name, dst, src_at=h))

    @rule(i=st.integers(0, 3), data=DATA, offset=OFFSETS)
    def write_held(self, i, data, offset):
        self.both_held(i, lambda v, h: v.write(h, data, offset))

    @rule(i=st.integers(0, 3), offset=OFFSETS)
    def read_held(self, i, offset):
        self.both_held(i, lambda v, h: (v.read(h, 64, offset), stat_view(v.fstat(h))))

    @rule(i=st.integers(0, 3))
    def fsync_held(self, i):
        self.both_held(i, lambda v, h: v.fsync(h))

    @rule(path=st.sampled_from(("/a", "a//b", "../a", "a/./b", "a\\b", "")))
    def malformed_path(self, path):
        self.both(lambda v: v.lstat(path))


_DEFAULT = settings(max_examples=300, stateful_step_count=30, deadline=None,
                    derandomize=True, suppress_health_check=[HealthCheck.too_slow])
_SLOW = settings(max_examples=4000, stateful_step_count=40, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


def test_os_and_model_agree_on_generated_sequences():
    OsAgreesWithModel.TestCase.settings = _DEFAULT
    OsAgreesWithModel.TestCase().runTest()


@pytest.mark.slow
def test_os_and_model_agree_on_thousands_of_sequences():
    OsAgreesWithModel.TestCase.settings = _SLOW
    OsAgreesWithModel.TestCase().runTest()
