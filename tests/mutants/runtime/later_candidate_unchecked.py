"""Mutant (H21, §6 rule 6): a pre-hook chain runs each candidate it selected at the start,
without asking again once a policy barrier on a later candidate has published.

While an earlier plugin runs, a later candidate has a required grant revoked, is disabled,
quarantined, uninstalled or upgraded out of the hook; this chain still enters it when its
turn comes — with its required capability gone it runs and its patch is merged, and a
disabled ``resolve`` plugin fails (``plugin.hook.permission_denied``), is charged to its breaker
and aborts the chain.  §6: "必需 capability 仍在插件有效权限集合内"; the generation it
was selected under "仅用于审计，不是未来 execution lease"."""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class LaterCandidateUnchecked(HookRuntime):
    def still_candidate(self, candidate, hook, task):
        return True


factory = mutant("later-candidate-unchecked", LaterCandidateUnchecked)
