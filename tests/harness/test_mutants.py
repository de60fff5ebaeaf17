"""Every oracle bites: each broken candidate in tests/mutants must make its invariant fail."""

from urllib.parse import urlsplit

import pytest

from hookconf.harness.generate.runtime import MALFORMED_SOURCES
from tests.conftest import FULL_RUNS, status

#: Runtime-family mutants run only the runtime scenario cases that show them: the hand-written
#: family where one does, else the generated family built for that rule (the race explorer has
#: its own tests below).
RUNTIME_MUTANTS = [
    ("tests.mutants.runtime.active_set_candidates:factory", "H1", ("rt.registry.*",)),
    ("tests.mutants.runtime.global_lane:factory", "H2", ("rt.lanes.*",)),
    ("tests.mutants.runtime.bridge_without_id:factory", "H3", ("rt.bridge.*",)),
    ("tests.mutants.runtime.failed_effects_merged:factory", "H6", ("rt.chain.*",)),
    ("tests.mutants.runtime.breaker_never_opens:factory", "H6", ("rt.chain.breaker-*",)),
    ("tests.mutants.runtime.template_failure_aborts:factory", "H6", ("rt.chain.*",)),
    ("tests.mutants.runtime.host_filter_finalize:factory", "H18", ("rt.eligibility.*",)),
    ("tests.mutants.runtime.capability_after_revoke:factory", "H21", ("rt.policy.*",)),
    ("tests.mutants.runtime.reentrant_queued:factory", "H22", ("rt.cycles.*",)),
    ("tests.mutants.runtime.active_set_after_policy:factory", "H1", ("rt.gen.policy-programs.*",)),
    ("tests.mutants.runtime.http_selection_active_ignores_host:factory", "H1", ("rt.gen.policy-programs.*",)),
    ("tests.mutants.runtime.faulted_finalize_ineligible:factory", "H18", ("rt.gen.policy-programs.*",)),
    ("tests.mutants.runtime.lazy_lease_abort:factory", "H21", ("rt.policy.*",)),
    ("tests.mutants.runtime.drain_skipped:factory", "H21", ("rt.policy.*",)),
    ("tests.mutants.runtime.reentry_root_only:factory", "H22", ("rt.gen.call-graphs.cycle.n2.*",)),
    ("tests.mutants.runtime.reentry_caller_only:factory", "H22", ("rt.cycles.*",)),
    ("tests.mutants.runtime.failed_metadata_leaks:factory", "H6", ("rt.chain.*",)),
    ("tests.mutants.runtime.unlisted_patch_merged:factory", "H6", ("rt.gen.chain-failures.*.unlisted-field",)),
    ("tests.mutants.runtime.provenance_writable:factory", "H6", ("rt.gen.chain-failures.*.provenance-field",)),
    ("tests.mutants.runtime.half_open_admits_two:factory", "H6", ("rt.chain.breaker-*",)),
    ("tests.mutants.runtime.breaker_skips_required:factory", "H6", ("rt.chain.breaker-*",)),
]
#: Guest-family mutants (a broken SDK surface or host boundary) run the guest cases that show
#: them (the containment cases, which spend their time budgets, show none of these).
GUEST_MUTANTS = [
    ("tests.mutants.guest.guest_prelude:metadata_write_invisible", "H7", ("guest.metadata.pre.*",)),
    ("tests.mutants.guest.guest_prelude:post_hook_writable", "H7", ("guest.metadata.post.*",)),
    ("tests.mutants.guest.guest_prelude:context_bleed", "H3", ("guest.invocation.*",)),
    ("tests.mutants.guest.effects_unvalidated:factory", "H4", ("guest.boundary.*",)),
    # the same unbound log call, caught here by the post-hook forgeries (guest.forged-ids)
    ("tests.mutants.schemas.worker_scope:log_any_invocation", "H3", ("guest.forged-ids.*",)),
]
#: ``ctx.metadata`` mutants (§9.3) run only the metadata cases: the programs must catch each.
METADATA_CASES = ("guest.metadata.*",)
METADATA_MUTANTS = [
    (f"tests.mutants.guest.metadata_prelude:{name}", "H7") for name in (
        "get_all_ignores_staged_writes", "keys_list_deleted", "delete_not_staged", "delete_not_applied",
        "get_reads_snapshot", "has_deleted_key", "has_by_in_operator", "get_all_by_assignment",
        "post_hook_set_accepted")
]
#: Mutants only some interleavings expose: the race explorer must find them.
RACE_MUTANTS = [
    ("tests.mutants.runtime.reclaim_busy_worker:factory", "H2"),
    ("tests.mutants.runtime.uncoalesced_activation:factory", "H2"),
]

