"""Matches per second of the reference §7 matcher over the corpus, against a bare ada parse.

Usage: python benchmarks/matcher.py [--rounds N]

Takes every (pattern, url) pair of the embedded ``permissions.match`` cases, parses each
pattern once (as the runtime does, §7), then times ``PatternSet.matches(url)`` — URL parse
plus structured comparison — against ``ada_url.parse_url(url)`` alone on the same URLs.
Goal: the matcher costs at most 2× a bare parse.  Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import time

import ada_url

from hookconf.harness.corpus import load_corpus
from hookconf.reference.permissions.matcher import _URL_PARTS, PatternSet


def _pairs() -> list[tuple[PatternSet, str]]:
    pairs = []
    for case in load_corpus().cases:
        if case.kind != "permissions.match":
            continue
        patterns = case.given["patterns"] if "patterns" in case.given else [case.given["pattern"]]
        pairs.append((PatternSet.from_strings(patterns), case.given["url"]))
    return pairs


def _bare_parse(url: str, attributes=ada_url.ada_adapter.PARSE_ATTRIBUTES) -> None:
    try:
        ada_url.parse_url(url, attributes=attributes)
    except ValueError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    pairs = _pairs()
    urls = [url for _, url in pairs]

    def timed(fn) -> float:
        best = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
        return best

    matcher_s = timed(lambda: [ps.matches(url) for ps, url in pairs])
    parse_s = timed(lambda: [_bare_parse(url) for url in urls])
    lean_s = timed(lambda: [_bare_parse(url, _URL_PARTS) for url in urls])
    n = len(pairs)
    print(f"pairs from the corpus:       {n}")
    print(f"reference matcher:           {n / matcher_s:12,.0f} matches/s")
    print(f"bare ada_url.parse_url:      {n / parse_s:12,.0f} parses/s")
    print(f"bare parse, same attributes: {n / lean_s:12,.0f} parses/s")
    print(f"matcher / bare parse:        {matcher_s / parse_s:12.2f}x   (goal ≤ 2x)")
    print(f"matcher / same-attr parse:   {matcher_s / lean_s:12.2f}x")


if __name__ == "__main__":
    main()
