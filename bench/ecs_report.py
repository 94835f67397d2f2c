#!/usr/bin/env python3
"""Turns the JSON output of retcon_ecs_bench into the ratio tables of docs/benchmarks.md.

usage: ecs_report.py bench_ecs.json [callgrind_32.out callgrind_512.out]

Times are CPU time per entity (the benchmark's time per iteration divided by the entities it
touches), median of the interleaved repetitions; the spread is min..max of those repetitions.
Ratios are retcon / baseline, each median taken from the same run.
"""
import json
import re
import sys
from collections import defaultdict

SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
visited_of = {}  # (workload, N) -> entities per iteration (what a layout's view visits)


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = defaultdict(dict)  # (workload, impl, types, n) -> {median, min, max, cv, entities}
    for b in data["benchmarks"]:
        if b.get("run_type") != "aggregate":
            continue
        m = re.match(r"([^/]+)/([^/]+)(?:/types:(\d+))?/(\d+)", b["run_name"])
        if not m:
            continue
        key = (m.group(1), m.group(2), int(m.group(3) or 0), int(m.group(4)))
        agg = b["aggregate_name"]
        if agg == "cv":
            rows[key]["cv"] = b["cpu_time"]
            continue
        ns = b["cpu_time"] * SCALE[b["time_unit"]]
        if agg == "median":
            rows[key]["entities"] = b["entities"]
            visited_of[(key[0], key[3])] = int(b["entities"])
        rows[key][agg] = ns
    out = {}
    for key, r in rows.items():
        if "median" in r and "entities" in r:
            e = r["entities"]
            out[key] = {k: r[k] / e for k in ("median", "min", "max") if k in r}
    return data.get("context", {}), out


def fmt(r):
    if r is None:
        return "-"
    return f"{r['median']:.2f} ({r['min']:.2f}-{r['max']:.2f})"


def ratio(a, b):
    if a is None or b is None:
        return None
    return a["median"] / b["median"]


def fr(x):
    return "-" if x is None else f"{x:.2f}x"


def callgrind_total(path, fn="churn_workload"):
    """Inclusive Ir of the toggled function = the 'totals:' line of a --toggle-collect run."""
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    return None


