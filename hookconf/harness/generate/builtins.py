"""Generated §17/§19.2 archive cases: every locked builtin as released, and broken each way.

``builtins.archives`` reads the builtin lock (``hookconf/corpus/builtins/builtins.lock.json``)
and, for each builtin, yields ``builtins.run`` cases:

* ``locked`` (positive): the archive as released loads (§19.2);
* ``flip.first|middle|last``: one byte changed, the lock as committed — the SHA-256 (or size)
  assertion refuses it;
* ``append.1`` / ``truncate.1``: one byte more or less — the size assertion;
* ``manifest.relocked`` / ``module.relocked``: the manifest's host permissions widened to
  ``<all_urls>``, or the module changed, in a well-formed archive whose lock row was edited to
  match — only the signature can refuse it;
* ``other-key``: signed by a key the runtime does not trust; ``other-builtin``: another
  builtin's valid signature;
* ``lock-newer-version``: the released archive, signature and digest intact, under a lock row
  that claims a newer version — loading it would run old code as the upgrade (H25: 升级绝不运行
  旧代码), so the manifest's version must be the lock's;
* ``signature.not-base64`` / ``signature.short``: the locked signature sent as text outside
  the base64 alphabet, or one byte short — no signature verifies, so the archive is refused;
* ``layout.*`` (advisory): a signed, lock-matching archive without its manifest, with a
  manifest that is not JSON or names no ``main``, with a ``main`` that is not an entry, or
  cut in half (not a readable zip) — §2 and §19.2 fix the release assertions, not the
  package's inner layout, so how such an archive is refused is the candidate's choice;
* ``entry.*`` (advisory): a well-formed, signed, lock-matching archive with an entry named
  ``../``, ``/``, ``\\`` or ``dist/../../`` — §12 makes bundles untrusted input and asks for
  path-traversal defence for save and staging paths; archive entry names are not named, so
  the reference's refusal is its choice.

Negative cases expect ``loaded: false`` (with any §13 code) and nothing run.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from collections.abc import Iterator
from typing import Any

from hookconf.harness.builtins.lock import LockError, load_lock
from hookconf.harness.generate import Instance, TemplateError, template

__all__ = ["expand_archives"]

_NORMATIVE = ("§19.2: 三个锁定 builtin archive 先通过锁定 size、SHA-256 与签名断言，再通过 PluginHost、"
              "QuickJS 与 runtime 的真实 Hook 矩阵; §2: 内置插件仍以签名且哈希锁定的 .moext 发布包被消费")
_ZIP_SLIP = ("§12 names bundles untrusted input and path traversal in save/staging paths; it does not "
             "name archive entry paths, so refusing a signed, locked archive for its entry names is "
             "the reference's choice")
_LAYOUT = ("§2 and §19.2 fix the release assertions (size, SHA-256, signature), not the package's "
           "inner layout: an archive that passes them yet has no loadable manifest and main cannot "
           "run, but how it is refused is the candidate's choice")
_MANIFEST = "motrix-plugin.json"
_ENTRY_NAMES = {"parent": "../evil.js", "absolute": "/evil.js", "backslash": "dist\\..\\..\\evil.js",
                "nested-parent": "dist/../../evil.js"}


def _negative(key: str, title: str, given: dict[str, Any], *, advisory: str = "") -> Instance:
    return Instance(key=key, title=title, kind="builtins.run", polarity="negative",
                    given={**given, "invocations": []}, expect={"loaded": False},
                    invariants=("H25",), spec="§19.2", advisory=advisory,
                    notes="" if advisory else _NORMATIVE)


@template("builtins.archives", params={
    "type": "object", "additionalProperties": False,
    "properties": {"builtins": {"type": "array", "items": {"type": "string"}}},
})
def expand_archives(params: dict[str, Any], rng: random.Random) -> Iterator[Instance]:
    """Every locked builtin as released (positive) and tampered each way (negative)."""
    try:
        lock = load_lock()
    except LockError as exc:
        raise TemplateError(str(exc)) from None
    for plugin_id in params.get("builtins", list(lock)):
        if plugin_id not in lock:
            raise TemplateError(f"the builtin lock has no {plugin_id!r}")
        row = lock[plugin_id].entry
        size = int(row["size"])
        short = plugin_id.rsplit(".", 1)[-1]
        base = {"builtin": plugin_id}
        yield Instance(key=f"{short}.locked", title=f"{plugin_id} {row['version']} as locked loads",
                       kind="builtins.run", polarity="positive",
                       given={**base, "invocations": []}, expect={"loaded": True, "results": []},
                       invariants=("H25",), spec="§19.2", notes=_NORMATIVE)
        for name, offset in (("first", 0), ("middle", size // 2), ("last", size - 1)):
            yield _negative(f"{short}.flip.{name}", f"{plugin_id}: one byte changed at offset {offset} "
                            "(lock as committed) is refused", {**base, "archive": {"flip": [offset]}})
        yield _negative(f"{short}.append.1", f"{plugin_id}: one byte appended is refused (size)",
                        {**base, "archive": {"append": 1}})
        yield _negative(f"{short}.truncate.1", f"{plugin_id}: one byte cut off is refused (size)",
                        {**base, "archive": {"truncate": 1}})
        yield _negative(f"{short}.manifest.relocked",
                        f"{plugin_id}: host permissions widened to <all_urls> with the lock edited to "
                        "match is refused by the signature",
                        {**base, "archive": {"replace": {_MANIFEST: _widened(lock[plugin_id])}},
                         "lock": "match"})
        yield _negative(f"{short}.module.relocked",
                        f"{plugin_id}: the module changed with the lock edited to match is refused "
                        "by the signature",
                        {**base, "archive": {"replace": {"dist/plugin.js": "// changed\n"}}, "lock": "match"})
        yield _negative(f"{short}.other-key", f"{plugin_id}: signed by a key the runtime does not trust "
                        "is refused", {**base, "signature": "other-key"})
        yield _negative(f"{short}.lock-newer-version",
                        f"{plugin_id}: the released archive under a lock row claiming version 9.0.0 "
                        "is refused (the manifest names another version)",
                        {**base, "lockVersion": "9.0.0"})
        yield _negative(f"{short}.other-builtin", f"{plugin_id}: another builtin's signature is refused",
                        {**base, "signature": "other-builtin"})
        for how, what in (("not-base64", "text outside the base64 alphabet"),
                          ("short", "one byte short (63 bytes)")):
            yield _negative(f"{short}.signature.{how}", f"{plugin_id}: the locked signature sent as "
                            f"{what} verifies nothing and is refused", {**base, "signature": how})
        manifest = _manifest(lock[plugin_id])
        no_main = {k: v for k, v in manifest.items() if k != "main"}
        layouts = {
            "no-manifest": ("without its manifest", {"drop": [_MANIFEST]}),
            "manifest-not-json": ("with a manifest that is not JSON",
                                  {"replace": {_MANIFEST: "{\"id\": "}}),
            "manifest-no-main": ("with a manifest that names no main module",
                                 {"replace": {_MANIFEST: json.dumps(no_main)}}),
            "main-not-an-entry": ("whose manifest's main is not an entry of the archive",
                                  {"replace": {_MANIFEST: json.dumps({**manifest, "main": "dist/absent.js"})}}),
            "not-a-zip": ("cut in half (not a readable zip)", {"truncate": size // 2}),
        }
        for name, (what, plan) in layouts.items():
            yield _negative(f"{short}.layout.{name}", f"{plugin_id}: a signed, lock-matching archive "
                            f"{what} is refused", {**base, "archive": plan, "lock": "match",
                                                   "signature": "test-key"}, advisory=_LAYOUT)
        for name, entry in _ENTRY_NAMES.items():
            yield _negative(f"{short}.entry.{name}",
                            f"{plugin_id}: a signed, lock-matching archive with entry {entry!r} is refused",
                            {**base, "archive": {"add": {entry: "// outside\n"}}, "lock": "match",
                             "signature": "test-key"}, advisory=_ZIP_SLIP)


def _manifest(builtin: Any) -> dict[str, Any]:
    with zipfile.ZipFile(io.BytesIO(builtin.archive)) as zf:
        return json.loads(zf.read(_MANIFEST))


def _widened(builtin: Any) -> str:
    manifest = _manifest(builtin)
    manifest["hostPermissions"] = ["<all_urls>"]
    return json.dumps(manifest, indent=2) + "\n"
