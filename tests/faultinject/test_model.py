"""ModelVfs: the persistence model (module docstring of hookconf.faultinject.model), §10.2/§10.3."""

from __future__ import annotations

import errno

import pytest

from hookconf.faultinject.model import ModelVfs, collisions, fold_name
from hookconf.faultinject.port import Kind, Publication, Vfs
from tests.faultinject.vfsio import content, errno_of, put


def test_model_satisfies_the_vfs_protocol():
    assert isinstance(ModelVfs(), Vfs)


def test_crash_loses_a_file_whose_directory_was_never_synced():
    vfs = ModelVfs()
    put(vfs, "f", b"data", sync=True)
    assert "f" not in vfs.crash().listdir()


def test_crash_keeps_name_but_not_unsynced_content():
    vfs = ModelVfs()
    put(vfs, "f", b"data", sync=False)
    vfs.fsync_dir(".")
    after = vfs.crash()
    assert after.listdir() == ["f"]
    assert content(after, "f") == b""


def test_fsync_and_fsync_dir_together_make_a_file_durable():
    vfs = ModelVfs()
    put(vfs, "f", b"data", sync=True)
    vfs.fsync_dir(".")
    assert content(vfs.crash(), "f") == b"data"


def test_unsynced_rename_is_undone_by_a_crash():
    vfs = ModelVfs()
    put(vfs, "tmp", b"new", sync=True)
    vfs.fsync_dir(".")
    vfs.rename("tmp", "final")
    assert vfs.crash().listdir() == ["tmp"]
    vfs.fsync_dir(".")
    assert vfs.crash().listdir() == ["final"]


def _moved():
    vfs = ModelVfs()
    vfs.mkdir("a")
    vfs.mkdir("b")
    put(vfs, "a/f", b"x", sync=True)
    vfs.sync()
    vfs.rename("a/f", "b/f")
    return vfs


def test_cross_directory_rename_is_durable_only_when_both_directories_are_synced():
    vfs = _moved()
    vfs.fsync_dir("b")  # the new entry durable, the old one's removal not yet
    after = vfs.crash()
    assert after.listdir("a") == ["f"] and after.listdir("b") == ["f"]
    assert content(after, "a/f") == content(after, "b/f") == b"x"
    states = dict(vfs.crash_states(explore=True))
    assert states["all"].listdir("a") == []  # the pending half may persist too
    vfs.fsync_dir("a")
    after = vfs.crash()
    assert after.listdir("a") == [] and after.listdir("b") == ["f"]
    assert vfs.pending == ()


def test_cross_directory_rename_with_only_its_source_synced_may_lose_both_names():
    vfs = _moved()
    vfs.fsync_dir("a")  # the removal durable, the new entry not yet
    after = vfs.crash()
    assert after.listdir("a") == [] and after.listdir("b") == []
    vfs.fsync_dir("b")
    assert vfs.crash().listdir("b") == ["f"]


def test_an_unsynced_cross_directory_rename_persists_whole_or_not_at_all():
    vfs = _moved()
    seen = {(tuple(s.listdir("a")), tuple(s.listdir("b"))) for _, s in vfs.crash_states(explore=True)}
    assert seen == {(("f",), ()), ((), ("f",))}


def _moved_dir():
    vfs = ModelVfs()
    vfs.mkdir("a")
    vfs.mkdir("b")
    vfs.mkdir("a/d")
    put(vfs, "a/d/f", b"x", sync=True)
    vfs.sync()
    vfs.rename("a/d", "b/d")
    return vfs


def test_a_directory_moved_to_another_parent_is_durable_there_only_once_it_is_fsynced_too():
    # §10.2 "目录在 target_installed 前 fsync 已重命名 root 与受影响父目录": both parents
    # fsynced but not the moved directory (its ``..`` still names the old parent)
    vfs = _moved_dir()
    vfs.fsync_dir("b")
    vfs.fsync_dir("a")
    after = vfs.crash()
    assert after.listdir("a") == [] and after.listdir("b") == []  # lost from both places
    vfs.fsync_dir("b/d")  # the directory itself, after its new parent: now durable there
    after = vfs.crash()
    assert after.listdir("b") == ["d"] and content(after, "b/d/f") == b"x"
    assert vfs.pending == ()


