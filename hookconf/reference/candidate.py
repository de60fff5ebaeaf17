"""The reference runtime as a protocol v1 candidate (``--candidate reference``).

Operations follow ``docs/protocol.md``; each family maps onto one reference package, the
package of its spec area:

=========================  ========================================================  ==========
operation                  reference area                                            spec
=========================  ========================================================  ==========
``permissions.parse``      :func:`hookconf.reference.permissions.matcher.parse_pattern`       §7
``permissions.match``      :meth:`hookconf.reference.permissions.matcher.PatternSet.matches`  §7
``permissions.match_any``  :meth:`hookconf.reference.permissions.matcher.PatternSet.matches`  §7
``permissions.redirect``   :func:`hookconf.reference.permissions.matcher.check_request`       §7
``task_source.admit``      :func:`hookconf.reference.permissions.task_source.admit_patch`     §9.4
``dto.validate``           :func:`hookconf.reference.schemas.validate.dto_validate`           §9.1
``guest.run``              :func:`hookconf.reference.guest.invoke.run_plugin`                 §8, §9
``builtins.run``           :func:`hookconf.reference.builtins.run_builtin`                    §17, §19.2
``runtime.*``              :class:`hookconf.reference.runtime.ops.RuntimeOps`                 §5, §6, §8
``finalize.*``             :class:`hookconf.reference.finalize.ops.FinalizeOps`               §10
``shell.*``                :class:`hookconf.reference.shells.ops.ShellOps`                    §16
``delivery.*``             :class:`hookconf.reference.delivery.ops.DeliveryOps`               §5.3, §11
=========================  ========================================================  ==========
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookconf.reference import __version__
from hookconf.reference.builtins import run_builtin
from hookconf.reference.delivery.ops import DeliveryOps
from hookconf.reference.finalize.ops import FinalizeOps
from hookconf.reference.guest.invoke import run_plugin
from hookconf.reference.guest.vm import PluginVm
from hookconf.reference.permissions.matcher import InvalidPattern, PatternSet, check_request, parse_pattern
from hookconf.reference.permissions.task_source import admit, admit_patch
from hookconf.reference.runtime.ops import RuntimeOps
from hookconf.reference.schemas import SCHEMAS, dto_validate
from hookconf.reference.shells.ops import ShellOps

__all__ = ["ReferenceCandidate", "UnknownOperation", "UnknownSchema"]


class UnknownOperation(Exception):
    """An operation this candidate does not implement (answered ``ok: false``)."""

    def __init__(self, op: str) -> None:
        super().__init__(op)
        self.code = "protocol.unknown_op"
        self.message = f"operation {op!r} is not implemented"


class ReferenceCandidate(RuntimeOps, FinalizeOps, ShellOps, DeliveryOps):
    """The hookconf reference runtime behind the candidate protocol."""

    families: tuple[str, ...] = ("permissions", "dto", "runtime", "guest", "shell", "delivery",
                                 "builtins")
    #: The plugin VM and SDK prelude used by ``guest.run`` (mutant runtimes swap them).
    vm_class: type[PluginVm] = PluginVm
    prelude: str | None = None

    def hello(self) -> dict[str, Any]:
        return {
            "name": "hookconf-reference",
            "version": __version__,
            "protocol": 1,
            "families": list(self.families),
        }

    def handle(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        table = self.__dict__.get("_op_table")
        if table is None:  # built once per candidate: the ops are this object's methods
            table = self.__dict__["_op_table"] = self._ops()
        handler = table.get(op)
        if handler is None:
            raise UnknownOperation(op)
        return handler(args)

    def _ops(self) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
        return {
            "permissions.parse": self.permissions_parse,
            "permissions.match": self.permissions_match,
            "permissions.match_any": self.permissions_match_any,
            "permissions.redirect": self.permissions_redirect,
            "task_source.admit": self.task_source_admit,
            "dto.validate": self.dto_validate,
            "guest.run": self.guest_run,
            "builtins.run": self.builtins_run,
            **self.runtime_ops(),
            **self.finalize_ops(),
            **self.shell_ops(),
            **self.delivery_ops(),
        }

    # Each operation is a method so that a mutant can override exactly one of them.

    def permissions_parse(self, args: dict[str, Any]) -> dict[str, Any]:
        try:
            parse_pattern(args["pattern"])
        except InvalidPattern as exc:
            return {"valid": False, "reason": str(exc)}
        return {"valid": True}

    def permissions_match(self, args: dict[str, Any]) -> dict[str, Any]:
        return self.permissions_match_any({"patterns": [args["pattern"]], "url": args["url"]})

    def permissions_match_any(self, args: dict[str, Any]) -> dict[str, Any]:
        patterns = PatternSet.from_strings(args["patterns"])
        return {"match": patterns.matches(args["url"])}

    def permissions_redirect(self, args: dict[str, Any]) -> dict[str, Any]:
        patterns = PatternSet.from_strings(args["patterns"])
        decision = check_request(patterns, args["hops"], args.get("proxy"))
        return {
            "allowed": decision.allowed,
            "refused_hop": decision.refused_hop,
            "code": None if decision.code is None else str(decision.code),
        }

    def task_source_admit(self, args: dict[str, Any]) -> dict[str, Any]:
        # hostPermissions is context only: §9.4 forbids it from influencing the answer (H17).
        operator = args.get("operator", "local")
        if "patch" in args:
            decision, field = admit_patch(args["patch"], operator=operator)
        else:
            decision, field = admit(args["url"], operator=operator), ""
        result: dict[str, Any] = {"admitted": decision.admitted}
        if decision.code is not None:
            result["code"] = str(decision.code)
            result["reason"] = decision.reason
        if field:
            result["field"] = field
        return result

    def guest_run(self, args: dict[str, Any]) -> dict[str, Any]:
        return run_plugin(
            args["plugin"]["manifest"], args["plugin"]["source"], args["invocations"],
            timeout_ms=args.get("timeoutMs"), network=args.get("network", ()),
            vm_class=self.vm_class, prelude=self.prelude,
        )

    def builtins_run(self, args: dict[str, Any]) -> dict[str, Any]:
        """§17, §19.2: verify a locked builtin archive (size, SHA-256, signature), then run it."""
        return run_builtin(args, vm_class=self.vm_class, prelude=self.prelude)

    def dto_validate(self, args: dict[str, Any]) -> dict[str, Any]:
        if args["schema"] not in SCHEMAS:
            raise UnknownSchema(args["schema"])
        return dto_validate(args)


class UnknownSchema(Exception):
    """A ``dto.validate`` request naming a schema this candidate does not know."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.code = "protocol.unknown_schema"
        self.message = f"no DTO schema named {name!r}"
