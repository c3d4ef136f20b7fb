#!/usr/bin/env python3
"""Summary of a benchmarks/floor-cost.sh run: python3 benchmarks/floor_summary.py OUT [K1 K2].

Per program, the medians (and minimums) over the repetitions of the CPU per warm connect + close
cycle of the whole process (user, sys, total; K2 run minus K1 run for the timed programs, the
window's own /proc figures for rdmacm4j's ConnectCost) and of the lone-connection p50 from
connection K1 on, each also as a ratio to C's median, as a Markdown table.
"""
import re
import statistics
import sys
from pathlib import Path


def timed(out, program, rep, k1, k2):
    def cpu(k):
        user, sys_, _ = (float(x) for x in (out / f"{program}-k{k}-r{rep}.time").read_text().split()[-3:])
        return user, sys_
    try:
        u1, s1 = cpu(k1)
        u2, s2 = cpu(k2)
        lat = [float(m.group(2)) for m in re.finditer(r"^latency_us (\d+) ([\d.]+)$",
               (out / f"{program}-k{k2}-r{rep}.txt").read_text(), re.M) if int(m.group(1)) >= k1]
    except (FileNotFoundError, ValueError):
        return None
    if len(lat) != k2 - k1:
        return None
    n = k2 - k1
    return {"user": (u2 - u1) * 1e6 / n, "sys": (s2 - s1) * 1e6 / n, "p50": statistics.median(lat)}


def connect_cost(out, rep):
    try:
        text = (out / f"rdmacm4j-r{rep}.txt").read_text()
    except FileNotFoundError:
        return None
    proc = re.search(r"^process user_us ([\d.]+) sys_us ([\d.]+)$", text, re.M)
    p50 = re.search(r"^connect_us p50 ([\d.]+)", text, re.M)
    if not proc or not p50:
        return None
    return {"user": float(proc.group(1)), "sys": float(proc.group(2)), "p50": float(p50.group(1))}


def main():
    out = Path(sys.argv[1])
    k1, k2 = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) == 4 else (1000, 2000)
    programs = ["c", "floor-c1", "floor-jdk", "rdmacm4j"]
    reps = sorted({int(m.group(1)) for f in out.iterdir() for m in [re.search(r"-r(\d+)\.", f.name)] if m})
    rows = {}
    for p in programs:
        samples = [connect_cost(out, r) if p == "rdmacm4j" else timed(out, p, r, k1, k2) for r in reps]
        rows[p] = [s for s in samples if s]
    c = rows["c"]
    if not c:
        sys.exit("no complete C sample in " + str(out))
    c_cpu = statistics.median(s["user"] + s["sys"] for s in c)
    c_p50 = statistics.median(s["p50"] for s in c)
    print(f"Connections {k1}..{k2 - 1} of each process; µs per connect + close cycle (both ends), "
          f"medians over the repetitions (min in brackets); ratio = program ÷ C's median.\n")
    print("| program | reps | CPU (user + sys) | user | sys | CPU ÷ C | lone p50 | p50 ÷ C |")
    print("|---|---|---|---|---|---|---|---|")
    for p in programs:
        s = rows[p]
        if not s:
            print(f"| {p} | 0 | missing | | | | | |")
            continue
        cpu = [x["user"] + x["sys"] for x in s]
        med = statistics.median
        print(f"| {p} | {len(s)} | {med(cpu):,.0f} ({min(cpu):,.0f}) | {med(x['user'] for x in s):,.0f} | "
              f"{med(x['sys'] for x in s):,.0f} | {med(cpu) / c_cpu:.2f}× | "
              f"{med(x['p50'] for x in s):,.0f} ({min(x['p50'] for x in s):,.0f}) | {med(x['p50'] for x in s) / c_p50:.2f}× |")


if __name__ == "__main__":
    main()
