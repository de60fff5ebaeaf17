"""Small builders for finalize tests: a ModelVfs with a save directory and files in it."""

from __future__ import annotations

from hookconf.faultinject import ModelVfs


def put(vfs, path: str, data: bytes) -> None:
    fh = vfs.open(path, "x")
    if data:
        vfs.write(fh, data, 0)
    vfs.close(fh)


def world(*, devices: tuple[str, ...] = (), files: dict[str, bytes] | None = None,
          dirs: tuple[str, ...] = ()) -> ModelVfs:
    vfs = ModelVfs(devices=devices)
    for d in ("save", "state", *dirs):
        vfs.mkdir(d)
    for path, data in (files or {}).items():
        put(vfs, path, data)
    vfs.sync()
    return vfs