#: Finalize mutants (§10) run only the finalize cases that catch them (every case is
#: crash-explored inside `hookconf run`, so each glob names a few cases).
FINALIZE_MUTANTS = [
    ("tests.mutants.finalize.durable_without_parent_fsync:factory", "H19",
     ("fin.matrix.*.same.volatile-source",)),
    ("tests.mutants.finalize.plain_rename_install:factory", "H10", ("fin.matrix.file.cross-device",)),
    ("tests.mutants.finalize.compensation_deletes_target:factory", "H10",
     ("fin.matrix.file.distinct.appears",)),
    ("tests.mutants.finalize.source_over_replacement:factory", "H11", ("fin.matrix.file.distinct.staged",)),
    ("tests.mutants.finalize.replacement_ignored:factory", "H11", ("fin.matrix.file.distinct.staged",)),
    ("tests.mutants.finalize.journal_after_first_change:factory", "H13", ("fin.matrix.file.cross-device",)),
    ("tests.mutants.finalize.recovery_trusts_phase:factory", "H13", ("fin.matrix.file.cross-device",)),
    ("tests.mutants.finalize.phase_before_fsync:factory", "H19", ("fin.matrix.file.cross-device",)),
    # recovery journals a phase it found done before fsyncing its directories (§10.2, §10.3)
    ("tests.mutants.finalize.recovery_records_unsynced:factory", "H19",
     ("fin.matrix.file.cross-device",)),
    ("tests.mutants.finalize.copy_without_fsync:factory", "H19", ("fin.matrix.file.cross-device",)),
    ("tests.mutants.finalize.identity_follows_symlinks:factory", "H23", ("fin.matrix.symlink.distinct",)),
    ("tests.mutants.finalize.identity_ignores_empty_dirs:factory", "H23", ("fin.matrix.tree.*",)),
    ("tests.mutants.finalize.limit_off_by_one:factory", "H23", ("fin.limits.nested.distinct.*",)),
    ("tests.mutants.finalize.limit_partial_plan:factory", "H23", ("fin.limits.nested.distinct.*",)),
    ("tests.mutants.finalize.identity_before_quiesce:factory", "H8", ("fin.quiesce.file.distinct.engine",)),
    ("tests.mutants.finalize.cleanup_size_only:factory", "H8", ("fin.quiesce.tamper.distinct.*",)),
    ("tests.mutants.finalize.lease_released_early:factory", "H8", ("fin.matrix.file.distinct",)),
    ("tests.mutants.finalize.recovery_without_lease:factory", "H8", ("fin.matrix.file.distinct",)),
    ("tests.mutants.finalize.recovery_ignores_busy_lease:factory", "H8", ("fin.matrix.file.distinct",)),
    ("tests.mutants.finalize.staging_string_prefix:factory", "H9", ("fin.contain.staged.sibling-*",)),
    ("tests.mutants.finalize.orchestrator_promotes:factory", "H9", ("fin.staging.file.distinct.one",)),
    # planning renames the source itself on the direct route (§10.1)
    ("tests.mutants.finalize.planner_renames_source:factory", "H9",
     ("fin.staging.file.distinct.none-stray",)),
    ("tests.mutants.finalize.replacement_by_scan:factory", "H9", ("fin.staging.file.distinct.none-stray",)),
    ("tests.mutants.finalize.two_mappings_accepted:factory", "H9", ("fin.staging.file.distinct.two",)),
    # the staged file compared with its record by size, not digest (§10.1)
    ("tests.mutants.finalize.replacement_by_size:factory", "H9",
     ("fin.refuse.staging.digest-same-size",)),
    ("tests.mutants.finalize.terminal_apart_from_phase:factory", "H12", ("fin.matrix.file.distinct",)),
    ("tests.mutants.finalize.terminal_before_install:factory", "H12", ("fin.matrix.file.distinct",)),
    ("tests.mutants.finalize.compensation_plain_rename:factory", "H10",
     ("fin.db-faults.file.distinct.none.eio-fsync",)),
    # an error after the commit point: compensated blind, or trusted before it is durable
    ("tests.mutants.finalize.commit_error_compensates:factory", "H13",
     ("fin.db-faults.file.distinct.none.eio-state-dir-fsync-2",)),
    ("tests.mutants.finalize.commit_visible_not_durable:factory", "H13",
     ("fin.db-faults.file.distinct.none.eio-state-dir-fsync-2",)),
    # an identity check dropped between an action and the phase write it guards (§10.1, §10.2)
    ("tests.mutants.finalize.db_commit_unverified:factory", "H8",
     ("fin.guard.file.direct.db_committed.*",)),
    ("tests.mutants.finalize.install_unverified:factory", "H8",
     ("fin.guard.file.copy.target_installed.*",)),
    ("tests.mutants.finalize.staged_unverified:factory", "H23",
     ("fin.guard.file.copy.target_staged.*",)),
    ("tests.mutants.finalize.identical_target_adopted:factory", "H10",
     ("fin.identical-target.file.distinct.*",)),
    ("tests.mutants.finalize.tree_without_dirs:factory", "H23", ("fin.identity.pair.*",)),
    ("tests.mutants.finalize.tree_files_by_size:factory", "H23", ("fin.identity.pair.*",)),
    ("tests.mutants.finalize.copy_tree_without_dir_fsync:factory", "H19",
     ("fin.matrix.tree.cross-device",)),
    ("tests.mutants.finalize.copy_tree_parent_first:factory", "H19", ("fin.matrix.tree.cross-device",)),
    ("tests.mutants.finalize.make_durable_preorder:factory", "H19", ("fin.matrix.tree.cross-device",)),
    ("tests.mutants.finalize.windows_utf8_order:factory", "H23", ("fin.platform.order.windows.distinct",)),
    ("tests.mutants.finalize.case_equivalent_as_distinct:factory", "H13", ("fin.casefold.file.equivalent",)),
    # a same-size rewrite of a tree entry before a cleanup deletion (§10.2, §10.3)
    ("tests.mutants.finalize.tree_cleanup_size_only:factory", "H8", ("fin.quiesce.tamper.*.tree.*",)),
    # a rename across parents under the strict crash model (both parents fsynced, §10.2)
    ("tests.mutants.finalize.rename_one_parent_fsync:factory", "H19", ("fin.matrix.file.other-dir",)),
    # a directory moved to another parent, its own root not fsynced (§10.2 "fsync 已重命名 root")
    ("tests.mutants.finalize.rename_root_unsynced:factory", "H19", ("fin.matrix.tree.other-dir",)),
    # the same bug on a rename within one parent: the trace rule (the crash model sees no `..` change)
    ("tests.mutants.finalize.rename_root_unsynced:factory", "H19", ("fin.matrix.empty-dir.distinct",)),
    # a replacement staged on a device of its own (§10.2: what reaches the target crosses)
    ("tests.mutants.finalize.replacement_device_from_source:factory", "H23",
     ("fin.matrix.file.distinct.staged.staging-own",)),
    # a file of a private tree copy as long as its record taken for a cut copy (§10.3)
    ("tests.mutants.finalize.tree_partial_equal_size:factory", "H8",
     ("fin.quiesce.interlope.tree.cross-device.same-size",)),
    # an outsider's file at the private copy between a crash and recovery (§10.3 "只丢弃该身份")
    ("tests.mutants.finalize.private_discard_unchecked:factory", "H8",
     ("fin.quiesce.interlope.file.cross-device.larger",)),
    # a replacement byte-identical to the source, judged on the inode at the target (§10.2)
    ("tests.mutants.finalize.identical_replacement_dropped:factory", "H11",
     ("fin.matrix.file.same.identical",)),
    # §10.3 target_installed with the installed replacement matching, another file recovery
    # reads swapped by an outsider after the crash: commit, never judge against the source
    ("tests.mutants.finalize.recovery_judges_source:factory", "H11",
     ("fin.quiesce.interlope.file.same.staged.source",)),
    # an outsider appends while the source is hashed: the stat before and after (§10.1)
    ("tests.mutants.finalize.identity_change_unchecked:factory", "H23", ("fin.read-change.file.*",)),
    # only the sizes stat'ed before and after compared: a cut-and-restored file passes (§10.1)
    ("tests.mutants.finalize.identity_size_ends_only:factory", "H23",
     ("fin.read-change.file.distinct.truncate-restore",)),
    # a symlinked parent of the target resolved once, realpath-like (§10.1 no-follow)
    ("tests.mutants.finalize.target_parent_followed:factory", "H10",
     ("fin.refuse.target.parent-symlink",)),
    # a task file outside the source dropped by the rebase of the terminal transaction (§10.2)
    ("tests.mutants.finalize.rebase_drops_sidecar:factory", "H12", ("fin.rebase.file.distinct.*",)),
    # a sibling named like the source plus a suffix rebased as if under it (§10.2)
    ("tests.mutants.finalize.rebase_sibling_prefix:factory", "H12",
     ("fin.rebase.file.distinct.sibling-prefix",)),
    # a path that became a symlink after planning taken to hold the recorded identity (§10.1)
    ("tests.mutants.finalize.unreadable_identity_matches:factory", "H23",
     ("fin.retype.file.distinct.*",)),
    # planning while another owner holds the lease; file actions without a durable journal
    ("tests.mutants.finalize.lease_busy_ignored:factory", "H8", ("fin.refuse.lease-held.file.*",)),
    ("tests.mutants.finalize.journal_write_ignored:factory", "H13",
     ("fin.refuse.state-unwritable.file.*",)),
    # a private copy created with truncation (the trace's open mode); compensation deleting
    # an outsider's file whose name its exclusive create found taken (§10.2, §10.3)
    ("tests.mutants.finalize.copy_truncating_create:factory", "H10", ("fin.matrix.file.cross-device",)),
    ("tests.mutants.finalize.private_discard_foreign:factory", "H10", ("fin.squat.file.cross-device",)),
    # case-equivalent paths with a replacement take the distinct-path route (§10.1)
    ("tests.mutants.finalize.case_equivalent_replacement_moved:factory", "H13",
     ("fin.casefold.file.relation.folding.case.staged",)),
    # an I/O error in the cleanup after db_committed compensated (§10.2, §10.3)
    ("tests.mutants.finalize.cleanup_error_compensates:factory", "H12",
     ("fin.cleanup-faults.file.same.staged.*",)),
    # compensation over a private copy an outsider rewrote with as many other bytes takes it
    # for its own copy cut short (§10.1, §10.3 "不得 … 把相同 size 当成身份")
    ("tests.mutants.finalize.private_discard_equal_size:factory", "H8",
     ("fin.guard.file.copy.target_staged.same-size.fails",)),
    # the preserve rename's destination not re-verified before source_preserved (§10.1
    # "每次 preserve … 动作前后 … 重新验证")
    ("tests.mutants.finalize.preserve_unverified:factory", "H8",
     ("fin.guard.file.replace-in-place-link.source_preserved.*",)),
    # recovery drops an outsider's byte-identical file (another inode) at a path the layout
    # wants absent as a second name of its own (§10.1 unrelated target, §10.3)
    ("tests.mutants.finalize.second_name_by_bytes:factory", "H10",
     ("fin.identical-target.recovery.direct.target",)),
]

