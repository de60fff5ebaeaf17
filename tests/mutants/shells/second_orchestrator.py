"""Mutant (H16): the command handler builds a second orchestrator of its own.

Each command runs in a runtime created inside the handler (with the discovered plugins),
not in the one runtime §16 step 3 created and step 7 injected.
"""

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.shells.coordinator import RuntimePath, runtime_identity
from tests.mutants.shells.base import mutant


class SecondOrchestrator(ReferenceCandidate):
    def shell_path(self, args):
        if args["path"] != "command":
            return super().shell_path(args)
        shell = self._started(args["shell"])
        runtime = shell.create_runtime({})
        for manifest, guest in shell.discovered:
            runtime.install(manifest, guest)
        body = {k: v for k, v in args.items() if k not in ("shell", "path")}
        result = RuntimePath("command", runtime, shell.database).run(body)
        return {"runtime": runtime_identity(runtime), "runtimesCreated": shell.runtimes_created,
                **result, "events": list(runtime.events.events)}


factory = mutant("second-orchestrator", SecondOrchestrator)
