#!/usr/bin/env python3
"""Compares two Google Benchmark JSON files of the same programs (a baseline build and a new
one, run back to back on the same machine): prints the median time of every benchmark in both
and the ratio new/old (docs/benchmarks.md, "Comparing two builds").

    bench/compare.py old.json new.json [regex]
"""
import json
import re
import statistics
import sys


def medians(path):
    with open(path) as f:
        data = json.load(f)
    times, reported = {}, {}
    for b in data["benchmarks"]:
        name = re.sub(r"/repeats:\d+", "", b.get("run_name", b["name"]))
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                reported[name] = b["real_time"]  # programs that report aggregates only
            continue
        times.setdefault(name, []).append(b["real_time"])
    out = {k: statistics.median(v) for k, v in times.items()}
    out.update(reported)
    return out


def main():
    old, new = medians(sys.argv[1]), medians(sys.argv[2])
    pattern = re.compile(sys.argv[3]) if len(sys.argv) > 3 else None
    print(f"{'benchmark':70} {'old':>12} {'new':>12} {'new/old':>8}")
    ratios = []
    for name in old:
        if name not in new or (pattern and not pattern.search(name)):
            continue
        r = new[name] / old[name] if old[name] else float("nan")
        ratios.append(r)
        print(f"{name:70} {old[name]:12.1f} {new[name]:12.1f} {r:8.3f}")
    if ratios:
        print(f"geometric mean of new/old over {len(ratios)} benchmarks: "
              f"{statistics.geometric_mean(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f})")


if __name__ == "__main__":
    main()
