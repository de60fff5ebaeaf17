"""Mutant runtimes whose guest ``http`` capability checks only some hops of a redirect chain
against the plugin's host permissions (§7, H5); caught by ``guest.capability-redirects``.

- ``redirect_first_hop_only``: the §7 matcher sees the first URL alone; every redirect target is
  followed unchecked.
- ``redirect_last_hop_skipped``: each hop is checked only once the next redirect names its successor
  (the chain so far minus its newest hop): a forbidden target is sent before its refusal, and
  one that ends the chain is never refused.
"""

from collections.abc import Callable, Sequence
from typing import Any

from hookconf.reference.guest.capabilities import default_request_check
from hookconf.reference.guest.vm import PluginVm
from tests.mutants.guest.bridge_bounds import BridgeMutant

Check = Callable[[Sequence[str], Sequence[str], str | None], Any]


def _vm(check: Check) -> type[PluginVm]:
    class MutantVm(PluginVm):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["request_check"] = check
            super().__init__(*args, **kwargs)

    return MutantVm


def _first_hop(patterns: Sequence[str], hops: Sequence[str], proxy: str | None) -> Any:
    return default_request_check(patterns, list(hops)[:1], proxy)


def _all_but_newest(patterns: Sequence[str], hops: Sequence[str], proxy: str | None) -> Any:
    return default_request_check(patterns, list(hops)[:max(1, len(hops) - 1)], proxy)


def redirect_first_hop_only() -> BridgeMutant:
    """H5: redirect targets are never checked; only the URL the guest named is."""
    return BridgeMutant("redirect-first-hop-only", vm=_vm(_first_hop))


def redirect_last_hop_skipped() -> BridgeMutant:
    """H5: the newest redirect target is sent before it is checked."""
    return BridgeMutant("redirect-last-hop-skipped", vm=_vm(_all_but_newest))
