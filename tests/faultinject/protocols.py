"""Tiny crash-test protocols used by the explorer tests and benchmarks.

Each is a module-level :class:`~hookconf.faultinject.explorer.Scenario` with module-level
``recover`` and ``check`` functions, so a violation's re-run command can import them.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping

from hookconf.faultinject.explorer import Scenario
from hookconf.faultinject.model import ModelVfs
from hookconf.faultinject.port import Vfs
from hookconf.faultinject.sqlite import connect

# ---- publish a new version of a file: write temp, fsync, rename (§10.2) ----------------


def _setup_config(vfs: Vfs) -> None:
    vfs.mkdir("data")
    fh = vfs.open("data/config", "x")
    vfs.write(fh, b"version=1\n", 0)
    vfs.close(fh)


def _publish(vfs: Vfs, notes: dict[str, object], *, dir_fsync: bool) -> None:
    fh = vfs.open("data/config.tmp", "x")
    vfs.write(fh, b"version=2\n", 0)
    vfs.fsync(fh)
    vfs.close(fh)
    vfs.rename("data/config.tmp", "data/config")
    if dir_fsync:
        vfs.fsync_dir("data")
    notes["published"] = True
    # the program goes on after acknowledging: an unrelated log line
    log = vfs.open("data/log", "w")
    vfs.write(log, b"published version 2\n", 0)
    vfs.close(log)


def publish_without_dir_fsync(vfs: Vfs, notes: dict[str, object]) -> None:
    _publish(vfs, notes, dir_fsync=False)


def publish_with_dir_fsync(vfs: Vfs, notes: dict[str, object]) -> None:
    _publish(vfs, notes, dir_fsync=True)


def recover_config(vfs: Vfs) -> None:
    """Remove a leftover temporary file; idempotent."""
    try:
        vfs.unlink("data/config.tmp")
    except FileNotFoundError:
        return
    vfs.fsync_dir("data")


def check_config(vfs: Vfs, notes: Mapping[str, object]) -> list[str]:
    fh = vfs.open("data/config", "r")
    content = vfs.read(fh, 100, 0)
    vfs.close(fh)
    problems = []
    if content not in (b"version=1\n", b"version=2\n"):
        problems.append(f"config holds neither version: {content!r}")
    if notes.get("published") and content != b"version=2\n":
        problems.append("acknowledged publication lost: config is back at version 1")
    return problems


PUBLISH_BROKEN = Scenario("demo.publish.no-dir-fsync", publish_without_dir_fsync,
                          setup=_setup_config)
PUBLISH_FIXED = Scenario("demo.publish.dir-fsync", publish_with_dir_fsync,
                         setup=_setup_config)

# ---- an acknowledged SQLite commit under synchronous=FULL vs EXTRA ------------------------


def _setup_db(vfs: Vfs) -> None:
    conn = connect(vfs, "app.db")
    conn.execute("CREATE TABLE acked(n INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO acked VALUES (0)")
    conn.close()


def _commit(vfs: Vfs, notes: dict[str, object], synchronous: str) -> None:
    conn = connect(vfs, "app.db", synchronous=synchronous)
    conn.execute("INSERT INTO acked VALUES (1)")
    notes["acked"] = 1
    log = vfs.open("log", "w")
    vfs.write(log, b"committed 1\n", 0)
    vfs.close(log)
    conn.close()


def commit_full(vfs: Vfs, notes: dict[str, object]) -> None:
    _commit(vfs, notes, "FULL")


def commit_extra(vfs: Vfs, notes: dict[str, object]) -> None:
    _commit(vfs, notes, "EXTRA")


def recover_db(vfs: Vfs) -> None:
    """Open the database (a hot journal is rolled back) and close it."""
    conn = connect(vfs, "app.db")
    conn.execute("SELECT count(*) FROM acked").fetchall()
    conn.close()


def check_db(vfs: Vfs, notes: Mapping[str, object]) -> list[str]:
    conn = connect(vfs, "app.db")
    problems = []
    integrity = conn.execute("PRAGMA integrity_check").fetchall()
    if integrity != [("ok",)]:
        problems.append(f"integrity_check: {integrity}")
    rows = {n for (n,) in conn.execute("SELECT n FROM acked")}
    conn.close()
    if 0 not in rows:
        problems.append("row committed before the scenario is gone")
    if notes.get("acked") and 1 not in rows:
        problems.append("acknowledged commit lost")
    return problems


SQLITE_FULL = Scenario("demo.sqlite.synchronous-full", commit_full, setup=_setup_db)
SQLITE_EXTRA = Scenario("demo.sqlite.synchronous-extra", commit_extra, setup=_setup_db)

# ---- move a file across devices: EXDEV, then copy + fsync + unlink (§10.1, §10.2) ------


def _setup_download(vfs: Vfs) -> None:
    fh = vfs.open("downloads/movie.mkv", "x")
    vfs.write(fh, b"\x00movie-bytes" * 50, 0)
    vfs.close(fh)


def _move_across(vfs: Vfs, notes: dict[str, object], *, target_dir_fsync: bool) -> None:
    try:
        vfs.rename_noreplace("downloads/movie.mkv", "media/Movie.mkv")
    except OSError as exc:
        if exc.errno != errno.EXDEV:  # across devices: copy instead
            raise
    src = vfs.open("downloads/movie.mkv", "r")
    dst = vfs.open("media/Movie.mkv", "x")
    offset = 0
    while chunk := vfs.read(src, 256, offset):
        vfs.write(dst, chunk, offset)
        offset += len(chunk)
    vfs.fsync(dst)
    vfs.close(dst)
    vfs.close(src)
    if target_dir_fsync:
        vfs.fsync_dir("media")
    vfs.unlink("downloads/movie.mkv")
    vfs.fsync_dir("downloads")
    notes["moved"] = True


def move_without_target_dir_fsync(vfs: Vfs, notes: dict[str, object]) -> None:
    _move_across(vfs, notes, target_dir_fsync=False)


def move_with_target_dir_fsync(vfs: Vfs, notes: dict[str, object]) -> None:
    _move_across(vfs, notes, target_dir_fsync=True)


def recover_move(vfs: Vfs) -> None:
    """A partial copy next to an intact source is discarded; idempotent."""
    if "movie.mkv" in vfs.listdir("downloads") and "movie.mkv" in vfs.listdir("media"):
        vfs.unlink("media/movie.mkv")
        vfs.fsync_dir("media")


def check_move(vfs: Vfs, notes: Mapping[str, object]) -> list[str]:
    expected = b"\x00movie-bytes" * 50
    copies = []
    for path in ("downloads/movie.mkv", "media/MOVIE.MKV"):
        try:
            fh = vfs.open(path, "r")
        except FileNotFoundError:
            continue
        copies.append((path, vfs.read(fh, 1 << 16, 0)))
        vfs.close(fh)
    if not any(data == expected for _, data in copies):
        return [f"the movie's bytes are lost: {[(p, len(d)) for p, d in copies]}"]
    if notes.get("moved") and copies[-1][0] != "media/MOVIE.MKV":
        return ["acknowledged move lost"]
    return []


def _two_devices() -> ModelVfs:
    """downloads/ and media/ on different devices; media folds names (a Windows share)."""
    return ModelVfs(devices=("downloads", "media"), fold_names=True)


MOVE_BROKEN = Scenario("demo.move.exdev.no-target-dir-fsync", move_without_target_dir_fsync,
                       setup=_setup_download, make_vfs=_two_devices)
MOVE_FIXED = Scenario("demo.move.exdev.target-dir-fsync", move_with_target_dir_fsync,
                      setup=_setup_download, make_vfs=_two_devices)
