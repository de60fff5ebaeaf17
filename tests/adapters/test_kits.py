"""``hookconf adapter LANGUAGE`` names the kit of the hookconf that runs: inside the installed
package when a wheel put it there, else in the clone the package runs from."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookconf.harness.cli import main
from hookconf.harness.protocol.adapters import adapter_path

ROOT = Path(__file__).resolve().parents[2]


def test_adapter_node_prints_the_clones_kit(capsys):
    assert main(["adapter", "node"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed == ROOT / "adapters" / "node" / "adapter.js" and printed.is_absolute()


def test_the_packaged_kit_comes_first(tmp_path):
    package = tmp_path / "site" / "hookconf"
    (package / "adapters" / "node").mkdir(parents=True)
    (package / "adapters" / "node" / "adapter.js").write_text("")
    (tmp_path / "site" / "adapters" / "node").mkdir(parents=True)
    (tmp_path / "site" / "adapters" / "node" / "adapter.js").write_text("")
    assert adapter_path("node", package=package) == package / "adapters" / "node" / "adapter.js"


def test_an_installation_without_the_kit_says_so(tmp_path, capsys, monkeypatch):
    with pytest.raises(FileNotFoundError, match="the node adapter kit is not installed"):
        adapter_path("node", package=tmp_path / "hookconf")
    with pytest.raises(KeyError, match="kits: node"):
        adapter_path("rust")
    monkeypatch.setattr("hookconf.harness.cli.adapter_path", lambda language: adapter_path(
        language, package=tmp_path / "hookconf"))
    assert main(["adapter", "node"]) == 2
    assert "hookconf adapter: the node adapter kit is not installed" in capsys.readouterr().err


def test_an_unknown_language_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["adapter", "cobol"])
    assert exited.value.code == 2 and "invalid choice: 'cobol'" in capsys.readouterr().err