#: Shell mutants (§16) run the shell cases: symmetry, the generated step order, incomplete assemblies.
SHELL_CASES = ("shell.*",)
SHELL_MUTANTS = [
    ("tests.mutants.shells.second_orchestrator:factory", "H16"),
    ("tests.mutants.shells.producers_before_recovery:factory", "H16"),
    ("tests.mutants.shells.server_event_fields:factory", "H16"),
    ("tests.mutants.shells.server_log_copies:factory", "H16"),
    ("tests.mutants.shells.admits_after_stop:factory", "H16"),
]
#: Shell mutants seen only when both shells start with a non-default runtime configuration.
SHELL_CONFIG_MUTANTS = [
    ("tests.mutants.shells.server_default_runtime:factory", "H16", ("shell.gen.config.*",)),
    # only Active workers stopped at shutdown: one still activating is left running (§16 step 9)
    ("tests.mutants.shells.stop_active_only:factory", "H16", ("shell.gen.stop-states.*activating",)),
    # the shutdown drain run without its budget: longer work finishes, the drain waits past it
    ("tests.mutants.shells.drain_unbounded:factory", "H16", ("shell.gen.stop-drain.*",)),
    # the leases to persist listed at admission.stop, before the drain: one that completes in
    # the drain is persisted, one opened in it and outliving it is not (§16 step 9)
    ("tests.mutants.shells.leases_before_drain:factory", "H16", ("shell.gen.stop-drain.lease*",)),
]
#: Delivery mutants (§11) run only the hand-written delivery scenarios or quota boundaries that
#: show them (the random programs catch most of them too, but take longer).
DELIVERY_MUTANTS = [
    ("tests.mutants.delivery.registry_at_dispatch:factory", "H20", ("dlv.snap.*",)),
    ("tests.mutants.delivery.id_per_attempt:factory", "H14", ("dlv.id.*",)),
    ("tests.mutants.delivery.failure_blocks_batch:factory", "H15", ("dlv.iso.*",)),
    ("tests.mutants.delivery.quota_off_by_one:factory", "H24", ("dlv.gen.bounds.admit.plugin-rows.*",)),
    ("tests.mutants.delivery.quota_outside_transaction:factory", "H24",
     ("dlv.gen.bounds.admit.global-bytes.*",)),
    ("tests.mutants.delivery.prune_active_rows:factory", "H24", ("dlv.gen.bounds.admit.plugin-*",)),
    ("tests.mutants.delivery.grants_widen:factory", "H25", ("dlv.perm.*",)),
    ("tests.mutants.delivery.upgrade_runs_old_code:factory", "H25", ("dlv.perm.*",)),
    ("tests.mutants.delivery.stale_token_accepted:factory", "H14", ("dlv.fence.*",)),
    ("tests.mutants.delivery.heartbeat_revives:factory", "H14", ("dlv.fence.*",)),
    ("tests.mutants.delivery.identity_by_version:factory", "H25", ("dlv.gen.identity.reinstall.*",)),
    ("tests.mutants.delivery.occurrence_separate:factory", "H20",
     ("dlv.crash.terminal-four-candidates",)),
    ("tests.mutants.delivery.replayed_terminal:factory", "H14", ("dlv.gen.replay.replay.immediately.*",)),
    ("tests.mutants.delivery.over_quota_refuses_whole:factory", "H24",
     ("dlv.gen.bounds.admit.plugin-rows.*",)),
    ("tests.mutants.delivery.char_counted_charge:factory", "H24",
     ("dlv.gen.bounds.admit.plugin-bytes.*",)),
    # a byte quota admitting a row while any room is left, whatever its charge (§11)
    ("tests.mutants.delivery.byte_room_left:plugin_bytes", "H24", ("dlv.gen.byte-fits.plugin.*",)),
    ("tests.mutants.delivery.byte_room_left:global_bytes", "H24", ("dlv.gen.byte-fits.global.*",)),
    ("tests.mutants.delivery.restart_charges_attempt:factory", "H14", ("dlv.gen.recovery.*",)),
    ("tests.mutants.delivery.prune_before_audit:factory", "H24", ("dlv.gen.crashes.crash.retention",)),
    ("tests.mutants.delivery.rollup_split:factory", "H24", ("dlv.gen.crashes.crash.tombstone-rollup",)),
    ("tests.mutants.delivery.global_buckets_uncapped:factory", "H24",
     ("dlv.gen.bounds.tombstones.global-buckets.*",)),
    ("tests.mutants.delivery.daily_cap_per_hook:factory", "H24",
     ("dlv.gen.bounds.tombstones.daily-buckets-two-hooks",)),
    # a bucket's last occurrence and time not moved by a repeat rejection (§11 bucket contents)
    ("tests.mutants.delivery.bucket_last_stale:factory", "H24",
     ("dlv.gen.bounds.tombstones.contents.same-day.*",)),
    # the newest buckets merged into the rollups, not the oldest (§11 "old buckets merge")
    ("tests.mutants.delivery.global_merges_newest:factory", "H24",
     ("dlv.gen.bounds.tombstones.global-buckets.*.over",)),
    ("tests.mutants.delivery.daily_merges_newest:factory", "H24",
     ("dlv.gen.bounds.tombstones.daily-buckets",)),
    # receipts pruned on their row cap only: a lowered byte cap binds first (§11)
    ("tests.mutants.delivery.receipt_bytes_unpruned:factory", "H24",
     ("dlv.gen.bounds.receipts.plugin-bytes.*",)),
    # a receipt quota removing a recent receipt, not the oldest (§11)
    ("tests.mutants.delivery.receipt_not_oldest:factory", "H24",
     ("dlv.gen.bounds.receipts.plugin-rows.*",)),
    # delivered rows never give their active row quota back (§11 exact release)
    ("tests.mutants.delivery.receipts_hold_quota:factory", "H24",
     ("dlv.gen.bounds.admit.plugin-rows.*",)),
    # receipts keep their rows' full charge instead of at most 1 KiB (§11)
    ("tests.mutants.delivery.receipt_not_compacted:factory", "H24",
     ("dlv.gen.bounds.admit.plugin-bytes.*",)),
    # the attempt limit on each route to it: a failure, a lease taken over, a restart (§11)
    ("tests.mutants.delivery.attempt_past_limit:factory", "H14", ("dlv.gen.limits.attempts.*.fail",)),
    ("tests.mutants.delivery.takeover_past_limit:factory", "H14",
     ("dlv.gen.limits.attempts.*.expired",)),
    ("tests.mutants.delivery.restart_forgets_attempt_limit:factory", "H14",
     ("dlv.gen.limits.attempts.*.expired-restart",)),
    # a plugin paused by its open breaker ends the claim: the plugins after it wait (§11)
    ("tests.mutants.delivery.breaker_ends_claim:factory", "H15",
     ("dlv.gen.blocked-positions.*.breaker-*",)),
    # a failed half-open probe must reopen the breaker (§11)
    ("tests.mutants.delivery.probe_failure_counted:factory", "H15",
     ("dlv.gen.limits.breaker.*.probe-fail",)),
    # a reinstall that drops a required grant revokes it (§11 permission_revoked)
    ("tests.mutants.delivery.reinstall_keeps_revoked_rows:factory", "H25",
     ("dlv.gen.limits.required-grant-gone.*",)),
    # a digest-less candidate taken for a healthy one: the terminal rolls back and answers an
    # error, which fails H20 (§11: the transaction commits, malformed candidates become rows)
    ("tests.mutants.delivery.digestless_rolls_back:factory", "H20", ("dlv.gen.malformed.digest.*",)),
]

