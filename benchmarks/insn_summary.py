#!/usr/bin/env python3
"""Guest instructions per connection from benchmarks/insn-count.sh's results directory.

Reads OUT/insn-marks.txt (the plugin's "mark open|close kernel K user U" lines, in the order the
guest executed them) and OUT/insn-labels.txt (insn-job.sh's "PROG VARIANT REP CONNECTIONS RC FILE",
one per window, in the order they ran), pairs the k-th open/close with the k-th label, and prints
per window and per program (min / median over repetitions) the kernel, user and total
instructions per connection, and each median as a ratio to C's.

    python3 benchmarks/insn_summary.py OUT
"""
import statistics
import sys
from collections import defaultdict


def windows(marks_path):
    """(kernel, user) instruction deltas of each open..close pair, in order."""
    out, opened = [], None
    with open(marks_path) as f:
        for line in f:
            w = line.split()
            if len(w) != 6 or w[0] != "mark":
                continue
            kind, kernel, user = w[1], int(w[3]), int(w[5])
            if kind == "open":
                if opened is not None:
                    sys.exit(f"insn_summary: two opens without a close in {marks_path}")
                opened = (kernel, user)
            elif kind == "close":
                if opened is None:
                    sys.exit(f"insn_summary: a close without an open in {marks_path}")
                out.append((kernel - opened[0], user - opened[1]))
                opened = None
    return out


def main(out_dir):
    counted = windows(f"{out_dir}/insn-marks.txt")
    with open(f"{out_dir}/insn-labels.txt") as f:
        labels = [line.split() for line in f if line.strip()]
    failed = [l for l in labels if l[4] != "0"]
    if failed:
        sys.exit(f"insn_summary: runs that failed (their windows may be unpaired): {failed}")
    if len(counted) != len(labels):
        sys.exit(f"insn_summary: {len(counted)} counted windows for {len(labels)} runs: cannot pair them")
    rows = defaultdict(list)
    print(f"{'program':<16} {'rep':>3} {'kernel/conn':>12} {'user/conn':>12} {'total/conn':>12}")
    for (kernel, user), (prog, variant, rep, conns, *_rest) in zip(counted, labels):
        n = int(conns)
        name = prog if variant == "-" else f"{prog}-{variant}"
        rows[name].append((kernel / n, user / n))
        print(f"{name:<16} {rep:>3} {kernel / n:>12,.0f} {user / n:>12,.0f} {(kernel + user) / n:>12,.0f}")
    med = {name: tuple(statistics.median(v[i] for v in vals) for i in (0, 1)) for name, vals in rows.items()}
    c = med.get("c")
    print()
    print("instructions per connection, min / median of the repetitions" + ("; ratio of medians to C" if c else ""))
    print(f"{'program':<16} {'kernel':>21} {'user':>21} {'total':>21}" + ("  k÷C   u÷C   t÷C" if c else ""))
    for name, vals in rows.items():
        k = [v[0] for v in vals]
        u = [v[1] for v in vals]
        t = [v[0] + v[1] for v in vals]
        line = f"{name:<16} " + " ".join(f"{min(x):>10,.0f}/{statistics.median(x):<10,.0f}" for x in (k, u, t))
        if c:
            mk, mu = med[name]
            line += f" {mk / c[0]:5.2f} {mu / c[1]:5.1f} {(mk + mu) / (c[0] + c[1]):5.2f}"
        print(line)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: insn_summary.py OUT")
    main(sys.argv[1])
