#!/usr/bin/env python3
"""Turns the JSON output of retcon_net_bench into the tables of docs/benchmarks.md
("Netcode").

usage: net_report.py bench_net.json

Rollback: CPU time per rollback, median (min-max) of the interleaved repetitions, against the
plain simulation of the same frames from the same run; the restore / re-simulation split comes
from counters timed inside the same iterations. Traffic: payload bytes per client and second
from the simulated network, plus ENet (4-12 B) + UDP (8 B) + IPv4 (20 B) headers per packet,
added by arithmetic from the packet counts.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from report_common import fmt_time, get, load, ratio_spread

FRAME_US = 1e6 / 60
HEADER_MIN, HEADER_MAX = 4 + 8 + 20, 12 + 8 + 20


def main():
    _, rows = load(sys.argv[1])

    for step, label in (("move", "movement system"), ("move_churn", "movement + 0.1% spawn/despawn per frame")):
        print(f"### Rollback, step = {label} (us per rollback)\n")
        print("| N | frames | plain re-simulation | rollback (restore + re-simulation) | vs plain "
              "| restore | restore / re-simulation | client-style rollback (+ saves) | vs plain | % of a 60 Hz frame |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for n in (1_000, 10_000, 100_000):
            for frames in (1, 4, 8):
                p = get(rows, "resim", "plain", n, step=step, frames=frames)
                r = get(rows, "rollback", "retcon", n, step=step, frames=frames)
                c = get(rows, "rollback", "client", n, step=step, frames=frames)
                if r is None:
                    continue
                rc = r["counters"]
                share = rc["restore_us"] / rc["resim_us"]
                frame_pct = (c or r)["median"] / 1e3 / FRAME_US * 100
                print(f"| {n:,} | {frames} | {fmt_time(p)} | {fmt_time(r)} | {ratio_spread(r, p)} | "
                      f"{rc['restore_us']:.1f} | {share * 100:.1f}% | {fmt_time(c)} | {ratio_spread(c, p)} | "
                      f"{frame_pct:.2f}% |")
        print()

    print("### Traffic per client (60 s at 60 Hz after 5 s of settling; 100 ms RTT, 5% loss each way)\n")
    print("| bots | players | up payload B/s | up packets/s | up with headers B/s | down payload B/s | down packets/s "
          "| down with headers B/s | rollbacks/s | re-simulated frames/s | inputs replaced |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for bots in ("rare", "test_bot", "every_frame"):
        for players in (2, 8):
            r = get(rows, "traffic", bots, players)
            if r is None:
                continue
            c = r["counters"]
            up_pps = c["input_up_pps"] + c["other_up_pps"]
            down_pps = c["input_down_pps"] + c["other_down_pps"]
            hdr = lambda payload, pps: f"{payload + pps * HEADER_MIN:,.0f}-{payload + pps * HEADER_MAX:,.0f}"
            print(f"| {bots} | {players} | {c['up_Bps']:,.0f} | {up_pps:.1f} | {hdr(c['up_Bps'], up_pps)} | "
                  f"{c['down_Bps']:,.0f} | {down_pps:.1f} | {hdr(c['down_Bps'], down_pps)} | "
                  f"{c['rollbacks_per_s']:.1f} | {c['resimulated_per_s']:.1f} | {c['replaced_pct']:.2f}% |")

    print("\n### Session tick cost (4-player match, test bots, 100 ms RTT, 5% loss; real time per tick)\n")
    print("| side | us per tick | % of a 60 Hz frame | client 0: rollbacks per frame | client 0: re-simulated frames per frame |")
    print("|---|---|---|---|---|")
    for side in ("client", "server"):
        r = get(rows, "tick", side, 4)
        if r is None:
            continue
        c = r["counters"]
        rb = f"{c['rollbacks_per_frame']:.3f} | {c['resim_per_frame']:.2f}" if side == "client" else "- | -"
        print(f"| {side}_session::tick | {fmt_time(r, digits=2)} | {r['median'] / 1e3 / FRAME_US * 100:.3f}% | {rb} |")


if __name__ == "__main__":
    main()
