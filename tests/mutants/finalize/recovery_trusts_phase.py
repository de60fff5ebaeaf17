"""Mutant (H13): recovery trusts the recorded phase and never looks at adjacent layouts.

§10.3: "Recovery checks both the recorded phase and all possible adjacent-phase file
layouts so a crash before a phase update is unambiguous."  Caught by a crash between an
install and its ``target_installed`` write: redoing ``prepared``'s next stage finds the
source gone.
"""

from hookconf.reference.finalize import recovery
from hookconf.reference.finalize.execute import Executor, JournalStore
from hookconf.reference.finalize.plan import HookPlan
from tests.mutants.finalize.base import mutant


def trusting_recover(vfs, state_dir):
    out = []
    for task_id in recovery.journal_ids(vfs, state_dir):
        store = JournalStore(vfs, state_dir, task_id)
        state, _ = recovery.read_state(store)
        if state is None or state.phase is None or state.plan is None \
                or state.phase.value in ("cleaned", "cancelled", "quarantined"):
            out.append((task_id, recovery.outcome_of(state)))
            continue
        ex = Executor(vfs, store, HookPlan.from_json(state.plan))
        ex.state = state
        done = recovery._journaled(ex, state.phase)
        out.append((task_id, ex.run_from(done, done=done)))
    return out


factory = mutant("recovery-trusts-phase", recover=trusting_recover)
