"""Mutant (H16): the server shell writes its own §15 records — ``plugin`` for ``pluginId``
and no ``effectCount`` — so the two shells no longer emit the same event fields (§15)."""

from hookconf.reference.candidate import ReferenceCandidate
from tests.mutants.shells.base import mutant


def _server_record(event):
    if not str(event.get("kind", "")).startswith("hook."):
        return event
    record = {("plugin" if k == "pluginId" else k): v for k, v in event.items()}
    record.pop("effectCount", None)
    return record


class ServerEventFields(ReferenceCandidate):
    def shell_path(self, args):
        result = super().shell_path(args)
        if args["shell"] == "server":
            result["events"] = [_server_record(e) for e in result["events"]]
        return result


factory = mutant("server-event-fields", ServerEventFields)
