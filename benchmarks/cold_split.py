#!/usr/bin/env python3
"""Summarises a benchmarks/cold-split.sh results directory (docs/benchmarks.md, "The cold first
connection, split"): one line per JVM run, then min / median of the repetitions per variant and
AOT mode, and C's first three connections.

    python3 benchmarks/cold_split.py RESULTS_DIR
"""
import glob
import os
import re
import statistics
import sys


def parse_run(path):
    r = {"phases": {}, "windows": {}, "lat": {}}
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "phase" and len(w) >= 4:
            r["phases"][w[1]] = (int(w[2]), int(w[3]))
        elif w[0] == "window":
            kv = w[2:]
            r["windows"][w[1]] = {kv[i]: float(kv[i + 1]) for i in range(0, len(kv) - 1, 2)}
        elif w[0] == "latency_us":
            r["lat"][int(w[1])] = float(w[2]) / 1000
        elif w[0] == "launched_epoch_us":
            r["launched"] = int(w[1])
        elif w[0] == "jvm_start_epoch_us":
            r["jvm_start"] = int(w[1])
    cl = path[:-4] + ".cl"
    p = r["phases"]
    if os.path.exists(cl) and "listening" in p and "connected1" in p:
        lo, hi = p["listening"][1], p["connected1"][1]
        n = hidden = shared = 0
        for line in open(cl):
            m = re.match(r"\[(\d+)ns\] (\S+) source: (.*)", line)
            if not m or not lo <= int(m.group(1)) <= hi:
                continue
            n += 1
            name, src = m.group(2), m.group(3)
            if "LambdaForm$" in name or "DowncallStub" in name or "$$Lambda" in name or "/0x" in name:
                hidden += 1
            if "shared objects file" in src:
                shared += 1
        r["cl"] = (n, hidden, shared)
    return r


def fmt(vals, nd=0):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    f = "{:,.%df}" % nd
    return f.format(min(vals)) + " / " + f.format(statistics.median(vals))


def main(d):
    runs = {}
    for path in sorted(glob.glob(os.path.join(d, "*-r[0-9]*.txt"))):
        base = os.path.basename(path)[:-4]
        if base.startswith("c-"):
            continue
        m = re.match(r"(.+)-(on|off)-r(\d+)$", base)
        if not m:
            continue
        runs.setdefault((m.group(1), m.group(2)), []).append((int(m.group(3)), parse_run(path)))
    print("# per run (ms): launch->main, main->ready, step, ready..open, open->listening, conn1 conn2 conn3;"
          " conn1 window: cpu user+sys, compiler cpu, jit, classes loaded (hidden, from cache), initialised,"
          " clinit, clinit self, functions linked")
    for key in sorted(runs):
        for rep, r in sorted(runs[key]):
            p, w = r["phases"], r["windows"]
            if "connected1" not in p:
                print(key, rep, "INCOMPLETE")
                continue
            c1 = w.get("conn1", {})
            cl = r.get("cl", ("-", "-", "-"))
            print(f"{key[0]:18} {key[1]:3} r{rep}: {(p['main'][0] - r['launched']) / 1e3:7.0f} "
                  f"{(p['ready'][0] - p['main'][0]) / 1e3:6.0f} {w['step']['wall_ms']:7.0f} "
                  f"{(p['opened'][0] - p['prepared'][0]) / 1e3:6.0f} {(p['listening'][0] - p['opened'][0]) / 1e3:6.0f} | "
                  f"{r['lat'][0]:7.1f} {r['lat'].get(1, 0):6.1f} {r['lat'].get(2, 0):6.1f} | "
                  f"cpu {c1.get('cpu_user_ms', 0) + c1.get('cpu_sys_ms', 0):.0f} comp {c1.get('compiler_cpu_ms', 0):.0f} "
                  f"jit {c1.get('jit_ms', 0):.0f} cls {cl[0]} ({cl[1]}, {cl[2]}) init {c1.get('initialised', 0):.0f} "
                  f"clinit {c1.get('clinit_ms', 0):.0f} self {c1.get('clinit_self_ms', 0):.0f} "
                  f"linked {c1.get('linked_in_window', 0):.0f} (total {c1.get('linked_functions', 0):.0f})")
    cs = []
    for path in sorted(glob.glob(os.path.join(d, "c-r[0-9]*.txt"))):
        lat = {int(w[1]): float(w[2]) / 1000 for w in (l.split() for l in open(path)) if w and w[0] == "latency_us"}
        if 0 in lat:
            cs.append(lat)
    c_min = min(c[0] for c in cs) if cs else None
    c_med = statistics.median(c[0] for c in cs) if cs else None
    order = lambda k: (["plain", "prelinked", "trained", "trained-prelinked"].index(k[0]), k[1])

    def measured():   # (variant, cache) and its runs that reached a first connection, in table order
        for key in sorted(runs, key=order):
            rs = [r for _, r in runs[key] if "connected1" in r["phases"]]
            if rs:
                yield key, rs
    print()
    print("| variant | AOT cache | 1st connection | × C's 1st (min/min, median/median) | 2nd | 3rd |"
          " step before open() | launch to main | main to open() without the step | open() to listening |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for key, rs in measured():
        col = lambda f, nd=0: fmt([f(r) for r in rs], nd)
        firsts = [r["lat"][0] for r in rs]
        ratio = (f"{min(firsts) / c_min:.1f}× / {statistics.median(firsts) / c_med:.1f}×" if cs else "-")
        print(f"| {key[0]} | {key[1]} | {col(lambda r: r['lat'][0], 1)} | {ratio} | {col(lambda r: r['lat'].get(1), 1)} | "
              f"{col(lambda r: r['lat'].get(2), 1)} | {col(lambda r: r['windows']['step']['wall_ms'])} | "
              f"{col(lambda r: (r['phases']['main'][0] - r['launched']) / 1e3)} | "
              f"{col(lambda r: (r['phases']['opened'][0] - r['phases']['main'][0]) / 1e3 - r['windows']['step']['wall_ms'])} | "
              f"{col(lambda r: (r['phases']['listening'][0] - r['phases']['opened'][0]) / 1e3)} |")
    if cs:
        print(f"| C `cm_event_loop latency` | | {fmt([c[0] for c in cs], 1)} | 1 | {fmt([c.get(1) for c in cs], 1)} | "
              f"{fmt([c.get(2) for c in cs], 1)} | | | | |")
        print("C per run:", "; ".join(" ".join(f"{c[i]:.1f}" for i in sorted(c)) for c in cs))
    print()
    print("| variant | AOT cache | static initialisers (clinit) ms | other class loading ms | classes loaded (hidden) |"
          " functions linked | C1 compile ms | process CPU ms | compiler threads' CPU ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key, rs in measured():
        w1 = lambda f, nd=0: fmt([f(r["windows"]["conn1"]) for r in rs], nd)
        col = lambda f, nd=0: fmt([f(r) for r in rs], nd)
        print(f"| {key[0]} | {key[1]} | {w1(lambda w: w['clinit_ms'])} | {w1(lambda w: w['class_load_ms'] - w['clinit_ms'])} | "
              f"{col(lambda r: r['cl'][0] if 'cl' in r else None)} ({col(lambda r: r['cl'][1] if 'cl' in r else None)}) | "
              f"{w1(lambda w: w['linked_in_window'])} | {w1(lambda w: w['jit_ms'])} | "
              f"{w1(lambda w: w['cpu_user_ms'] + w['cpu_sys_ms'])} | {w1(lambda w: w['compiler_cpu_ms'])} |")


if __name__ == "__main__":
    main(sys.argv[1])