#: Permission and DTO mutants run their own family's cases (the corpus is large; the other
#: families are unchanged by these mutants): the task-source family whole, or the rows' own
#: globs naming the part of perm.* (2450 cases) or dto.* (1682) that shows them.
FAMILY_CASES = {"H17": ("task-source.*",)}
MUTANTS = [
    ("tests.mutants.permissions.regex_whole_url:factory", "H5", ("perm.host-path.*",)),
    ("tests.mutants.permissions.suffix_without_boundary:factory", "H5", ("perm.host.*",)),
    ("tests.mutants.permissions.percent_decoding:factory", "H5", ("perm.path.*",)),
    ("tests.mutants.permissions.accept_credentials:factory", "H5", ("perm.credentials.*",)),
    ("tests.mutants.permissions.split_matchers:factory", "H5", ("perm.credentials.*",)),
    ("tests.mutants.permissions.host_only_selection:factory", "H5", ("perm.path.*",)),
    ("tests.mutants.permissions.redirect_hops:first_hop_only", "H5", ("perm.redirect.*",)),
    ("tests.mutants.permissions.redirect_hops:last_hop_only", "H5", ("perm.gen.redirect.*",)),
    ("tests.mutants.permissions.redirect_hops:refused_hop_off_by_one", "H5", ("perm.redirect.*",)),
    ("tests.mutants.permissions.first_matching_host:factory", "H5", ("perm.wpt.*.redirect", "perm.gen.pattern-sets.*")),
    ("tests.mutants.permissions.admit_by_host_permissions:factory", "H17"),
    ("tests.mutants.permissions.task_source_policy:first_url_only", "H17"),
    ("tests.mutants.permissions.task_source_policy:link_local_accepted", "H17"),
    ("tests.mutants.permissions.task_source_policy:private_by_spelling", "H17"),
    ("tests.mutants.schemas.codepoint_limits:factory", "H4", ("dto.gen.limits.aftercompletecontextv1.*",)),
    ("tests.mutants.schemas.detail_params_codepoints:factory", "H4", ("dto.gen.limits.errordescriptorv1.*",)),
    ("tests.mutants.schemas.snapshot_keys_unchecked:factory", "H4", ("dto.gen.limits.metadatasnapshotv1.*",)),
    ("tests.mutants.schemas.effects_without_schema_version:factory", "H4", ("dto.gen.shapes.*.schemaversion.*",)),
    ("tests.mutants.schemas.exclusive_byte_limits:factory", "H4", ("dto.gen.limits.aftercompletecontextv1.*",)),
    ("tests.mutants.schemas.enter_ids_unchecked:factory", "H4", ("dto.gen.shapes.hookentermessagev1.*",)),
    ("tests.mutants.schemas.paths_as_strings:factory", "H4", ("dto.gen.limits.plugintasksnapshotv1.*",)),
]
#: Worker-boundary mutants run the generated worker-message cases (real guests forging
#: messages on the raw worker port).
WORKER_MESSAGE_CASES = ("dto.gen.worker-messages.*",)
WORKER_MESSAGE_MUTANTS = [
    ("tests.mutants.schemas.worker_scope:log_any_invocation", "H3"),
    ("tests.mutants.schemas.worker_scope:unbound_error_exit", "H3"),
]