@pytest.mark.parametrize("order", [("b/d", "b", "a"), ("b", "b/d", "a"), ("b/d", "a", "b")])
def test_a_moved_directory_is_durable_once_it_and_both_parents_are_fsynced_in_any_order(order):
    vfs = _moved_dir()
    for path in order:
        vfs.fsync_dir(path)
    after = vfs.crash()
    assert after.listdir("a") == [] and after.listdir("b") == ["d"]
    assert content(after, "b/d/f") == b"x" and vfs.pending == ()


def test_a_moved_directory_fsynced_with_its_new_parent_only_may_stay_at_its_old_place():
    vfs = _moved_dir()
    vfs.fsync_dir("b/d")
    vfs.fsync_dir("b")  # the old parent not yet: the removal pending
    after = vfs.crash()  # durable under both names; the first found wins (a tree, no byte lost)
    assert sorted(after.listdir("a") + after.listdir("b")) == ["d"]
    assert len([p for p in ("a/d/f", "b/d/f") if p.split("/")[1] in after.listdir(p[0])]) == 1
    vfs.fsync_dir("a")
    assert vfs.crash().listdir("b") == ["d"] and vfs.crash().listdir("a") == []
    vfs2 = _moved_dir()
    vfs2.fsync_dir("b")  # the new parent only: the new entry waits for the directory's fsync
    assert vfs2.crash().listdir("a") == ["d"] and vfs2.crash().listdir("b") == []


def test_a_directory_renamed_within_its_parent_needs_only_the_parent():
    vfs = ModelVfs()
    vfs.mkdir("a")
    vfs.mkdir("a/d")
    vfs.sync()
    vfs.rename("a/d", "a/e")
    vfs.fsync_dir("a")
    assert vfs.crash().listdir("a") == ["e"] and vfs.pending == ()


def test_unsynced_unlink_comes_back_after_a_crash():
    vfs = ModelVfs()
    put(vfs, "journal", b"hot", sync=True)
    vfs.sync()
    vfs.unlink("journal")
    assert content(vfs.crash(), "journal") == b"hot"


def test_crash_states_enumerate_prefix_omit_and_torn_variants():
    vfs = ModelVfs()
    vfs.mkdir("d")                          # pending 0
    put(vfs, "d/f", b"0123456789", sync=False)  # pending 1 (entry), 2 (write)
    states = dict(vfs.crash_states(explore=True))
    assert {"durable", "all", "prefix-1", "prefix-2", "omit-0", "omit-1", "omit-2",
            "torn-2"} <= states.keys()
    assert states["durable"].listdir() == []
    assert content(states["all"], "d/f") == b"0123456789"
    assert content(states["prefix-2"], "d/f") == b""
    assert content(states["torn-2"], "d/f") == b"01234"
    assert states["omit-0"].listdir() == []      # d's entry lost: d/f unreachable
    assert states["omit-1"].listdir("d") == []


def test_crash_states_leave_the_original_and_each_other_untouched():
    vfs = ModelVfs()
    put(vfs, "f", b"abc", sync=False)
    states = dict(vfs.crash_states(explore=True))
    put(states["all"], "g", b"new", sync=False)
    assert "g" not in states["durable"].listdir()
    assert vfs.listdir() == ["f"] and len(vfs.pending) == 2


def test_sync_makes_everything_durable_and_empties_pending():
    vfs = ModelVfs()
    vfs.mkdir("d")
    put(vfs, "d/f", b"x", sync=False)
    vfs.sync()
    assert vfs.pending == ()
    assert [name for name, _ in vfs.crash_states(explore=True)] == ["durable"]
    assert content(vfs.crash(), "d/f") == b"x"


