"""Mutant (H6, §5.1): a worker that evaluated its bundle is published ``Active`` whatever
hooks it registered.

§5.1: Active is published only after the worker is ready and every declared hook the runtime
needs is registered (else ``plugin.hook.not_registered``).  This runtime takes any ready
worker as covering the needed hook, so a plugin whose entry never registered ``beforeCreate``
is invoked and its patch merged into the chain.
"""

from dataclasses import replace

from hookconf.reference.runtime import activation as act
from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class ActiveWithoutRegistration(HookRuntime):
    def _fire(self, plugin_id, event):
        if isinstance(event, act.WorkerReady):
            event = replace(event, registered=event.registered | event.needed)
        return super()._fire(plugin_id, event)


factory = mutant("active-without-registration", ActiveWithoutRegistration)
