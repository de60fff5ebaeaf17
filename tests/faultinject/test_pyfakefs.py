"""Path rules under pyfakefs's emulated Windows and macOS filesystems (§10.1, §12).

pyfakefs is used only for *path semantics* — name equivalence and separators — never for
durability (its fsync is a no-op).  OsVfs itself needs POSIX directory fds, which the
emulated Windows cannot open, so what runs here is the logic OsVfs and ModelVfs share:
:func:`hookconf.faultinject.port.split_path` and :func:`hookconf.faultinject.model.fold_name`, plus
ModelVfs's name-folding mode driven in lockstep with the emulated filesystem.
"""

from __future__ import annotations

import errno
import itertools
import os

import pytest
from pyfakefs.fake_filesystem import OSType

from hookconf.faultinject.model import ModelVfs, fold_name
from hookconf.faultinject.port import split_path

EMULATED = [pytest.param(OSType.WINDOWS, id="windows"), pytest.param(OSType.MACOS, id="macos")]
NAMES = ["a", "A", "ab", "aB", "AB", "Readme.TXT", "README.txt", "stra\u00dfe", "STRASSE",
         "caf\u00e9", "CAF\u00c9", "cafe\u0301", "\u01c4", "\u01c5", "\u01c6", "K", "\u212a"]


def _base(fs, ost):
    fs.os = ost
    base = "C:\\w" if ost == OSType.WINDOWS else "/w"
    os.makedirs(base)
    os.chdir(base)


@pytest.mark.parametrize("ost", EMULATED)
def test_model_folding_treats_as_equal_every_pair_the_emulated_fs_does(fs, ost):
    _base(fs, ost)
    for i, (x, y) in enumerate(itertools.product(NAMES, NAMES)):
        d = f"d{i}"
        os.mkdir(d)
        open(os.path.join(d, x), "w").close()
        emulated_same = os.path.exists(os.path.join(d, y))
        model_same = fold_name(x) == fold_name(y)
        if emulated_same:
            assert model_same, (x, y)  # the model never misses a collision the OS has
        if x.isascii() and y.isascii():
            assert emulated_same == model_same, (x, y)


def _outcome(call):
    """ok / missing / refused: errno values for refusals differ by platform (Windows says
    EACCES where POSIX says EISDIR), name lookups must not."""
    try:
        call()
        return "ok"
    except OSError as exc:
        return "missing" if exc.errno == errno.ENOENT else "refused"


def _ops(names):
    for x in names:
        yield ("mkdir", x)
        yield ("create", x)
        yield ("unlink", x)
        yield ("rmdir", x)
        for y in names:
            yield ("rename", x, y)


@pytest.mark.parametrize("ost", EMULATED)
def test_folding_model_agrees_with_emulated_fs_op_by_op(fs, ost):
    """Every op over case-variant ASCII names, starting from the state the previous op
    left, gives the same outcome and the same listing on both."""
    _base(fs, ost)
    model = ModelVfs(fold_names=True)
    names = ["a", "A", "b", "B"]

    def on_fs(op, *args):
        if op == "create":
            return lambda: os.close(os.open(args[0], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        if op == "rename":  # the no-clobber install the port offers
            def call():
                src, dst = args
                if os.path.lexists(dst) and os.path.normcase(src) != os.path.normcase(dst):
                    raise OSError(errno.EEXIST, "exists", dst)
                if not os.path.lexists(src):
                    raise OSError(errno.ENOENT, "missing", src)
                os.rename(src, dst)
            return call
        return lambda: getattr(os, op)(*args)

    def on_model(op, *args):
        if op == "create":
            return lambda: model.close(model.open(args[0], "x"))
        if op == "rename":
            return lambda: model.rename_noreplace(*args)
        return lambda: getattr(model, op)(*args)

    for op in itertools.chain(_ops(names), _ops(names)):
        assert _outcome(on_fs(*op)) == _outcome(on_model(*op)), op
        assert sorted(os.listdir(".")) == model.listdir(), op


ALPHABET = ["a", "b", "\\", "/", "."]


@pytest.mark.parametrize("ost", EMULATED)
def test_accepted_paths_have_the_same_components_under_emulated_rules(fs, ost):
    """No separator hides in a name split_path accepts: the emulated OS splits every
    accepted path into exactly split_path's components; paths it would split
    differently (backslash on Windows) are refused."""
    _base(fs, ost)
    checked = 0
    for n in range(1, 6):
        for chars in itertools.product(ALPHABET, repeat=n):
            path = "".join(chars)
            if path == ".":
                continue  # the whole path "." names the held directory itself
            try:
                comps = split_path(path)
            except OSError as exc:
                assert exc.errno == errno.EINVAL
                continue
            parts, rest = [], path
            while rest:
                rest, tail = os.path.split(rest)
                parts.insert(0, tail)
            assert tuple(parts) == comps, path
            checked += 1
    assert checked > 100