#: Capability-bridge mutants (§9.1 bounds of capability arguments and results) run the
#: generated guest.capability-bounds cases of their direction.
CAPABILITY_BOUNDS_MUTANTS = [
    ("tests.mutants.guest.bridge_bounds:arguments_dispatched", "H4", ("guest.capability-bounds.arguments.log-*",)),
    ("tests.mutants.guest.bridge_bounds:error_exit_unvalidated", "H4", ("guest.capability-bounds.exits.*",)),
    # storage and http carried out without the manifest's grant (§9.5 effective permission)
    ("tests.mutants.guest.capability_gates:ungranted_dispatched", "H5", ("guest.capability-calls.ungranted.*",)),
    ("tests.mutants.guest.capability_gates:ungranted_dispatched", "H4", ("guest.capability-calls.ungranted.*",)),
    # a guest http call's redirect targets checked in part (§7): the first URL alone, or each
    # target only after it was sent (guest.capability-redirects: every position and kind)
    ("tests.mutants.guest.redirect_hops:redirect_first_hop_only", "H5", ("guest.capability-redirects.*",)),
    ("tests.mutants.guest.redirect_hops:redirect_last_hop_skipped", "H5", ("guest.capability-redirects.*",)),
    # compareAndSet ignoring the version it names (§11)
    ("tests.mutants.guest.capability_gates:compare_and_set_blind", "H4",
     ("guest.capability-calls.storage.compare-and-set.*",)),
    # effects checked against what the hook may return for beforeCreate only (§9.3-§9.5)
    ("tests.mutants.guest.effects_one_hook:factory", "H4", ("guest.hook-effects.*",)),
]


#: §7 mutants found only by a generated family of cases run that family alone.
PERMISSION_TEMPLATE_MUTANTS = [
    ("tests.mutants.permissions.glob_overlap:factory", "H5", ("perm.gen.glob-literals.*",)),
    # pattern hosts past the DNS length edges or with an empty label grant the URLs naming them
    ("tests.mutants.permissions.lenient_pattern_hosts:factory", "H5", ("perm.gen.hosts.*",)),
    # only all-lowercase URL escapes uppercased: %aB and %Ab compared as written (§7)
    ("tests.mutants.permissions.mixed_hex_kept:factory", "H5", ("perm.gen.percent-hex-spellings.*",)),
    # every trailing dot of a URL host removed, not one (§7), in a match and in every redirect hop
    ("tests.mutants.permissions.trailing_dots_stripped:factory", "H5", ("perm.gen.trailing-dots.*",)),
]


def _name(m):
    module, factory = m[0].rsplit(".", 1)[1].split(":")
    return module if factory == "factory" else factory


#: Mutants of the §9.4 boundary rules judged by DTO validation (H4) on the task-source cases.
TASK_SOURCE_DTO_MUTANTS = [
    ("tests.mutants.permissions.task_source_policy:raw_bt_source", "H4"),
]

#: Builtin archive mutants (§19.2) run the builtin cases.
BUILTIN_MUTANTS = [
    ("tests.mutants.builtins.signature_unchecked:factory", "H25", ("builtin.*",)),
    ("tests.mutants.builtins.lock_version_unchecked:factory", "H25", ("builtin.gen.archives.*",)),
    ("tests.mutants.builtins.signature_text_lenient:factory", "H25",
     ("builtin.gen.archives.*.signature.*",)),
]
#: §17 matrix rows through the QuickJS filename-template bundle catch runtime mutants too.
MATRIX_MUTANTS = [
    ("tests.mutants.runtime.reclaim_busy_worker:factory", "H2", ("race.matrix.*",)),
    ("tests.mutants.runtime.active_set_candidates:factory", "H18", ("rt.matrix.*",)),
]
#: §15 HTTP URL diagnostics mutants run the diagnostics cases.
DIAGNOSTICS_MUTANTS = [
    ("tests.mutants.runtime.engine_request_redacted:factory", "H17", ("rt.diag.*",)),
    ("tests.mutants.runtime.credential_logged:factory", "H17", ("rt.diag.*",)),
    ("tests.mutants.runtime.log_copy_reencoded:factory", "H17", ("rt.diag.*",)),
]

