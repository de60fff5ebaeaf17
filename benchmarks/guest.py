"""Guest worker benchmark: activation time, no-op hook round trip vs validation, bare QuickJS.

Run: ``python benchmarks/guest.py [--rounds N]``.  Prints medians in microseconds (µs) or
milliseconds (ms).  The round-trip goal (§9.1, H4 at both boundaries): the worker and
bridge add at most 50% on top of the two schema validations a round trip needs anyway
(the hookEnter message before entering the guest, the hookExit message after).
Validators are compiled once (``hookconf.reference.schemas.compiled`` caches them) and warmed up
before timing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import _quickjs  # noqa: E402

from hookconf.reference.guest import Budgets, PluginVm, SequentialIds  # noqa: E402
from hookconf.reference.schemas import validate  # noqa: E402
from hookconf.reference.schemas.examples import example  # noqa: E402

NOOP = ROOT / "hookconf" / "corpus" / "plugins" / "hookconf.noop"
HOOKS = {"beforeFinalize": "BeforeFinalizeContextV1", "afterComplete": "AfterCompleteContextV1"}


def median_s(fn, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def activation(isolation: str, rounds: int) -> float:
    def once():
        vm = PluginVm.load(NOOP, isolation=isolation, ids=SequentialIds(), budgets=Budgets())
        assert vm.activate().ok
        vm.close()
    return median_s(once, rounds)


def messages(hook: str) -> tuple[dict, dict]:
    context = example(HOOKS[hook])
    scope = {"invocationId": "inv-1", "callChainId": "inv-1", "permissionGeneration": 0}
    enter = {"type": "event", "event": "hookEnter", **scope, "taskId": context["taskId"],
             "hook": hook, "ctxPayload": context,
             "metadataSnapshot": {"title": "Example", "a": {"b": [1, 2, 3]}}}
    exit_ = {"type": "event", "event": "hookExit", **scope, "ok": True,
             "effects": {"schemaVersion": 1, "contextPatches": [], "metadataOperations": []}}
    return enter, exit_


def validation_only(hook: str, rounds: int) -> float:
    enter, exit_ = messages(hook)

    def once():
        assert validate("HookEnterMessageV1", enter).valid
        assert validate("HookExitMessageV1", exit_, direction="output").valid
    once()
    return median_s(once, rounds)


def round_trip(hook: str, isolation: str, rounds: int) -> float:
    enter, _ = messages(hook)
    vm = PluginVm.load(NOOP, isolation=isolation, ids=SequentialIds(), budgets=Budgets())
    assert vm.activate().ok

    def once():
        outcome = vm.invoke(hook, enter["ctxPayload"], metadata=enter["metadataSnapshot"])
        assert outcome.ok, outcome
    once()
    try:
        return median_s(once, rounds)
    finally:
        vm.close()


def bare_quickjs(hook: str, rounds: int) -> float:
    ctx = _quickjs.Context()
    fn = ctx.eval("(text) => JSON.stringify({ echoed: JSON.parse(text).hook })")
    text = json.dumps(messages(hook)[0])
    return median_s(lambda: fn(text), rounds)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args(argv)
    rounds = args.rounds
    print(f"activation, in-process engine: {activation('inprocess', 20) * 1e3:8.2f} ms")
    print(f"activation, worker process:    {activation('process', 10) * 1e3:8.2f} ms"
          " (spawn + import + prelude + bundle)")
    ok = True
    for hook in HOOKS:
        v = validation_only(hook, rounds)
        bare = bare_quickjs(hook, rounds)
        print(f"\n{hook}: two schema validations {v * 1e6:8.1f} µs;"
              f" bare QuickJS JSON call {bare * 1e6:6.1f} µs")
        for isolation in ("inprocess", "process"):
            r = round_trip(hook, isolation, rounds)
            overhead = (r - v) / v
            goal = overhead <= 0.5
            ok = ok and (goal or isolation == "process")
            print(f"  round trip ({isolation:9}): {r * 1e6:8.1f} µs;"
                  f" worker+bridge add {overhead * 100:6.1f}% over validation"
                  f" ({'meets' if goal else 'misses'} the ≤ 50% goal)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
