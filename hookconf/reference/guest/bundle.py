"""Plugin bundles: ``motrix-plugin.json`` plus one ES module (§3, §6, §14).

A plugin directory holds ``motrix-plugin.json`` and the file its ``main`` names
(``dist/plugin.js``).  The bundle imports only from ``motrix:plugin-api`` and registers
hooks at top level.  The ``quickjs`` binding has no module loader, so
:func:`rewrite_imports` turns each ``import … from 'motrix:plugin-api'`` into a binding
of the prelude's API object; any other import is refused (a bundle is self-contained).

Manifest checks here are the ones the runtime needs (id, version, main, declared hooks
and roles, permissions, host permissions); the full manifest-v1 schema is outside this
module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookconf import boundedjson
from hookconf.reference.errors import ErrorCode, Fault, HookRuntimeError
from hookconf.reference.schemas import HOOKS

__all__ = ["MAX_BUNDLE_BYTES", "PluginBundle", "bundle_from_source",
           "load_bundle", "rewrite_imports"]

MAX_BUNDLE_BYTES = 1024 * 1024  # dist/plugin.js ≤ 1 MiB
MAX_MANIFEST_BYTES = 1024 * 1024  # motrix-plugin.json ≤ 1 MiB, nested ≤ 128 levels
ROLES = ("pre-resolve", "resolve", "enrich", "post-process", "audit")
API_MODULE = "motrix:plugin-api"

_IMPORT = re.compile(
    r"""^[ \t]*import\s+(?P<clause>[^'";]*?)\s*from\s*(?P<q>['"])(?P<spec>[^'"]+)(?P=q)[ \t]*;?""",
    re.MULTILINE,
)
_BARE_IMPORT = re.compile(r"""^[ \t]*import\s*(['"])[^'"]+\1""", re.MULTILINE)
_DYNAMIC_IMPORT = re.compile(r"\bimport\s*\(")


def _bad(message: str) -> HookRuntimeError:
    return HookRuntimeError(ErrorCode.WORKER_CRASHED, message, fault=Fault.GUEST)


def _binding(clause: str) -> str:
    clause = clause.strip()
    namespace = re.fullmatch(r"\*\s+as\s+([A-Za-z_$][\w$]*)", clause)
    if namespace:
        return f"const {namespace.group(1)} = globalThis.__motrixApi;"
    named = re.fullmatch(r"\{([^}]*)\}", clause)
    if not named:
        raise _bad(f"unsupported import clause {clause[:80]!r}")
    parts = []
    for item in filter(None, (p.strip() for p in named.group(1).split(","))):
        alias = re.fullmatch(r"([A-Za-z_$][\w$]*)(?:\s+as\s+([A-Za-z_$][\w$]*))?", item)
        if not alias:
            raise _bad(f"unsupported import specifier {item[:80]!r}")
        source, local = alias.group(1), alias.group(2)
        parts.append(f"{source}: {local}" if local else source)
    return "const { " + ", ".join(parts) + " } = globalThis.__motrixApi;"


def rewrite_imports(source: str) -> str:
    """Bind ``motrix:plugin-api`` imports to the prelude's API object.

    Supports ``import { a, b as c } from 'motrix:plugin-api'`` and
    ``import * as api from 'motrix:plugin-api'``.

    Raises:
        HookRuntimeError: ``plugin.hook.worker_crashed`` (guest fault) for an import of
            any other module, a bare or dynamic import, or an unsupported clause.
    """
    def replace(match: re.Match[str]) -> str:
        if match.group("spec") != API_MODULE:
            raise _bad(f"bundle imports {match.group('spec')[:80]!r}; only {API_MODULE}")
        return _binding(match.group("clause"))

    rewritten = _IMPORT.sub(replace, source)
    if _BARE_IMPORT.search(rewritten) or _DYNAMIC_IMPORT.search(rewritten):
        raise _bad("bundle has a bare or dynamic import")
    return rewritten


@dataclass(frozen=True, slots=True)
class PluginBundle:
    """A loaded plugin: manifest facts and the rewritten module source.

    Attributes:
        plugin_id, version: manifest identity.
        hooks: declared hook name → role (``contributes.hooks``).
        permissions: effective capability grants (manifest ``permissions`` plus ``log``).
        host_permissions: manifest ``hostPermissions`` patterns (§7), unparsed.
        script: the ES module text with API imports rewritten.
        manifest: the manifest as parsed JSON.
    """

    plugin_id: str
    version: str
    hooks: dict[str, str]
    permissions: frozenset[str]
    host_permissions: tuple[str, ...]
    script: str
    manifest: dict


def load_bundle(plugin_dir: str | Path) -> PluginBundle:
    """Read ``motrix-plugin.json`` and its ``main`` bundle from ``plugin_dir``.

    Raises:
        HookRuntimeError: ``plugin.hook.worker_crashed`` (guest fault) for a missing or
            malformed manifest, an unknown hook or role, a ``main`` outside the directory,
            a bundle over 1 MiB, or a refused import.
    """
    root = Path(plugin_dir).resolve()
    try:
        with (root / "motrix-plugin.json").open("rb") as handle:
            manifest = boundedjson.loads(handle.read(MAX_MANIFEST_BYTES + 1), max_bytes=MAX_MANIFEST_BYTES)
    except (OSError, ValueError) as error:
        raise _bad(f"unreadable manifest: {error}") from None
    _check_manifest(manifest)
    main = (root / manifest["main"]).resolve()
    if root not in main.parents:
        raise _bad("manifest main escapes the plugin directory")
    try:
        raw = main.read_bytes()
    except OSError as error:
        raise _bad(f"unreadable bundle: {error}") from None
    return _bundle(manifest, raw)


def bundle_from_source(manifest: Any, source: str) -> PluginBundle:
    """Build a bundle from a parsed manifest and the text of its ``main`` module.

    The same checks as :func:`load_bundle` apply (a candidate protocol request carries the
    plugin this way).  Raises ``HookRuntimeError`` as :func:`load_bundle` does.
    """
    _check_manifest(manifest)
    if not isinstance(source, str):
        raise _bad("bundle source is not text")
    return _bundle(manifest, source.encode("utf-8", "surrogatepass"))


def _check_manifest(manifest: Any) -> None:
    if not isinstance(manifest, dict):
        raise _bad("manifest is not an object")
    for key in ("id", "version", "main"):
        if not isinstance(manifest.get(key), str):
            raise _bad(f"manifest field {key!r} missing")


def _bundle(manifest: dict, raw: bytes) -> PluginBundle:
    hooks_decl = manifest.get("contributes", {}).get("hooks", {})
    hooks: dict[str, str] = {}
    for hook, decl in hooks_decl.items():
        if hook not in HOOKS or not isinstance(decl, dict) or decl.get("role") not in ROLES:
            raise _bad(f"invalid hook declaration {hook!r}")
        hooks[hook] = decl["role"]
    if hooks and not manifest.get("hostPermissions"):
        raise _bad("a plugin declaring hooks needs at least one hostPermissions entry")
    if len(raw) > MAX_BUNDLE_BYTES:
        raise _bad("bundle exceeds 1 MiB")
    permissions = frozenset(manifest.get("permissions", [])) | {"log"}
    return PluginBundle(
        plugin_id=manifest["id"],
        version=manifest["version"],
        hooks=hooks,
        permissions=permissions,
        host_permissions=tuple(manifest.get("hostPermissions", [])),
        script=rewrite_imports(raw.decode("utf-8")),
        manifest=manifest,
    )
