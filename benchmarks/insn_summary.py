#!/usr/bin/env python3
"""Guest instructions per connection from benchmarks/insn-count.sh's results directory.

Reads OUT/insn-marks.txt (the plugin's "mark open|close kernel K user U [NAME VALUE]..." lines, in
the order the guest executed them) and OUT/insn-labels.txt (insn-job.sh's "PROG VARIANT REP
CONNECTIONS RC FILE [PID]", one per window, in the order they ran), pairs the k-th open/close with
the k-th label, and prints per window and per program (min / median over repetitions) the kernel,
user and total instructions per connection, each median as a ratio to C's, the translation
blocks executed and instructions translated per connection where the plugin counted them, and the
collections and JIT time inside each Java window (its 'window_jvm' line): the two things that move
one build's user count between runs.

    python3 benchmarks/insn_summary.py OUT
"""
import os
import re
import statistics
import sys
from collections import defaultdict

EXTRA = ("kernel_blocks", "user_blocks", "kernel_translated", "user_translated")


def windows(marks_path):
    """{name: delta} of each open..close pair, in order (kernel, user and whatever else was counted)."""
    out, opened = [], None
    with open(marks_path) as f:
        for line in f:
            w = line.split()
            if len(w) < 6 or w[0] != "mark" or len(w) % 2:
                continue
            kind = w[1]
            values = {w[i]: int(w[i + 1]) for i in range(2, len(w), 2)}
            if kind == "open":
                if opened is not None:
                    sys.exit(f"insn_summary: two opens without a close in {marks_path}")
                opened = values
            elif kind == "close":
                if opened is None:
                    sys.exit(f"insn_summary: a close without an open in {marks_path}")
                out.append({k: v - opened[k] for k, v in values.items() if k in opened})
                opened = None
    return out


def jvm_in_window(path):
    """The program's 'window_jvm gcs G jit_ms J' line (Window.java), or '' if it has none."""
    if not os.path.exists(path):
        return ""
    with open(path, errors="replace") as f:
        m = re.search(r"^window_jvm gcs (\d+) jit_ms (\d+)", f.read(), re.M)
    return f"  gcs {m.group(1)} jit_ms {m.group(2)}" if m else ""


def main(out_dir):
    counted = windows(f"{out_dir}/insn-marks.txt")
    with open(f"{out_dir}/insn-labels.txt") as f:
        labels = [line.split() for line in f if line.strip()]
    failed = [l for l in labels if l[4] != "0"]
    if failed:
        sys.exit(f"insn_summary: runs that failed (their windows may be unpaired): {failed}")
    if len(counted) != len(labels):
        sys.exit(f"insn_summary: {len(counted)} counted windows for {len(labels)} runs: cannot pair them")
    extra = [k for k in EXTRA if counted and k in counted[0]]
    rows = defaultdict(list)
    print(f"{'program':<16} {'rep':>3} {'kernel/conn':>12} {'user/conn':>12} {'total/conn':>12}"
          + "".join(f" {k + '/conn':>22}" for k in extra))
    for w, (prog, variant, rep, conns, _rc, run_file, *_rest) in zip(counted, labels):
        n = int(conns)
        name = prog if variant == "-" else f"{prog}-{variant}"
        per = {k: v / n for k, v in w.items()}
        rows[name].append(per)
        print(f"{name:<16} {rep:>3} {per['kernel']:>12,.0f} {per['user']:>12,.0f} {per['kernel'] + per['user']:>12,.0f}"
              + "".join(f" {per[k]:>22,.0f}" for k in extra) + jvm_in_window(f"{out_dir}/{run_file}"))
    med = {name: {k: statistics.median(v[k] for v in vals) for k in vals[0]} for name, vals in rows.items()}
    c = med.get("c")
    print()
    print("instructions per connection, min / median of the repetitions" + ("; ratio of medians to C" if c else ""))
    print(f"{'program':<16} {'kernel':>21} {'user':>21} {'total':>21}" + ("  k÷C   u÷C   t÷C" if c else ""))
    for name, vals in rows.items():
        k = [v["kernel"] for v in vals]
        u = [v["user"] for v in vals]
        t = [v["kernel"] + v["user"] for v in vals]
        line = f"{name:<16} " + " ".join(f"{min(x):>10,.0f}/{statistics.median(x):<10,.0f}" for x in (k, u, t))
        if c:
            m = med[name]
            line += f" {m['kernel'] / c['kernel']:5.2f} {m['user'] / c['user']:5.1f} {(m['kernel'] + m['user']) / (c['kernel'] + c['user']):5.2f}"
        print(line)
    if extra:
        print()
        print("medians per connection: " + ", ".join(extra))
        for name in rows:
            print(f"{name:<16} " + " ".join(f"{med[name][k]:>12,.0f}" for k in extra))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: insn_summary.py OUT")
    main(sys.argv[1])
