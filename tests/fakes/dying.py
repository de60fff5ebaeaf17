"""An in-process candidate that ends its own process on one request: the reference, except that
``permissions.match`` of a URL holding ``die.example.test`` calls ``os._exit(7)`` (a crash no
``try`` can catch), and a URL holding ``slow.example.test`` is answered after 0.3 s.

Its hello raises when the variable ``HOOKCONF_FAKE_NO_HELLO`` is set, or after two hellos
counted in the file ``HOOKCONF_FAKE_HELLO_COUNT`` names; it gives its process id as its
version when ``HOOKCONF_FAKE_HELLO_PID`` is set (each worker then says another hello)."""

import os
import time

from hookconf.reference.candidate import ReferenceCandidate


class Dying(ReferenceCandidate):
    def hello(self):
        if os.environ.get("HOOKCONF_FAKE_NO_HELLO"):
            raise RuntimeError("no hello today")
        count = os.environ.get("HOOKCONF_FAKE_HELLO_COUNT")
        if count:
            with open(count, "a+", encoding="utf-8") as handle:
                handle.write("hello\n")
                handle.seek(0)
                if len(handle.read().split()) > 2:
                    raise RuntimeError("no third hello")
        hello = super().hello()
        if os.environ.get("HOOKCONF_FAKE_HELLO_PID"):
            hello = {**hello, "version": str(os.getpid())}
        return hello

    def handle(self, op, args):
        if op == "permissions.match" and "die.example.test" in str(args.get("url")):
            os._exit(7)
        if op == "permissions.match" and "slow.example.test" in str(args.get("url")):
            time.sleep(0.3)
        return super().handle(op, args)


def factory():
    return Dying()
