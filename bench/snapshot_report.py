#!/usr/bin/env python3
"""Turns the JSON output of retcon_snapshot_bench into the tables of docs/benchmarks.md
("Snapshots").

usage: snapshot_report.py bench_snapshot.json

Times are CPU time (real time for the manually timed float_after rows), median of the
interleaved repetitions with min-max. Ratios are retcon / baseline medians from the same run;
the range after a ratio goes from best-retcon/worst-baseline to worst-retcon/best-baseline.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from report_common import fmt_time, get, load, ratio_spread

SIZES = (10_000, 100_000, 1_000_000)


def gbps(r, nbytes):
    return "-" if r is None else f"{nbytes / r['median']:.1f}"


def main():
    ctx, rows = load(sys.argv[1])
    print(f"Machine: {ctx.get('num_cpus')} x {ctx.get('mhz_per_cpu')} MHz; XXH3 kernel {ctx.get('xxh3_kernel')}; "
          f"{ctx.get('bytes_per_entity', '')}\n")

    print("### save / restore vs memcpy of the image (us; GB/s; ratio of times)\n")
    print("| N | image bytes | memcpy us | memcpy GB/s | save us | save GB/s | save bandwidth vs memcpy (>= 0.8) "
          "| restore, same entities | restore, 1% respawned | restore, other world |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in SIZES:
        m = get(rows, "memcpy", "baseline", n)
        s = get(rows, "save", "retcon", n)
        if m is None or s is None:
            continue
        nbytes = m["counters"]["bytes"]
        bw = "-" if s is None else f"{m['median'] / s['median']:.2f}x ({m['min'] / s['max']:.2f}-{m['max'] / s['min']:.2f})"
        cells = []
        for churn in (0, 1, 100):
            r = get(rows, "restore", "retcon", n, churn=churn)
            cells.append(f"{fmt_time(r)} = {ratio_spread(r, m)}")
        print(f"| {n:,} | {int(nbytes):,} | {fmt_time(m)} | {gbps(m, nbytes)} | {fmt_time(s)} | {gbps(s, nbytes)} "
              f"| {bw} | " + " | ".join(cells) + " |")

    print("\n### hash vs raw XXH3 over as many bytes (us; GB/s; throughput ratio = XXH3 time / retcon time, >= 0.8)\n")
    print("| N | hashed bytes | XXH3_64bits_dispatch | hash(world) | ratio | section_hashes(world) | ratio "
          "| hash(snapshot) | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in SIZES:
        x = get(rows, "xxh3", "baseline", n)
        if x is None:
            continue
        nbytes = x["counters"]["bytes"]
        cells = []
        for w in ("hash", "section_hashes", "hash_image"):
            r = get(rows, w, "retcon", n)
            tp = "-" if r is None else f"{x['median'] / r['median']:.2f}x ({x['min'] / r['max']:.2f}-{x['max'] / r['min']:.2f})"
            cells.append(f"{fmt_time(r)}, {gbps(r, nbytes)} GB/s | {tp}")
        print(f"| {n:,} | {int(nbytes):,} | {fmt_time(x)}, {gbps(x, nbytes)} GB/s | " + " | ".join(cells) + " |")

    print("\n### vzeroupper hazard: the float movement system (N = 10,000) timed right after ... (us, real time)\n")
    print("| preceded by | system us | vs XXH3 + zeroupper (same work before, clean state) | vs nothing |")
    print("|---|---|---|---|")
    base = get(rows, "float_after", "none", 10_000)
    clean = get(rows, "float_after", "raw_xxh3_zeroupper", 10_000)
    for impl, label in (("none", "nothing"), ("retcon_hash", "retcon::hash(world)"),
                        ("raw_xxh3", "XXH3_64bits_dispatch, upper state left dirty"),
                        ("raw_xxh3_zeroupper", "XXH3_64bits_dispatch + _mm256_zeroupper")):
        r = get(rows, "float_after", impl, 10_000)
        print(f"| {label} | {fmt_time(r, digits=2)} | {ratio_spread(r, clean)} | {ratio_spread(r, base)} |")

    print("\n### zstd snapshot files vs raw zstd of the image\n")
    print("| level | N | image bytes | file bytes | compression | write file MB/s | raw zstd MB/s | write / raw "
          "| read file MB/s | raw unzstd MB/s | read / raw |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for level in (1, 3):
        for n in SIZES:
            fw = get(rows, "zstd_file", "retcon", n, level=level)
            zw = get(rows, "zstd", "raw", n, level=level)
            fr_ = get(rows, "unzstd_file", "retcon", n, level=level)
            zr = get(rows, "unzstd", "raw", n, level=level)
            if fw is None:
                continue
            nbytes = fw["counters"]["bytes"]
            mbps = lambda r: "-" if r is None else f"{nbytes / r['median'] * 1e3:.0f}"
            print(f"| {level} | {n:,} | {int(nbytes):,} | {int(fw['counters']['stored']):,} | "
                  f"{fw['counters']['ratio']:.2f}:1 | {mbps(fw)} | {mbps(zw)} | {ratio_spread(fw, zw)} | "
                  f"{mbps(fr_)} | {mbps(zr)} | {ratio_spread(fr_, zr)} |")

    print("\n### replay keyframes: delta vs full (10,000 entities, 600 frames, keyframe every 60 frames, zstd 3)\n")
    print("| entities moving | churn per frame | image bytes | full keyframe (zstd) | delta keyframe (XOR + zstd) "
          "| full / delta (>= 5) |")
    print("|---|---|---|---|---|---|")
    keys = sorted((k for k in rows if k[0] == "replay_keyframes"),
                  key=lambda k: (-int(dict(k[2])["moving"]), -int(dict(k[2])["churn_permille"])))
    for k in keys:
        p = dict(k[2])
        c = rows[k]["counters"]
        print(f"| {p['moving']}% | {int(p['churn_permille']) / 10:.1f}% | {c['image_bytes']:,.0f} | "
              f"{c['full_bytes']:,.0f} | {c['delta_bytes']:,.0f} | {c['full_over_delta']:.2f}x |")


if __name__ == "__main__":
    main()
