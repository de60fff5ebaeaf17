"""ArtifactIdentity (§10.1): discriminated, strong, never following links, streamed."""

import hashlib

import pytest

from hookconf.faultinject import FaultyVfs
from hookconf.reference.errors import HookRuntimeError
from hookconf.reference.finalize.identity import CHUNK_BYTES, artifact_identity
from tests.finalize.helpers import world


def test_file_identity_is_size_and_sha256():
    vfs = world(files={"save/a": b"hello"})
    assert artifact_identity(vfs, "save/a").to_json() == {
        "kind": "file", "size": 5, "sha256": hashlib.sha256(b"hello").hexdigest()}


def test_a_large_file_is_hashed_in_bounded_reads():
    data = bytes(range(256)) * (CHUNK_BYTES // 256 * 2 + 100)
    vfs = FaultyVfs(world(files={"save/big": data}))
    ident = artifact_identity(vfs, "save/big")
    assert ident.sha256 == hashlib.sha256(data).hexdigest()
    assert [e.op for e in vfs.trace].count("read") == 4  # three chunks and the end


def _tree(extra=()):
    vfs = world(dirs=("save/t", "save/t/sub"), files={"save/t/a": b"1", "save/t/sub/b": b"22"})
    for d in extra:
        vfs.mkdir(d)
    return vfs


def test_directory_identity_counts_entries_bytes_and_empty_directories():
    plain = artifact_identity(_tree(), "save/t").to_json()
    with_empty = artifact_identity(_tree(("save/t/empty",)), "save/t").to_json()
    assert (plain["kind"], plain["entryCount"], plain["totalBytes"]) == ("directory", 3, 3)
    assert with_empty["entryCount"] == 4 and with_empty["treeSha256"] != plain["treeSha256"]


def test_tree_digest_depends_on_names_and_content_not_on_creation_order():
    a = world(dirs=("save/t",), files={"save/t/x": b"1", "save/t/y": b"2"})
    b = world(dirs=("save/t",), files={"save/t/y": b"2", "save/t/x": b"1"})
    c = world(dirs=("save/t",), files={"save/t/x": b"2", "save/t/y": b"1"})
    ids = [artifact_identity(v, "save/t").tree_sha256 for v in (a, b, c)]
    assert ids[0] == ids[1] != ids[2]


@pytest.mark.parametrize("make", ["symlink", "fifo"])
def test_symlinks_and_special_files_are_rejected_not_followed(make):
    vfs = _tree()
    if make == "symlink":
        vfs.symlink("a", "save/t/sub/link")
    else:
        vfs.mkfifo("save/t/pipe")
    with pytest.raises(HookRuntimeError) as raised:
        artifact_identity(vfs, "save/t")
    assert raised.value.code == "plugin.finalize.plan_invalid"
    vfs.symlink("t/a", "save/top")
    with pytest.raises(HookRuntimeError):
        artifact_identity(vfs, "save/top")


def test_more_entries_than_the_cap_is_artifact_too_large():
    vfs = _tree()
    assert artifact_identity(vfs, "save/t", max_entries=3).entry_count == 3
    with pytest.raises(HookRuntimeError) as raised:
        artifact_identity(vfs, "save/t", max_entries=2)
    assert raised.value.code == "plugin.finalize.artifact_too_large"


def test_a_file_changing_while_hashed_is_refused():
    vfs = world(files={"save/a": b"hello"})

    class Racing:
        def __getattr__(self, name):
            return getattr(vfs, name)

        def read(self, fh, size, offset):
            data = vfs.read(fh, size, offset)
            if data:
                put_more = vfs.open("save/a", "r+")
                vfs.write(put_more, b"!", 5)
                vfs.close(put_more)
            return data

    with pytest.raises(HookRuntimeError) as raised:
        artifact_identity(Racing(), "save/a")
    assert raised.value.code == "plugin.finalize.file_commit_failed"


def test_the_entry_limit_defaults_to_the_one_constant_and_reaches_the_plan():
    from hookconf.reference.finalize.identity import MAX_ENTRIES
    from hookconf.reference.finalize.ops import FinalizeOps
    from hookconf.reference.finalize.plan import build_plan

    assert MAX_ENTRIES == 1_000_000
    seen = []

    def identify(vfs, path, *, max_entries):
        seen.append(max_entries)
        return artifact_identity(vfs, path, max_entries=max_entries)

    vfs = _tree()
    args = {"taskId": "t", "saveDir": "save", "sourcePath": "save/t", "targetPath": "save/u"}
    build_plan(vfs, task_id="t", save_dir="save", source_path="save/t", target_path="save/u",
               identify=identify)
    assert seen == [MAX_ENTRIES] and FinalizeOps.max_entries(args) == MAX_ENTRIES
    assert FinalizeOps.max_entries({**args, "limits": {"maxEntries": 3}}) == 3
    for bad in ({"maxEntries": 0}, {"maxEntries": MAX_ENTRIES + 1}, {"maxEntries": True},
                {"maxEntries": "3"}, [3]):
        with pytest.raises(HookRuntimeError) as err:
            FinalizeOps.max_entries({**args, "limits": bad})
        assert str(err.value.code) == "plugin.finalize.plan_invalid"


def test_prepare_echoes_the_limits_it_applied_and_refuses_others():
    from hookconf.reference.candidate import ReferenceCandidate

    cand = ReferenceCandidate()
    vfs = _tree()
    cand.attach_vfs("r", vfs)
    args = {"root": "r", "stateDir": "state", "taskId": "t", "saveDir": "save",
            "sourcePath": "save/t", "targetPath": "save/u"}
    n = artifact_identity(vfs, "save/t").entry_count
    ok = cand.handle("finalize.prepare", {**args, "limits": {"maxEntries": n}})
    assert ok["planned"] and ok["limits"] == {"maxEntries": n}
    cand.handle("finalize.run", {"taskId": "t"})
    vfs2 = _tree()
    cand.attach_vfs("r", vfs2)
    over = cand.handle("finalize.prepare", {**args, "limits": {"maxEntries": n - 1}})
    assert over["code"] == "plugin.finalize.artifact_too_large" and not over["planned"]
    bad = cand.handle("finalize.prepare", {**args, "limits": {"maxEntries": 0}})
    assert bad["code"] == "plugin.finalize.plan_invalid" and "limits" not in bad
    assert "limits" not in cand.handle("finalize.prepare", {**args, "taskId": "t2"})