def test_directory_renames_made_durable_out_of_order_still_give_a_tree():
    vfs = ModelVfs()
    vfs.mkdir("a")
    vfs.mkdir("a/b")
    vfs.sync()
    vfs.rename("a/b", "b")
    vfs.rename("a", "b/a")
    vfs.fsync_dir("b")  # durable: b -> {a}, a -> {b} (the rename out of a is in a's list)
    # the second rename is durable via b; the first only via a or root, both unsynced,
    # yet the Move out of a is one mutation touching root too: it stays pending
    snap = vfs.crash().snapshot()
    assert all(path.count("/") < 4 for path in snap)  # finite: no cycle survived


def test_hard_links_share_content_and_count_links():
    vfs = ModelVfs()
    put(vfs, "f", b"one", sync=False)
    vfs.link("f", "g")
    assert vfs.lstat("f").nlink == 2 and vfs.lstat("f").ino == vfs.lstat("g").ino
    put(vfs, "g", b"two", sync=False)
    assert content(vfs, "f") == b"two"
    vfs.unlink("f")
    assert vfs.lstat("g").nlink == 1


def test_symlinks_are_never_followed():
    vfs = ModelVfs()
    vfs.mkdir("real")
    vfs.symlink("real", "link")
    assert vfs.lstat("link").kind is Kind.SYMLINK
    assert errno_of(lambda: vfs.open("link/x", "w")) == errno.ELOOP
    assert errno_of(lambda: vfs.open("link", "r")) == errno.ELOOP
    assert errno_of(lambda: vfs.open_dir("link")) == errno.ELOOP
    assert vfs.readlink("link") == "real"


def test_special_files_are_refused_by_open():
    vfs = ModelVfs()
    vfs.mkfifo("pipe")
    assert vfs.lstat("pipe").kind is Kind.FIFO
    assert errno_of(lambda: vfs.open("pipe", "r")) == errno.EINVAL


def test_device_roots_make_rename_and_link_cross_device():
    vfs = ModelVfs(devices=("media",))
    put(vfs, "f", b"x", sync=False)
    assert vfs.device_of("media") != vfs.device_of("f")
    assert errno_of(lambda: vfs.rename("f", "media/f")) == errno.EXDEV
    assert errno_of(lambda: vfs.rename_noreplace("f", "media/f")) == errno.EXDEV
    assert errno_of(lambda: vfs.link("f", "media/f")) == errno.EXDEV
    assert errno_of(lambda: vfs.rmdir("media")) == errno.EBUSY
    vfs.mkdir("media/sub")
    assert vfs.device_of("media/sub") == vfs.device_of("media")


def test_folded_names_are_equivalent_and_keep_their_spelling():
    vfs = ModelVfs(fold_names=True)
    put(vfs, "Report.TXT", b"x", sync=False)
    assert vfs.lstat("report.txt").kind is Kind.FILE
    assert errno_of(lambda: vfs.mkdir("REPORT.txt")) == errno.EEXIST
    assert vfs.listdir() == ["Report.TXT"]
    # NFC vs NFD spelling of the same name
    put(vfs, "caf\u00e9", b"1", sync=False)
    assert errno_of(lambda: vfs.open("cafe\u0301", "x")) == errno.EEXIST
    vfs.rename("Report.TXT", "report.txt")
    assert vfs.listdir() == ["caf\u00e9", "report.txt"]


def test_fold_name_is_case_and_normalisation_insensitive():
    assert fold_name("STRASSE") == fold_name("stra\u00dfe")
    assert fold_name("cafe\u0301") == fold_name("CAF\u00c9")
    assert fold_name("a") != fold_name("b")


def test_posix_names_are_case_sensitive():
    vfs = ModelVfs()
    put(vfs, "A", b"1", sync=False)
    put(vfs, "a", b"2", sync=False)
    assert vfs.listdir() == ["A", "a"]


def test_rename_noreplace_never_clobbers():
    vfs = ModelVfs()
    put(vfs, "src", b"new", sync=False)
    put(vfs, "dst", b"user data", sync=False)
    assert errno_of(lambda: vfs.rename_noreplace("src", "dst")) == errno.EEXIST
    assert content(vfs, "dst") == b"user data"
    assert vfs.rename_noreplace("src", "fresh") is Publication.RENAMED


