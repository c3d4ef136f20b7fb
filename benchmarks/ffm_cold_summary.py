#!/usr/bin/env python3
"""Summarises the cold samples of an ffm-cost.sh run (COLD_REPS > 0): per variant the first
connection (ConnectCost's first_ms) of every fresh JVM, its min and median, the median as a ratio
of C's median first connection in the same boot, and the medians of open_ms (RdmaCm.open() and the
listener) and of open_ms + first_ms (main to the first connection established).

    python3 benchmarks/ffm_cold_summary.py RESULTS_DIR "variant1 variant2 ..."
"""
import glob
import re
import sys


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def main(out, variants):
    c = []
    for f in sorted(glob.glob(out + "/c-cold-c*.txt"), key=lambda p: int(re.search(r"-c(\d+)\.", p).group(1))):
        m = re.search(r"^latency_us 0 (\S+)", open(f).read(), re.M)
        if m:
            c.append(float(m.group(1)) / 1000)
    if not c:
        sys.exit("no C cold samples (c-cold-c*.txt) in " + out)
    print("C first ms: %s  min %.1f median %.1f" % (" / ".join("%.1f" % x for x in c), min(c), median(c)))
    for v in variants:
        rows = []
        files = glob.glob("%s/cold-%s-c*.txt" % (out, v))
        for f in sorted(files, key=lambda p: int(re.search(r"-c(\d+)\.", p).group(1))):
            t = open(f).read()
            o = re.search(r"^open_ms (\S+)", t, re.M)
            fi = re.search(r"^first_ms (\S+)", t, re.M)
            if o and fi:
                rows.append((float(o.group(1)), float(fi.group(1))))
        if not rows:
            print("%-8s no complete samples" % v)
            continue
        first = [r[1] for r in rows]
        opened = [r[0] for r in rows]
        both = [r[0] + r[1] for r in rows]
        print("%-8s first %s | min %.0f median %.0f (%.1fx C's median) | open median %.0f | open + first median %.0f"
              % (v, " / ".join("%.0f" % x for x in first), min(first), median(first), median(first) / median(c),
                 median(opened), median(both)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2].split())
