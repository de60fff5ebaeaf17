"""Mutants (H17, H4): task-source admission with one §9.4 rule missing or half applied.

* ``first_url_only`` — a ``beforeCreate`` result is admitted by its first returned URL, as an
  adapter that reads ``uris[0]`` as "the URL" would; the other returned URLs reach the
  download engine unchecked.
* ``link_local_accepted`` — the remote-operator private-network check knows RFC 1918 and
  loopback but not link-local (``169.254.0.0/16``, ``fe80::/10``: cloud metadata endpoints).
* ``private_by_spelling`` — the private-network check reads the host as written, so
  ``0x7f.1`` or ``3232235786`` (127.0.0.1, 192.168.1.10 once parsed) get through.
* ``raw_bt_source`` — ``beforeFinalize`` contexts are checked for shape only, so a magnet
  task's raw magnet URI with its tracker passkey crosses into the worker (the public report).
"""

import ipaddress
from typing import Any

from hookconf.reference.candidate import ReferenceCandidate
from hookconf.reference.permissions import task_source
from hookconf.reference.permissions.task_source import Admission, admit, admit_patch
from hookconf.reference.schemas import source_identity


class _Mutant(ReferenceCandidate):
    name = "task-source"

    def hello(self) -> dict[str, Any]:
        return {**super().hello(), "name": f"mutant-{self.name}"}


class FirstUrlOnly(_Mutant):
    name = "first-url-only"

    def task_source_admit(self, args: dict[str, Any]) -> dict[str, Any]:
        uris = args.get("patch", {}).get("uris")
        if isinstance(uris, list) and uris:
            args = {**args, "patch": {**args["patch"], "uris": uris[:1]}}
        return super().task_source_admit(args)


class _PrivateRule(_Mutant):
    """Every §9.4 rule of the reference but the private-network one, which :meth:`private` makes."""

    def private(self, url: str, host: str) -> bool:  # pragma: no cover - overridden
        raise NotImplementedError

    def _one(self, url: str, operator: str) -> Admission:
        decision = admit(url)
        if decision.admitted and operator == "remote":
            import ada_url

            if self.private(url, ada_url.parse_url(url)["hostname"]):
                return Admission.refuse("private network")
        return decision

    def task_source_admit(self, args: dict[str, Any]) -> dict[str, Any]:
        operator = args.get("operator", "local")
        if "url" in args:
            urls = [args["url"]]
        else:
            decision, _ = admit_patch(args["patch"])  # list shape and count
            if not decision.admitted:
                return {"admitted": False, "code": str(decision.code)}
            urls = list(args["patch"].get("uris", []))
        for url in urls:
            decision = self._one(url, operator)
            if not decision.admitted:
                return {"admitted": False, "code": str(decision.code), "reason": decision.reason}
        return {"admitted": True}


_WITHOUT_LINK_LOCAL = tuple(n for n in task_source.PRIVATE_NETWORKS
                            if str(n) not in ("169.254.0.0/16", "fe80::/10"))


class LinkLocalAccepted(_PrivateRule):
    name = "link-local-accepted"

    def private(self, url: str, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            return host == "localhost"
        return any(address in n for n in _WITHOUT_LINK_LOCAL if n.version == address.version)


class PrivateBySpelling(_PrivateRule):
    """Takes the host from the URL text as written instead of the parsed URL."""

    name = "private-by-spelling"

    def private(self, url: str, host: str) -> bool:
        written = url.split("://", 1)[-1].split("/", 1)[0]
        written = written if written.startswith("[") else written.rsplit(":", 1)[0]
        return task_source.is_private_host(written.split("]")[0] + "]" if "[" in written else written)


class RawBtSource(_Mutant):
    name = "raw-bt-source"

    def dto_validate(self, args: dict[str, Any]) -> dict[str, Any]:
        original = source_identity.problem
        source_identity.problem = lambda schema_name, value: None
        try:
            return super().dto_validate(args)
        finally:
            source_identity.problem = original


first_url_only = FirstUrlOnly
link_local_accepted = LinkLocalAccepted
private_by_spelling = PrivateBySpelling
raw_bt_source = RawBtSource