def main():
    ctx, res = load(sys.argv[1])
    types = sorted({k[2] for k in res if k[2]})
    t0 = types[0] if types else 32
    get = lambda w, i, n, t=0: res.get((w, i, t, n))

    print(f"Machine: {ctx.get('num_cpus')} x {ctx.get('mhz_per_cpu')} MHz; "
          f"{ctx.get('bytes_per_entity(Position+Velocity)', '')}\n")

    n = 100000
    print(f"### Targets (N = {n:,}, {t0} registered types)\n")
    print("| workload | retcon ns/entity median (min-max) | baseline | baseline ns/entity | ratio | target | met |")
    print("|---|---|---|---|---|---|---|")

    def target_row(w, label, base_impl, base_label, target_txt, check):
        r = get(w, "retcon", n, t0)
        b = get(w, base_impl, n) if base_impl else None
        met = check(r, b)
        print(f"| {label} | {fmt(r)} | {base_label} | {fmt(b)} | {fr(ratio(r, b))} | {target_txt} | "
              f"{'met' if met else 'NOT met'} |")

    target_row("view2", "2-component view, pools filled alike", "plain", "plain 2-vector loop", "<= 1.2x plain",
               lambda r, b: r and b and ratio(r, b) <= 1.2)
    r, b = get("group", "retcon", n, t0), get("view2", "plain", n)
    print(f"| owning group | {fmt(r)} | plain 2-vector loop | {fmt(b)} | {fr(ratio(r, b))} | <= 1.2x plain | "
          f"{'met' if r and b and ratio(r, b) <= 1.2 else 'NOT met'} |")
    b = get("view2", "plain_reverse", n)
    print(f"| owning group (same direction) | {fmt(r)} | plain loop, backwards | {fmt(b)} | {fr(ratio(r, b))} | "
          f"(information) | - |")
    target_row("create", "create + 2 components", "minimal", "minimal sparse set", "<= 25 ns",
               lambda r, b: r and r["median"] <= 25)
    target_row("destroy", "destroy (2 components)", "minimal", "minimal sparse set", "<= 15 ns",
               lambda r, b: r and r["median"] <= 15)
    target_row("tag", "tag add + remove", "minimal", "minimal sparse set", "<= 12 ns",
               lambda r, b: r and r["median"] <= 12)

    print(f"\n### Number of registered types (N = {n:,}; median ns/entity, ratio = slowest / fastest)\n")
    print("| workload | " + " | ".join(f"{t} types" for t in types) + " | max/min of medians | max/min of best |")
    print("|---|" + "---|" * (len(types) + 2))
    for w in ("create", "destroy", "view1", "view2", "view3", "group", "tag"):
        vals = [get(w, "retcon", n, t) for t in types]
        med = [v["median"] for v in vals if v]
        best = [v["min"] for v in vals if v]
        spread = max(med) / min(med) if med else None
        spread_best = max(best) / min(best) if best else None
        print(f"| {w} | " + " | ".join(fmt(v) for v in vals) + f" | {fr(spread)} | {fr(spread_best)} |")

    print("\n### All sizes (median ns/entity (min-max); ratio = retcon / baseline)\n")
    print("| workload | N | retcon | naive (unordered_map) | minimal sparse set | plain loop | plain backwards | "
          "vs naive | vs minimal | vs plain | vs backwards |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for w in ("create", "destroy", "view1", "view2", "view3", "group", "tag", "mixed", "mixed_query"):
        sizes = sorted({k[3] for k in res if k[0] == w})
        for size in sizes:
            r = get(w, "retcon", size, t0)
            na = get(w, "naive", size)
            mi = get(w, "minimal", size)
            pl = get("view2", "plain", size) if w in ("view2", "group") else None
            pr = get("view2", "plain_reverse", size) if w in ("view2", "group") else None
            if w == "group":
                na = get("view2", "naive", size)
                mi = get("view2", "minimal", size)
            print(f"| {w} | {size:,} | {fmt(r)} | {fmt(na)} | {fmt(mi)} | {fmt(pl)} | {fmt(pr)} | "
                  f"{fr(ratio(r, na))} | {fr(ratio(r, mi))} | {fr(ratio(r, pl))} | {fr(ratio(r, pr))} |")

    layouts = [w for w in ("view2_subset50", "view2_subset30", "view2_shuffled", "view2_churn", "view2_twosided")
               if any(k[0] == w for k in res)]
    if layouts:
        print("\n### Layouts (median ns per visited entity (min-max); ratio = retcon / plain forward loop over as "
              "many elements, same run; target <= 2.5x)\n")
        print("| layout | N | visited | retcon | plain loop | ratio | met |")
        print("|---|---|---|---|---|---|---|")
        for w in layouts:
            for size in sorted({k[3] for k in res if k[0] == w}):
                r, b = get(w, "retcon", size, t0), get(w, "plain", size)
                visited = next((v for k, v in visited_of.items() if k == (w, size)), None)
                ok = r and b and ratio(r, b) <= 2.5
                print(f"| {w[6:]} | {size:,} | {visited or '-':,} | {fmt(r)} | {fmt(b)} | {fr(ratio(r, b))} | "
                      f"{'met' if ok else 'NOT met'} |")
        first = sorted({k[3] for k in res if k[0] == "view2_first"})
        for size in first:
            print(f"\nFirst pass over a freshly shuffled world, N = {size:,}: "
                  f"{fmt(get('view2_first', 'retcon', size, t0))} ns per visited entity")

    if len(sys.argv) >= 4:
        a, b = callgrind_total(sys.argv[2]), callgrind_total(sys.argv[3])
        print(f"\ncallgrind Ir of churn_workload: {a:,} vs {b:,}; ratio {b / a:.4f}")


if __name__ == "__main__":
    main()