#: A step missing on one of several paths (one task type of the BT family, one role's effect
#: kind, one patch of an exit, one position of the claim order, one hook's exit): each is
#: caught by the template that generates every path from the spec's structure.
PATH_MUTANTS = [
    ("tests.mutants.schemas.magnet_source_unchecked:factory", "H4", ("dto.gen.bt-sources.*",)),
    # §9.4 source identity: an info hash recognised by a prefix match; a task id in the
    # standard base64 alphabet (each caught by the rule's branches, dto.bt-source-rule)
    ("tests.mutants.schemas.bt_source_identity:hash_prefix", "H4",
     ("dto.gen.bt-source-rule.beforefinalizecontextv1.bt.*.hash.*",)),
    ("tests.mutants.schemas.bt_source_identity:standard_base64", "H4",
     ("dto.gen.bt-source-rule.beforefinalizecontextv1.bt.*.id.*",)),
    # object keys of free-form JSON values never measured: every free-form field, both boundaries
    ("tests.mutants.schemas.json_keys_unbounded:factory", "H4", ("dto.gen.limits.*.json-key-*",)),
    ("tests.mutants.runtime.audit_metadata_accepted:factory", "H6", ("rt.gen.role-effects.*",)),
    ("tests.mutants.runtime.first_patch_admitted:factory", "H17", ("rt.gen.source-positions.*",)),
    # §6 rule 5 by the source URL's scheme: a BT/magnet task with an http(s) source filtered
    ("tests.mutants.runtime.host_filter_by_scheme:factory", "H18",
     ("rt.gen.eligibility.bt.http*", "rt.gen.eligibility.magnet.https.*")),
    # §8 a refused re-entrant call left in its plugin's lane: the next entry there waits forever
    ("tests.mutants.runtime.refused_call_left_queued:factory", "H22", ("rt.gen.call-graphs.cycle.*.then-*",)),
    # §6 a source URL that does not split drops every candidate, the URL-blind hooks' too
    ("tests.mutants.runtime.unsplittable_source_ineligible:factory", "H18",
     ("rt.gen.eligibility.*.malformed-*",)),
    ("tests.mutants.delivery.blocked_plugin_ends_batch:factory", "H15",
     ("dlv.gen.blocked-positions.*",)),
    # an expired lease counted as in flight: against the global workers, or as its plugin's lane (§11)
    ("tests.mutants.delivery.expired_lease_in_flight:factory", "H15", ("dlv.gen.in-flight.*",)),
    ("tests.mutants.delivery.expired_lease_busy:factory", "H15", ("dlv.gen.in-flight.*",)),
    # the jitter applied inside the delay cap, min(cap, base·2^(attempt-1)·jitter) (§11: after)
    ("tests.mutants.delivery.jitter_inside_cap:factory", "H14", ("dlv.gen.retry-schedule.base-max.*",)),
    # the round-robin cursor serves the plugin served last again first (§11)
    ("tests.mutants.delivery.cursor_serves_last_again:factory", "H15", ("dlv.gen.round-robin.n2.*",)),
    # the runtime's own dispatcher (delivery.dispatch, §11 per-row capture): a batch's exits
    # recorded after all its hooks ran, under one try (a hook that raises loses the batch);
    # a failed hook ending the drain; a raised hook dead-lettered instead of retried
    ("tests.mutants.delivery.dispatch_loses_batch:factory", "H15", ("dlv.gen.dispatch.*",)),
    ("tests.mutants.delivery.dispatch_failure_ends_drain:factory", "H15", ("dlv.gen.dispatch.*.drain.*",)),
    ("tests.mutants.delivery.dispatch_throw_permanent:factory", "H15", ("dlv.gen.dispatch.*.throw",)),
    # a dispatcher pinning its batch's leases while the hooks run: only a crash mid-dispatch
    # shows the row left delivering under a lease that never expires (§11, H14)
    ("tests.mutants.delivery.dispatch_lease_pinned:factory", "H14", ("dlv.gen.crashes.crash.dispatch",)),
    ("tests.mutants.guest.finalize_effects_unchecked:factory", "H4",
     ("guest.hook-effects.beforefinalize.*",)),
    # §9.3 the guest's AbortSignal, every hook × cause (guest.abort-signal): the outstanding
    # promises rejected before the abort event; ctx.metadata.set or a capability call after it
    ("tests.mutants.guest.guest_prelude:abort_rejects_first", "H7", ("guest.abort-signal.aftercomplete.*",)),
    ("tests.mutants.guest.guest_prelude:metadata_set_after_abort", "H7",
     ("guest.abort-signal.beforefinalize.*",)),
    ("tests.mutants.guest.guest_prelude:capability_after_abort", "H7", ("guest.abort-signal.onerror.*",)),
    # the abort taken (and echoed) but deferred until the waiting calls were answered (§9.3)
    ("tests.mutants.guest.abort_deferred:factory", "H7", ("guest.abort-signal.beforecreate.timeout*",)),
    # an answer settling a pending call whatever invocation id it carries (§8)
    ("tests.mutants.guest.guest_prelude:response_any_invocation", "H3", ("guest.forged-responses.*",)),
    # a worker message bound by its invocation id alone (§8): a call's call chain never
    # compared; an exit's call chain and generation never compared (guest.forged-scopes)
    ("tests.mutants.guest.scope_fields:chain_unchecked", "H3",
     ("guest.forged-scopes.*.callchainid.foreign",)),
    ("tests.mutants.guest.scope_fields:exit_id_only", "H3", ("guest.forged-scopes.exit-ok.callchainid.*",)),
    ("tests.mutants.guest.scope_fields:exit_id_only", "H21",
     ("guest.forged-scopes.exit-error.permissiongeneration.*",)),
    # a capability call's permission generation never compared with the entry's (§6)
    ("tests.mutants.guest.bridge_generation_unchecked:factory", "H21",
     ("guest.forged-generations.beforefinalize.*",)),
    # a cancellation at one lane position: a queued entry of another plugin's chain cancelled
    # behind a running one (frees the lane), or one with survivors behind it (reorders them)
    ("tests.mutants.runtime.cancelled_frees_lane:factory", "H2",
     ("race.gen.lane-cancellations.n3.*.caller",)),
    ("tests.mutants.runtime.cancel_reorders_queue:factory", "H2",
     ("race.gen.lane-cancellations.n4.*.caller*",)),
    # a late message of a finished invocation accepted while its lane is idle (§8)
    ("tests.mutants.runtime.late_message_idle_lane:factory", "H3", ("rt.gen.late-messages.*.idle.*",)),
    # an invocation ended while it waits for a nested command or capability (§8): its context
    # kept past a forced termination, the rest of its call chain not rejected, its timeout
    # not applied while it waits
    ("tests.mutants.runtime.forced_context_kept:factory", "H3",
     ("rt.gen.terminations.barrier.command-*",)),
    ("tests.mutants.runtime.forced_chain_kept:factory", "H3",
     ("rt.gen.terminations.barrier.command-running",)),
    ("tests.mutants.runtime.timeout_ignores_waits:factory", "H3",
     ("rt.gen.terminations.timeout.*",)),
    # a call presenting the advanced generation admitted while the barrier drains (§6)
    ("tests.mutants.runtime.barrier_generation_only:factory", "H21",
     ("rt.gen.barrier-generations.draining-*",)),
    # a call presenting the generation one above the live one admitted after a publish (§6)
    ("tests.mutants.runtime.generation_one_ahead:factory", "H21",
     ("rt.gen.barrier-generations.after-*",)),
    # a chain running a later candidate a policy barrier took out of §6's rules while an
    # earlier plugin ran; and its converse, a generation change alone skipping one still in
    ("tests.mutants.runtime.later_candidate_unchecked:factory", "H21",
     ("rt.gen.later-candidates.*.idle.n2",)),
    ("tests.mutants.runtime.generation_as_lease:factory", "H21",
     ("rt.gen.later-candidates.*.grant.*.n2",)),
    # idle reclaim with one of the plugin's own capability operations still in flight, or
    # blind to the lane and the operations altogether (§5.1)
    ("tests.mutants.runtime.reclaim_with_capability_op:factory", "H2",
     ("rt.gen.idle-reclaim.capability.1.*",)),
    ("tests.mutants.runtime.reclaim_busy_worker:factory", "H2",
     ("rt.gen.idle-reclaim.queued.1.*", "rt.gen.idle-reclaim.running.1.*")),
    # Active published for a worker that never registered the needed hook (§5.1)
    ("tests.mutants.runtime.active_without_registration:factory", "H6",
     ("rt.lifecycle.not-registered.*",)),
]

