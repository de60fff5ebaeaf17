"""An in-process candidate that ends its own process on one request: the reference, except that
``permissions.match`` of a URL holding ``die.example.test`` calls ``os._exit(7)`` (a crash no
``try`` can catch), and ``hello`` raises when the variable ``HOOKCONF_FAKE_NO_HELLO`` is set."""

import os

from hookconf.reference.candidate import ReferenceCandidate


class Dying(ReferenceCandidate):
    def hello(self):
        if os.environ.get("HOOKCONF_FAKE_NO_HELLO"):
            raise RuntimeError("no hello today")
        return super().hello()

    def handle(self, op, args):
        if op == "permissions.match" and "die.example.test" in str(args.get("url")):
            os._exit(7)
        return super().handle(op, args)


def factory():
    return Dying()
