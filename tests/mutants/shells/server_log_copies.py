"""Mutant (H16, §15): the server shell masks credential values in its HTTP URL diagnostics its
own way (``***``), so the two shells' log copies differ."""

from hookconf.reference.candidate import ReferenceCandidate
from tests.mutants.shells.base import mutant


def _server_copy(event):
    if not isinstance(event.get("uris"), list):
        return event
    return {**event, "uris": [str(u).replace("[redacted]", "***") for u in event["uris"]]}


class ServerLogCopies(ReferenceCandidate):
    def shell_path(self, args):
        result = super().shell_path(args)
        if args["shell"] == "server":
            result["events"] = [_server_copy(e) for e in result["events"]]
        return result


factory = mutant("server-log-copies", ServerLogCopies)
