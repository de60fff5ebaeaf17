"""§17, §19.2 builtin archives: deterministic packing, the lock, the reference's checks, the
``builtins.run`` runner and judge."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from hookconf import corpus
from hookconf.harness.builtins.lock import LockError, build_all, load_lock
from hookconf.harness.builtins.oracles import judge_builtin
from hookconf.harness.builtins.pack import OTHER_KEY_SEED, build_archive, public_key_b64, sign
from hookconf.harness.builtins.runner import archive_request
from hookconf.harness.fixtures import FixtureError
from hookconf.harness.runners import Call, Observation
from hookconf.reference.builtins import ArchiveRefused, LockRow, verify_archive
from hookconf.reference.candidate import ReferenceCandidate

ROOT = Path(__file__).resolve().parents[2]


def _lock_row(archive: bytes, plugin_id: str = "p.x", version: str = "1.0.0") -> LockRow:
    return LockRow(plugin_id, version, hashlib.sha256(archive).hexdigest(), len(archive))


def _plugin(manifest: dict | None = None, **extra: bytes) -> bytes:
    manifest = manifest or {"id": "p.x", "version": "1.0.0", "main": "dist/plugin.js"}
    return build_archive({"motrix-plugin.json": json.dumps(manifest).encode(),
                          "dist/plugin.js": b"// module\n", **extra})


def _verify(archive: bytes, *, row: LockRow | None = None, seed: str | None = None,
            key: str | None = None):
    signature = base64.b64encode(sign(archive, seed) if seed else sign(archive)).decode()
    return verify_archive(archive, signature, row or _lock_row(archive), key or public_key_b64())


def test_committed_builtins_are_a_fresh_build():
    """scripts/build_builtins.py is deterministic and the committed files are its output."""
    fresh = build_all()
    assert fresh == build_all()
    for name, data in fresh.items():
        assert (corpus.BUILTINS / name).read_bytes() == data, f"{name}: run scripts/build_builtins.py"


def test_build_script_check_passes_on_committed_files():
    import runpy

    script = runpy.run_path(str(ROOT / "scripts" / "build_builtins.py"))
    assert script["main"](["--check"]) == 0


def test_lock_pins_version_file_sha256_and_size():
    lock = load_lock()
    assert set(lock) == {"hookconf.url-resolver", "hookconf.filename-template"}
    for builtin in lock.values():
        assert builtin.entry["size"] == len(builtin.archive)
        assert builtin.entry["sha256"] == hashlib.sha256(builtin.archive).hexdigest()
        names = verify_archive(builtin.archive, base64.b64encode(builtin.signature).decode(),
                               LockRow.from_json(builtin.entry), builtin.public_key).entries
        assert names[:2] == ("motrix-plugin.json", "dist/plugin.js")
        assert all(n.startswith("locales/") and n.endswith(".json") for n in names[2:])


def test_only_the_public_key_is_committed():
    committed = {p.name for p in corpus.BUILTINS.iterdir()}
    assert "builtins-test-key.pub" in committed
    assert not [n for n in committed if "private" in n or n.endswith((".pem", ".key"))]


@pytest.mark.parametrize(("problem", "check"), [
    ("size", "size"), ("sha256", "sha256"), ("other-key", "signature"), ("bad-signature", "signature"),
])
def test_integrity_checks_in_order(problem, check):
    archive = _plugin()
    row = _lock_row(archive)
    if problem == "size":
        row = LockRow(row.plugin_id, row.version, row.sha256, row.size + 1)
    if problem == "sha256":
        row = LockRow(row.plugin_id, row.version, "0" * 64, row.size)
    with pytest.raises(ArchiveRefused) as refused:
        if problem == "other-key":
            _verify(archive, row=row, seed=OTHER_KEY_SEED)
        elif problem == "bad-signature":
            verify_archive(archive, "not base64!", row, public_key_b64())
        else:
            _verify(archive, row=row)
    assert refused.value.check == check
    assert str(refused.value.code) == "plugin.hook.permission_denied"


@pytest.mark.parametrize("name", ["../evil.js", "/evil.js", "dist\\..\\evil.js", "dist/../../x.js",
                                  "C:evil.js", "dist//x.js", "./x.js"])
def test_escaping_entry_names_are_refused(name):
    with pytest.raises(ArchiveRefused) as refused:
        _verify(_plugin(**{name: b"x"}))
    assert refused.value.check == "entry_path"


@pytest.mark.parametrize(("archive", "check"), [
    (b"not a zip at all", "layout"),
    (build_archive({"dist/plugin.js": b"x"}), "layout"),
    (build_archive({"motrix-plugin.json": b"{not json"}), "layout"),
    (build_archive({"motrix-plugin.json": b"[]"}), "layout"),
    (build_archive({"motrix-plugin.json": b'{"id": "p.x", "version": "1.0.0", "main": "dist/none.js"}'}), "layout"),
    (build_archive({"motrix-plugin.json": b'{"id": "p.x", "version": "1.0.0", "main": "m.js"}',
                    "m.js": b"\xff\xfe"}), "layout"),
    (build_archive({"motrix-plugin.json": b'{"id": "p.y", "version": "1.0.0", "main": "m.js"}',
                    "m.js": b""}), "identity"),
])
def test_signed_archives_of_the_wrong_shape_are_refused(archive, check):
    with pytest.raises(ArchiveRefused) as refused:
        _verify(archive)
    assert refused.value.check == check


def test_duplicate_entry_names_are_refused():
    import io
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("motrix-plugin.json", json.dumps({"id": "p.x", "version": "1.0.0", "main": "m.js"}))
        zf.writestr("m.js", "1")
        with pytest.warns(UserWarning):
            zf.writestr("m.js", "2")
    with pytest.raises(ArchiveRefused) as refused:
        _verify(out.getvalue())
    assert refused.value.check == "entry_path"


@pytest.mark.parametrize("args", [
    {},
    {"archive": "%%%", "lock": {"id": "a", "version": "1", "sha256": "0", "size": 1}},
    {"archive": "", "lock": "not a row"},
    {"archive": "", "lock": {"id": "a", "version": "1", "sha256": "0", "size": True}},
])
def test_hostile_requests_are_refusals_not_tracebacks(args):
    result = ReferenceCandidate().handle("builtins.run", args)
    assert result["loaded"] is False and result["code"] == "plugin.hook.permission_denied"


def test_runner_requests(tmp_path):
    given = {"builtin": "hookconf.url-resolver", "invocations": []}
    plain = archive_request(given)
    lock = load_lock()["hookconf.url-resolver"]
    assert base64.b64decode(plain["archive"]) == lock.archive
    assert plain["lock"] == {k: lock.entry[k] for k in ("id", "version", "sha256", "size")}
    other = archive_request({**given, "trustedKey": "other-key", "signature": "test-key"})
    assert other["publicKey"] == public_key_b64(OTHER_KEY_SEED)
    cut = archive_request({**given, "archive": {"truncate": 3, "drop": ["locales/en.json"]},
                           "lock": "match"})
    assert cut["lock"]["size"] == len(base64.b64decode(cut["archive"]))
    with pytest.raises(FixtureError):
        archive_request({"builtin": "no.such", "invocations": []})
    with pytest.raises(FixtureError):
        archive_request({**given, "archive": {"flip": [10 ** 9]}})
    with pytest.raises(FixtureError):
        archive_request({**given, "archive": {"add": {"\udcff": "x"}}})
    with pytest.raises(FixtureError):
        _missing_lock(tmp_path, given)


def _missing_lock(folder: Path, given: dict) -> None:
    from hookconf.harness.builtins import runner

    original = runner.load_lock
    runner.load_lock = lambda: load_lock(folder)
    try:
        archive_request(given)
    finally:
        runner.load_lock = original


@pytest.mark.parametrize("lock", [
    "not json", "[]", '{"lockVersion": 1, "signing": {}, "builtins": []}',
    '{"lockVersion": 1, "signing": {"publicKey": "k.pub"}, "builtins": [{"id": 1}]}',
])
def test_malformed_locks_are_lock_errors(tmp_path, lock):
    (tmp_path / "builtins.lock.json").write_text(lock)
    (tmp_path / "k.pub").write_text(public_key_b64())
    with pytest.raises(LockError):
        load_lock(tmp_path)


def test_lock_rejects_files_outside_its_folder_and_bad_keys(tmp_path):
    (tmp_path / "k.pub").write_text("short")
    for name in ("../k.pub", "k.pub"):
        (tmp_path / "builtins.lock.json").write_text(json.dumps(
            {"lockVersion": 1, "signing": {"publicKey": name}, "builtins": []}))
        with pytest.raises(LockError):
            load_lock(tmp_path)


class _Case:
    def __init__(self, expect):
        self.expect = expect


def _judge(expect, result):
    obs = Observation([Call("run", "builtins.run", {}, result)])
    return judge_builtin("H25", _Case(expect), obs)


def test_judge_refusals_need_a_section_13_code_and_nothing_run():
    assert _judge({"loaded": False}, {"loaded": False, "code": "plugin.hook.permission_denied"}).passed
    assert not _judge({"loaded": False}, {"loaded": False, "code": "archive.bad"}).passed
    assert not _judge({"loaded": False}, {"loaded": True, "code": None}).passed
    ran = {"loaded": False, "code": "plugin.hook.permission_denied",
           "results": [{"code": None, "effects": None, "logs": [], "requests": []}]}
    assert not _judge({"loaded": False}, ran).passed


def test_judge_loaded_archives_by_their_results():
    ok = {"loaded": True, "code": None, "activation": {"code": None, "logs": []},
          "results": [{"code": None, "effects": {}, "logs": [], "requests": []}]}
    assert _judge({"loaded": True, "results": [{"code": None}]}, ok).passed
    assert not _judge({"loaded": True, "results": []}, ok).passed
    assert not _judge({"loaded": True, "activation": {"failed": True}, "results": [{}]}, ok).passed
    assert not _judge({"loaded": True, "results": []}, {"loaded": False, "reason": "x"}).passed


def test_entries_mutant_loads_escaping_names_but_keeps_integrity():
    from tests.mutants.builtins.entries_unchecked import factory

    mutant = factory()
    escaping = {"builtin": "hookconf.url-resolver", "archive": {"add": {"../evil.js": "x"}},
                "lock": "match", "signature": "test-key", "invocations": []}
    assert mutant.handle("builtins.run", archive_request(escaping))["loaded"] is True
    tampered = {**escaping, "signature": "locked"}
    assert mutant.handle("builtins.run", archive_request(tampered))["loaded"] is False


def test_archive_template_gives_both_polarities_per_builtin():
    import random

    from hookconf.harness.generate import TemplateError
    from hookconf.harness.generate.builtins import expand_archives

    instances = list(expand_archives({}, random.Random(0)))
    assert len(instances) == 44
    for short in ("url-resolver", "filename-template"):
        mine = [i for i in instances if i.key.startswith(short + ".")]
        assert {i.polarity for i in mine} == {"positive", "negative"}
        outside = (".entry.", ".layout.")  # what §19.2 does not decide
        assert all(i.advisory for i in mine if any(w in i.key for w in outside))
        assert not any(i.advisory for i in mine if not any(w in i.key for w in outside))
    with pytest.raises(TemplateError):
        list(expand_archives({"builtins": ["no.such"]}, random.Random(0)))


def test_archive_template_reports_an_unreadable_lock(monkeypatch, tmp_path):
    import random

    from hookconf.harness.generate import TemplateError
    from hookconf.harness.generate import builtins as generated

    monkeypatch.setattr(generated, "load_lock", lambda: load_lock(tmp_path))
    with pytest.raises(TemplateError):
        list(generated.expand_archives({}, random.Random(0)))