ALL = ([(m[0], m[1], m[2] if len(m) > 2 else FAMILY_CASES[m[1]]) for m in MUTANTS]
       + [(c, i, ("task-source.*",)) for c, i in TASK_SOURCE_DTO_MUTANTS]
       + RUNTIME_MUTANTS
       + [(c, i, ("race.*",)) for c, i in RACE_MUTANTS]
       + GUEST_MUTANTS
       + [(c, i, WORKER_MESSAGE_CASES) for c, i in WORKER_MESSAGE_MUTANTS]
       + FINALIZE_MUTANTS
       + [(c, i, METADATA_CASES) for c, i in METADATA_MUTANTS]
       + [(c, i, SHELL_CASES) for c, i in SHELL_MUTANTS]
       + SHELL_CONFIG_MUTANTS
       + DELIVERY_MUTANTS
       + BUILTIN_MUTANTS
       + DIAGNOSTICS_MUTANTS
       + MATRIX_MUTANTS
       + CAPABILITY_BOUNDS_MUTANTS
       + PERMISSION_TEMPLATE_MUTANTS
       + PATH_MUTANTS)


@pytest.mark.parametrize(("candidate", "invariant", "cases"), ALL, ids=[_name(m) for m in ALL])
def test_reports_invariant_failing_for_mutant(hookconf, candidate, invariant, cases):
    filters = [arg for glob in cases for arg in ("--case", glob)]
    code, report = hookconf("run", "--candidate", candidate, *filters)
    assert code == 1
    assert status(report, invariant) == "fail"
    failed = [c for c in report["cases"] if c["status"] == "failed"]
    assert failed, "a failing invariant must name the cases that failed"
    for case in failed:
        assert case["rerun"].startswith(f"hookconf run --candidate {candidate} --case ")
    # A broken runtime may break neighbouring invariants too; the named one must be among them.
    assert any(not j["passed"] and j["invariant"] == invariant
               for case in failed for j in case["judgements"])


#: Mutants of the lease profile (second seed S1-L1.3): each must make the profile's verdict
#: fail under `hookconf run --profile lease`, on the rows named (among others it may break).
PROFILE_MUTANTS = [
    ("tests.mutants.delivery.stale_token_accepted:factory", "lease", {"SM4", "SM6", "A4", "F5", "F6"}),
    ("tests.mutants.delivery.heartbeat_revives:factory", "lease", {"SM4", "A3", "F3"}),
]


@pytest.mark.parametrize(("candidate", "profile", "rows"), PROFILE_MUTANTS,
                         ids=[_name(m) for m in PROFILE_MUTANTS])
def test_profile_fails_for_mutant(hookconf, candidate, profile, rows):
    code, report = hookconf("run", "--candidate", candidate, "--profile", profile)
    assert code == 1
    assert report["verdict"]["profile"] == profile and report["verdict"]["exit_code"] == 1
    found = next(p for p in report["profiles"] if p["name"] == profile)
    assert found["status"] == "fail"
    failing = {r["id"] for r in found["rows"] if r["status"] == "fail"}
    assert rows <= failing, f"rows {sorted(rows - failing)} should fail"
    assert all(r["status"] == "not_expressible" for r in found["rows"] if not r["cases"]
               and r["status"] != "fail")
    assert report["totals"]["selected"] == sum(1 for c in report["cases"] if c["id"].startswith("lease."))


def test_split_matchers_are_caught_by_route_comparison(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.permissions.split_matchers:factory",
                         "--case", "perm.*")
    details = [j["detail"] for c in report["cases"] if c["status"] == "failed" for j in c["judgements"]]
    assert any(d.startswith("routes disagree") for d in details)


def test_race_explorer_prints_the_shrunk_interleaving_and_its_seed(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.runtime.capability_after_revoke:factory",
                         "--case", "race.*")
    failed = {c["id"]: c for c in report["cases"] if c["status"] == "failed"}
    revoke = failed["race.policy.revoke-during-capability.1"]
    detail = revoke["judgements"][0]["detail"]
    assert "picks [" in detail and "seed 0" in detail
    assert revoke["metrics"]["interleavings"] >= 1


def test_program_explorer_prints_the_shrunk_program_and_its_seed(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.runtime.faulted_finalize_ineligible:factory",
                         "--case", "rt.gen.policy-programs.*")
    failed = [c for c in report["cases"] if c["status"] == "failed"]
    assert failed
    detail = next(j["detail"] for j in failed[0]["judgements"] if j["invariant"] == "H18")
    assert "shrunk to 1 action(s): [['fault'," in detail and "seed " in detail
    assert failed[0]["metrics"]["queries"] > 0


def test_reference_report_counts_interleavings_per_race(hookconf):
    _, report = hookconf("run", "--case", "race.*")
    races = [c for c in report["cases"] if c["kind"] == "runtime.race"]
    assert races and all(c["status"] == "passed" for c in races)
    written = [c for c in races if ".gen." not in c["id"]]
    assert written and all(c["metrics"]["interleavings"] >= 10 and c["metrics"]["distinct"] >= 2
                           for c in written)
    # generated lane cancellations: 8 per case where a barrier races the lane; a timeout of the
    # running entry leaves one process ready at each step, so one interleaving is all there is
    generated = {c["id"]: c["metrics"] for c in races if c["id"].startswith("race.gen.lane-cancellations.")}
    assert len(generated) == 35
    # endings stepped one process at a time (advisory): every one explored at least once
    stepped = [c for c in races if c["id"].startswith("race.gen.termination-steps.")]
    assert len(stepped) == 16 and all(c["metrics"]["interleavings"] >= 1 for c in stepped)
    for case_id, metrics in generated.items():
        if case_id.endswith(".timeout"):
            assert metrics["interleavings"] == 1
        else:
            assert metrics["interleavings"] >= 6 and metrics["distinct"] >= 6, case_id


@FULL_RUNS
def test_reference_passes_every_invariant_with_positive_and_negative_cases(reference_run):
    code, report = reference_run["code"], reference_run["report"]
    assert code == 0
    rows = {i["id"]: i for i in report["invariants"]}
    for inv in (f"H{n}" for n in range(1, 26)):
        assert rows[inv]["status"] == "pass"
        assert rows[inv]["positive"]["run"] > 0 and rows[inv]["negative"]["run"] > 0
    assert not any(i["status"] in ("fail", "error") for i in report["invariants"])
    assert report["verdict"]["conformant"]
    assert report["verdict"]["summary"] == "CONFORMANT: all 25 invariants pass with positive and negative cases"


def test_allow_not_covered_exits_zero_only_without_failures(hookconf):
    # a subset leaves most invariants not covered and nothing failing: exit 0
    assert hookconf("run", "--allow-not-covered", "--case", "perm.*")[0] == 0
    code, _ = hookconf("run", "--allow-not-covered", "--candidate", MUTANTS[0][0], "--case", "perm.*")
    assert code == 1


