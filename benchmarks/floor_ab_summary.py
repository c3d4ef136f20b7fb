#!/usr/bin/env python3
"""Summary of a benchmarks/floor-ab.sh run: python3 benchmarks/floor_ab_summary.py OUT.

Per program (VerbsFloor, ConnectCost) and figure, build a's and b's value in each repetition, their
medians, and in how many repetitions b was better (lower, or higher for the storm rates)."""
import re
import statistics
import sys
from pathlib import Path

rows = {}
for line in (Path(sys.argv[1]) / "summary.txt").read_text().splitlines():
    m = re.match(r"ab: (vfloor|cc) ([ab]) r(\d+) rc 0 (.*)", line)
    if not m:
        continue
    prog, build, rep, rest = m.group(1), m.group(2), int(m.group(3)), m.group(4)
    num = lambda pattern: float(re.search(pattern, rest).group(1))
    if prog == "vfloor":
        storm = re.search(r"storm n (\d+) setup_s ([\d.]+) teardown_s ([\d.]+)", rest)
        n = int(storm.group(1))
        user, sys_ = num(r"cpu_user_us ([\d.]+)"), num(r"cpu_sys_us ([\d.]+)")
        rows[(prog, build, rep)] = {"cpu": user + sys_, "user": user, "sys": sys_, "p50": num(r"p50 ([\d.]+)"),
                                    "setup/s": n / float(storm.group(2)), "teardown/s": n / float(storm.group(3))}
    else:
        user, sys_ = num(r"process user_us ([\d.]+)"), num(r"process user_us [\d.]+ sys_us ([\d.]+)")
        rows[(prog, build, rep)] = {"cpu": user + sys_, "user": user, "sys": sys_, "p50": num(r"p50 ([\d.]+)"),
                                    "dispatcher user": num(r'dispat" user_us +([\d.]+)')}
for prog, name in (("vfloor", "VerbsFloor"), ("cc", "ConnectCost")):
    reps = sorted({r for (p, _, r) in rows if p == prog})
    pairs = [r for r in reps if (prog, "a", r) in rows and (prog, "b", r) in rows]
    if not pairs:
        continue
    print(f"{name}: {len(pairs)} pairs, µs per connection (rates per s)")
    for fig in rows[(prog, "a", pairs[0])]:
        a = [rows[(prog, "a", r)][fig] for r in pairs]
        b = [rows[(prog, "b", r)][fig] for r in pairs]
        higher_better = fig.endswith("/s")
        better = sum(1 for x, y in zip(a, b) if (y > x if higher_better else y < x))
        print(f"  {fig:16s} a {statistics.median(a):9.0f}  b {statistics.median(b):9.0f}  b better in {better} of {len(pairs)}"
              f"   (a: {' '.join(f'{x:.0f}' for x in a)}; b: {' '.join(f'{y:.0f}' for y in b)})")
