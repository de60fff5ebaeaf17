"""Guest fixture plugins: where a case's plugins are found and how they are read.

A ``guest.run`` case names one plugin (``given.plugin``) and a runtime case may install
bundles (``given.plugins[i].bundle``).  Each is a folder ``<id>/`` holding
``motrix-plugin.json`` and the module its ``main`` names.  A case looks its plugins up in
the ``plugins/`` folders of its own corpus first (see :func:`plugin_folders`), then in the
embedded ``hookconf/corpus/plugins/``.

Fixtures are other people's files: the manifest is read with the bounded JSON reader, the
``main`` module must be UTF-8 inside the plugin's folder, and both are size-bounded.  Every
problem is a :class:`FixtureError`; the corpus loader turns it into a corpus error, so a
case never reaches a candidate with a plugin that cannot be sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from hookconf import boundedjson
from hookconf import corpus as embedded

__all__ = ["MAX_MANIFEST_BYTES", "MAX_SOURCE_BYTES", "FixtureError", "load_fixture", "plugin_folders",
           "plugin_ids"]

#: Largest ``motrix-plugin.json`` read (bytes).
MAX_MANIFEST_BYTES = 1024 * 1024
#: Largest ``main`` module read (bytes); it crosses the wire inside one protocol line.
MAX_SOURCE_BYTES = 4 * 1024 * 1024


class FixtureError(ValueError):
    """A named plugin that is missing or unreadable; the message says which file and why."""


def plugin_folders(root: Path) -> tuple[Path, ...]:
    """The ``plugins/`` folders of a corpus root, most specific first, then the embedded one.

    For a folder ``R`` (or the folder of a case file ``R/x.json``): ``R/plugins`` and, when
    ``R`` is named ``cases``, ``R/../plugins`` — so ``my-corpus/cases/*.json`` with
    ``my-corpus/plugins/<id>/`` works as the embedded corpus does.  Folders that do not
    exist are left out.
    """
    base = root if root.is_dir() else root.parent
    candidates = [base / "plugins"]
    if base.name == "cases":
        candidates.append(base.parent / "plugins")
    found: list[Path] = []
    for folder in [*candidates, embedded.PLUGINS]:
        if folder.is_dir() and folder.resolve() not in [f.resolve() for f in found]:
            found.append(folder)
    return tuple(found)


def plugin_ids(kind: str, given: Any) -> list[tuple[str, str]]:
    """``(pointer within given, plugin id)`` for every fixture plugin a case names."""
    if not isinstance(given, dict):
        return []
    if kind == "guest.run" and isinstance(given.get("plugin"), str):
        return [("/plugin", given["plugin"])]
    named = []
    for index, plugin in enumerate(given.get("plugins") or []):
        if isinstance(plugin, dict) and isinstance(plugin.get("bundle"), str):
            named.append((f"/plugins/{index}/bundle", plugin["bundle"]))
    return named


def _read(path: Path, max_bytes: int) -> bytes:
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FixtureError(f"{path}: more than {max_bytes} bytes")
    return data


def load_fixture(plugin_id: str, folders: Sequence[Path] | Iterable[Path] = (embedded.PLUGINS,)) -> dict[str, Any]:
    """``{"manifest": dict, "source": str}`` of the first ``<folder>/<plugin_id>/`` found.

    Args:
        plugin_id: a plugin folder name (one path component).
        folders: where to look, in order (a case's :attr:`~hookconf.harness.corpus.Case.plugins`).

    Raises:
        FixtureError: no such plugin, an unreadable or malformed ``motrix-plugin.json``
            (not JSON, too deep, over :data:`MAX_MANIFEST_BYTES`, not an object, no string
            ``main``), a ``main`` outside the plugin's folder, or a module that is not
            UTF-8 or is over :data:`MAX_SOURCE_BYTES`.
    """
    folders = tuple(folders)
    if not plugin_id or plugin_id in {".", ".."} or "/" in plugin_id or "\\" in plugin_id:
        raise FixtureError(f"plugin id {plugin_id!r} is not a folder name")
    root = next((folder / plugin_id for folder in folders if (folder / plugin_id).is_dir()), None)
    if root is None:
        raise FixtureError(f"no plugin {plugin_id!r} in {', '.join(str(f) for f in folders) or 'no folder'}")
    manifest_path = root / "motrix-plugin.json"
    try:
        manifest = boundedjson.loads(_read(manifest_path, MAX_MANIFEST_BYTES))
    except OSError as exc:
        raise FixtureError(f"{manifest_path}: cannot read: {exc.strerror or exc}") from None
    except boundedjson.JsonBoundsError as exc:
        raise FixtureError(f"{manifest_path}#{exc.pointer}: {exc.reason}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("main"), str):
        raise FixtureError(f"{manifest_path}: not a manifest object with a string 'main'")
    main = (root / manifest["main"]).resolve()
    if not main.is_relative_to(root.resolve()):
        raise FixtureError(f"{manifest_path}#/main: {manifest['main']!r} is outside the plugin's folder")
    try:
        source = _read(main, MAX_SOURCE_BYTES).decode("utf-8")
    except OSError as exc:
        raise FixtureError(f"{main}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise FixtureError(f"{main}: invalid UTF-8 at byte {exc.start}") from None
    return {"manifest": manifest, "source": source}
