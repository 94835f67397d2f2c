"""Reads Google Benchmark JSON written by the retcon benchmark programs (snapshot, net).

Benchmark names read <workload>/<implementation>[/<param>:<value>...]/<N>[/<param>:<value>...]
(bench/bench_common.hpp). Each row is keyed by (workload, implementation, params, N), where
params is a sorted tuple of (name, value) pairs. Times are CPU time in ns (real time for
benchmarks that use manual timing); a row holds the median, min and max of the interleaved
repetitions, and every user counter's median (a single run reports its values as the median).
"""
import json
import re

SCALE = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
IGNORED = {"repeats", "iterations", "manual_time", "real_time", "min_time", "threads"}
COUNTERS_SKIP = {"name", "run_name", "run_type", "repetitions", "repetition_index", "threads", "iterations",
                 "real_time", "cpu_time", "time_unit", "aggregate_name", "aggregate_unit", "family_index",
                 "per_family_instance_index", "error_occurred", "error_message", "label"}


def parse_name(run_name):
    parts = run_name.split("/")
    workload, impl = parts[0], parts[1]
    params, n = [], None
    for p in parts[2:]:
        if re.fullmatch(r"\d+", p):
            n = int(p)
        elif ":" in p:
            k, v = p.split(":", 1)
            if k not in IGNORED:
                params.append((k, v))
        elif p not in IGNORED:
            params.append((p, ""))
    return workload, impl, tuple(sorted(params)), n


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            continue
        key = parse_name(b["run_name"])
        manual = "manual_time" in b["run_name"]
        t = (b["real_time"] if manual else b["cpu_time"]) * SCALE[b["time_unit"]]
        counters = {k: v for k, v in b.items() if k not in COUNTERS_SKIP and isinstance(v, (int, float))}
        row = rows.setdefault(key, {"counters": {}})
        if b.get("run_type") == "aggregate":
            agg = b["aggregate_name"]
            if agg in ("median", "min", "max"):
                row[agg] = t
            if agg == "median":
                row["counters"] = counters
        else:  # a single run (Repetitions(1)): its values stand for the median
            row.update(median=t, min=t, max=t, counters=counters)
    return data.get("context", {}), {k: v for k, v in rows.items() if "median" in v}


def get(rows, workload, impl, n, **params):
    key = (workload, impl, tuple(sorted((k, str(v)) for k, v in params.items())), n)
    return rows.get(key)


def fmt_time(r, unit="us", digits=1):
    if r is None:
        return "-"
    s = SCALE[unit]
    return f"{r['median'] / s:.{digits}f} ({r['min'] / s:.{digits}f}-{r['max'] / s:.{digits}f})"


def ratio(a, b):
    if a is None or b is None:
        return None
    return a["median"] / b["median"]


def ratio_spread(a, b):
    """Median ratio, and the range from best/worst to worst/best repetition."""
    if a is None or b is None:
        return "-"
    return f"{a['median'] / b['median']:.2f}x ({a['min'] / b['max']:.2f}-{a['max'] / b['min']:.2f})"


def fr(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}x"