def test_noreplace_fallback_links_files_and_fails_closed_on_directories():
    vfs = ModelVfs(noreplace_native=False)
    put(vfs, "src", b"new", sync=False)
    vfs.mkdir("dir")
    assert vfs.rename_noreplace("src", "dst") is Publication.LINKED
    assert vfs.listdir() == ["dir", "dst"]
    assert errno_of(lambda: vfs.rename_noreplace("dir", "dir2")) == errno.EINVAL
    assert vfs.listdir() == ["dir", "dst"]


def test_handles_survive_unlink_but_not_a_crash():
    vfs = ModelVfs()
    fh = vfs.open("f", "w")
    vfs.unlink("f")
    assert vfs.write(fh, b"orphan", 0) == 6
    after = vfs.crash()
    assert errno_of(lambda: after.read(fh, 1, 0)) == errno.EBADF


def test_held_directory_handles_resolve_relative_paths():
    vfs = ModelVfs()
    vfs.mkdir("d")
    h = vfs.open_dir("d")
    put(vfs, "d/f", b"x", sync=False)
    assert vfs.lstat("f", at=h).size == 1
    vfs.rename("d", "moved")
    assert vfs.listdir(".", at=h) == ["f"]  # the handle follows the directory, not the name
    vfs.close(h)
    assert errno_of(lambda: vfs.close(h)) == errno.EBADF


def test_creating_in_a_removed_directory_fails():
    vfs = ModelVfs()
    vfs.mkdir("d")
    h = vfs.open_dir("d")
    vfs.rmdir("d")
    assert errno_of(lambda: vfs.open("f", "x", at=h)) == errno.ENOENT


@pytest.mark.parametrize("path", ["/abs", "a//b", "../x", "a/./b", "a\\b", "", "a/.."])
def test_malformed_paths_are_refused_before_any_lookup(path):
    assert errno_of(lambda: ModelVfs().lstat(path)) == errno.EINVAL


def test_collisions_groups_names_a_folding_filesystem_would_merge():
    names = ["Movie.mkv", "movie.MKV", "caf\u00e9", "cafe\u0301", "other", "OTHER2"]
    assert collisions(names) == [["Movie.mkv", "movie.MKV"], ["cafe\u0301", "caf\u00e9"]]
    assert collisions(["a", "b", "a"]) == []


def test_inodes_created_after_a_crash_belong_to_their_own_state():
    vfs = ModelVfs()
    states = dict(vfs.crash_states(explore=True))
    a, b = states["durable"], vfs.crash()
    a.mkdir("x")
    put(b, "y", b"file", sync=False)
    assert a.lstat("x").ino == b.lstat("y").ino  # the same number, allocated twice
    assert a.lstat("x").kind is Kind.DIR and b.lstat("y").kind is Kind.FILE


def test_the_file_host_is_the_host_port_as_file_calls(tmp_path):
    """The candidate's side of a mount's host directory (here a plain folder)."""
    import errno as errno_mod

    from hookconf.faultinject.host import FileHost

    for folder in ("lease", "engine", "writers/t1"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "engine" / "t1").write_bytes(b"")
    (tmp_path / "writers" / "t1" / "seeder").write_bytes(b"")
    host = FileHost(str(tmp_path))
    host.lease_acquire("t1")
    with pytest.raises(OSError) as err:
        host.lease_acquire("t1")
    assert err.value.errno == errno_mod.EBUSY
    host.engine_stop("t1")
    assert not (tmp_path / "engine" / "t1").exists()
    assert host.writers("t1") == ["seeder"]
    host.lease_release("t1")
    host.lease_release("t1")  # released twice: nothing left to release
    for bad in ("", "a/b", ".."):
        with pytest.raises(OSError) as err:
            host.lease_acquire(bad)
        assert err.value.errno == errno_mod.EINVAL
