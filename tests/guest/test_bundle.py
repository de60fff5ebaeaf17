"""Bundles: manifest facts and the motrix:plugin-api import rewrite (§3, §14)."""

import json

import pytest

from hookconf.reference.errors import ErrorCode, HookRuntimeError
from hookconf.reference.guest import load_bundle, rewrite_imports

from .conftest import PLUGINS


def test_named_and_aliased_imports_bind_the_api_object():
    out = rewrite_imports("import { hooks, log as logger } from 'motrix:plugin-api'\nx()\n")
    assert out.splitlines()[0] == "const { hooks, log: logger } = globalThis.__motrixApi;"
    assert out.splitlines()[1] == "x()"


def test_namespace_import():
    out = rewrite_imports('import * as api from "motrix:plugin-api";')
    assert out == "const api = globalThis.__motrixApi;"


@pytest.mark.parametrize("source", [
    "import fs from 'node:fs'",
    "import { x } from './other.js'",
    "import 'side-effect'",
    "const m = import('motrix:plugin-api')",
    "import api from 'motrix:plugin-api'",
])
def test_other_imports_are_refused(source):
    with pytest.raises(HookRuntimeError) as caught:
        rewrite_imports(source)
    assert caught.value.code is ErrorCode.WORKER_CRASHED


def test_load_reads_manifest_hooks_permissions_and_script():
    bundle = load_bundle(PLUGINS / "hookconf.url-resolver")
    assert bundle.plugin_id == "hookconf.url-resolver"
    assert bundle.hooks == {"beforeCreate": "pre-resolve"}
    assert bundle.permissions == {"http", "log"}
    assert bundle.host_permissions == ("*://wiki.media.example/*", "*://api.media.example/*")
    assert "globalThis.__motrixApi" in bundle.script


def _plugin(tmp_path, manifest_changes, script="export {}\n"):
    manifest = json.loads((PLUGINS / "hookconf.filename-template" / "motrix-plugin.json")
                          .read_text())
    manifest.update(manifest_changes)
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "plugin.js").write_text(script)
    (tmp_path / "motrix-plugin.json").write_text(json.dumps(manifest))
    return tmp_path


@pytest.mark.parametrize("changes", [
    {"main": "../outside.js"},
    {"hostPermissions": []},
    {"contributes": {"hooks": {"beforeDownload": {"role": "enrich"}}}},
    {"contributes": {"hooks": {"beforeFinalize": {"role": "boss"}}}},
])
def test_bad_manifests_are_refused(tmp_path, changes):
    with pytest.raises(HookRuntimeError):
        load_bundle(_plugin(tmp_path, changes))


def test_bundle_over_one_mib_is_refused(tmp_path):
    with pytest.raises(HookRuntimeError):
        load_bundle(_plugin(tmp_path, {}, script="//" + "x" * (1024 * 1024)))


def test_every_fixture_loads():
    ids = sorted(p.name for p in PLUGINS.iterdir() if (p / "motrix-plugin.json").exists())
    assert len(ids) >= 14
    for plugin_id in ids:
        assert load_bundle(PLUGINS / plugin_id).plugin_id == plugin_id