def test_reference_report_counts_crash_points_and_states_per_finalize_case(hookconf):
    _, report = hookconf("run", "--case", "fin.matrix.*", "--case", "fin.fault.*")
    cases = [c for c in report["cases"] if c["kind"] == "runtime.finalize"]
    assert cases and all(c["status"] == "passed" for c in cases)
    completing = [c for c in cases if c["polarity"] == "positive"]
    assert completing and all(c["metrics"]["crashPoints"] >= 10 and c["metrics"]["crashStates"] >= 3
                              for c in completing)
    assert any(c["metrics"]["statesGenerated"] > c["metrics"]["crashStates"] for c in cases)


def test_finalize_mutant_failure_names_the_crash_point(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.finalize.phase_before_fsync:factory",
                         "--case", "fin.matrix.file.distinct")
    (case,) = report["cases"]
    detail = next(j["detail"] for j in case["judgements"] if j["invariant"] == "H19" and not j["passed"])
    assert detail.startswith("at crash ") and "variant" in detail


def test_metadata_explorer_prints_the_shrunk_program_and_its_seed(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.guest.metadata_prelude:has_by_in_operator",
                         "--case", "guest.metadata.programs.pre-hooks")
    (case,) = report["cases"]
    assert case["status"] == "failed" and case["metrics"]["failing"] >= 1
    detail = case["judgements"][0]["detail"]
    assert "minimal failing program" in detail and "seed 0" in detail
    # one step suffices: has() of an inherited name on a map without it
    assert len(case["judgements"][0]["observed"]["program"]["ops"]) == 1
    assert case["metrics"]["shrinkRuns"] >= 1


def test_delivery_program_failure_prints_the_shrunk_program_and_its_seed(hookconf):
    _, report = hookconf("run", "--candidate", "tests.mutants.delivery.grants_widen:factory",
                         "--case", "dlv.gen.programs.tight-limits")
    (case,) = report["cases"]
    assert case["status"] == "failed" and case["metrics"]["programs"] >= 1
    judgement = next(j for j in case["judgements"] if j["invariant"] == "H25" and not j["passed"])
    assert "minimal failing program" in judgement["detail"] and "seed " in judgement["detail"]
    assert case["metrics"]["shrinkRuns"] >= 1


@FULL_RUNS
def test_reference_report_counts_delivery_programs_and_quota_boundaries(reference_run):
    cases = [c for c in reference_run["report"]["cases"] if c["kind"] == "runtime.delivery"]
    assert cases and all(c["status"] == "passed" for c in cases)
    programs = [c for c in cases if c["id"].startswith("dlv.gen.programs.")]
    assert programs and all(c["metrics"]["programs"] >= 10 and c["metrics"]["claims"] > 0
                            for c in programs)
    bounds = [c for c in cases if c["id"].startswith("dlv.gen.bounds.admit.")]
    assert {c["polarity"] for c in bounds} == {"positive", "negative"}


#: Mutants the spec does not decide against: only advisory cases may show them, and the
#: verdict must not (a case where the spec is silent never fails a candidate).
ADVISORY_ONLY_MUTANTS = [
    # §11 does not say whether a lease ending exactly now has expired
    ("tests.mutants.delivery.expiry_boundary_inclusive:factory", "H15", ("dlv.gen.in-flight.*",)),
    # §7 uppercases the URL's percent hex; whether a pattern's own is uppercased is not said
    ("tests.mutants.permissions.pattern_percent_hex:factory", "H5",
     ("perm.gen.percent-hex.*", "perm.gen.percent-hex-spellings.*")),
    # §6 does not say whether a chain runs the new version of a later candidate upgraded
    # while it ran and still eligible, or skips it as an identity it did not select
    ("tests.mutants.runtime.upgraded_candidate_skipped:factory", "H21",
     ("rt.gen.later-candidates.*.upgrade-*.idle.n2*",)),
    # §8 clears the context in finally; whether in the very step that reports a forced
    # termination is not said (the settled read of rt.gen.terminations still passes)
    ("tests.mutants.runtime.terminated_context_late:factory", "H3",
     ("race.gen.termination-steps.barrier.*", "rt.gen.terminations.barrier.*")),
]


@pytest.mark.parametrize(("candidate", "invariant", "cases"), ADVISORY_ONLY_MUTANTS,
                         ids=[_name(m) for m in ADVISORY_ONLY_MUTANTS])
def test_advisory_only_mutant_differs_in_advisory_cases_alone(hookconf, candidate, invariant, cases):
    filters = [arg for glob in cases for arg in ("--case", glob)]
    code, report = hookconf("run", "--allow-not-covered", "--candidate", candidate, *filters)
    assert code == 0 and status(report, invariant) == "pass"
    differ = [c for c in report["cases"] if c["status"] == "failed"]
    assert differ and all(c.get("advisory") for c in differ)
    assert report["advisory"]["failed"] == len(differ)


def _failed_ids(report):
    """The ids of the cases a report lists as failed."""
    return {c["id"] for c in report["cases"] if c["status"] == "failed"}


def test_refused_call_left_queued_fails_exactly_the_follow_ups(hookconf):
    """The refusal alone looks right; only a later entry to the refused plugin (or its idle
    reclaim) shows the call left in its lane — every such case, at every hop, fails."""
    candidate = "tests.mutants.runtime.refused_call_left_queued:factory"
    code, report = hookconf("run", "--candidate", candidate, "--allow-not-covered",
                            "--case", "rt.gen.call-graphs.*", "--case", "rt.cycles.*")
    assert code == 1
    cycles = {c["id"] for c in report["cases"] if ".cycle." in c["id"]}
    follow_ups = {i for i in cycles if i.endswith((".then-command", ".then-reclaim"))}
    assert len(follow_ups) == 2 * len(cycles - follow_ups) == 120
    assert _failed_ids(report) == follow_ups


def test_unsplittable_source_ineligible_fails_every_url_blind_hook_of_an_unsplittable_source(hookconf):
    candidate = "tests.mutants.runtime.unsplittable_source_ineligible:factory"
    code, report = hookconf("run", "--candidate", candidate, "--allow-not-covered",
                            "--case", "rt.gen.eligibility.*", "--case", "rt.eligibility.*")
    assert code == 1
    failed = _failed_ids(report)
    unsplittable = set()
    for shape, url in MALFORMED_SOURCES.items():
        try:
            urlsplit(url)
        except ValueError:
            unsplittable.add(shape)
    assert {"open-bracket", "stray-bracket"} <= unsplittable
    for shape in unsplittable:
        for hook in ("before-finalize", "after-complete", "on-error"):
            for task_type in ("http", "ftp", "bt", "magnet", "metalink"):
                assert f"rt.gen.eligibility.{task_type}.malformed-{shape}.{hook}" in failed
    # the URLs that split (a port out of range, no scheme) and every well-formed source pass
    assert all(i.split(".")[4].removeprefix("malformed-") in unsplittable for i in failed)

