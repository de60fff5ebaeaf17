"""Mutant (H3): the bridge accepts any invocation id while the plugin's lane is idle.

A late message of a finished, aborted or timed-out invocation — a capability call, a log
call, a metadata operation, an exit — posted when nothing of the plugin runs is accepted
(§8: "Bridge 只接受 ID 等于通道当前 invocation 的调用…缺失、过期或不一致的 ID 一律 fail closed").
"""

from hookconf.reference.runtime.hook_runtime import HookRuntime
from tests.mutants.runtime.base import mutant


class IdleLaneBridge(HookRuntime):
    def bridge_accepts(self, plugin_id, invocation_id):
        current = self.lanes.current_invocation(self.lane_key(plugin_id))
        return invocation_id is not None and (current is None or invocation_id == current)


factory = mutant("late-message-idle-lane", IdleLaneBridge)
