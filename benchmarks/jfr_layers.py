#!/usr/bin/env python3
"""A thread's JFR execution samples split by rdmacm4j layer (issue 21):
  jfr print --events jdk.ExecutionSample --stack-depth 200 F.jfr | python3 benchmarks/jfr_layers.py [THREAD_PREFIX] [TAIL_FRACTION]
Each sample is charged to the first rdmacm4j frame from the top (its JDK callees included); also the
JDK packages at the top of the stack and the rdmacm4j methods by inclusive share. Only the samples in
the last TAIL_FRACTION (default 0.45) of the thread's sample span count: the warm part of a run."""
import collections
import re
import sys

prefix = sys.argv[1] if len(sys.argv) > 1 else "rdmacm4j-dispat"
tail = float(sys.argv[2]) if len(sys.argv) > 2 else 0.45
samples = []
cur = None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("jdk.ExecutionSample"):
        cur = {"frames": []}
    elif cur is None:
        continue
    elif line.strip().startswith("startTime"):
        m = re.search(r"(\d+):(\d+):(\d+)\.(\d+)", line)
        cur["t"] = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) + float("0." + m.group(4))
    elif line.strip().startswith("sampledThread"):
        m = re.search(r'"([^"]*)"', line)
        cur["thread"] = m.group(1) if m else ""
    elif line.startswith("    ") and ("line:" in line or "(" in line) and not line.strip().startswith("..."):
        cur["frames"].append(line.strip())
    elif line == "}":
        samples.append(cur)
        cur = None

mine = [s for s in samples if s.get("thread", "").startswith(prefix)]
if not mine:
    sys.exit("no samples of " + prefix)
t0 = min(s["t"] for s in mine)
t1 = max(s["t"] for s in mine)
cut = t1 - (t1 - t0) * tail
win = [s for s in mine if s["t"] >= cut]
print(f"{prefix}: {len(mine)} samples, {len(win)} in the last {tail:.0%} of {t1 - t0:.1f} s")


def method(f):
    return f.split("(")[0].split(" line:")[0]


def layer(m):
    if m.startswith("org.rdmacm4j.verbs."):
        return "verbs"
    if m.startswith("org.rdmacm4j.cm.core.internal.nativeport."):
        return "cm-core nativeport"
    if m.startswith("org.rdmacm4j.cm.statemachine."):
        return "cm-statemachine"
    if m.startswith("org.rdmacm4j.cm.core.internal."):
        return "cm-core " + m.split(".")[5]
    if m.startswith("org.rdmacm4j.cm.core."):
        return "cm-core api"
    if m.startswith("org.rdmacm4j."):
        return m.split(".")[2]
    return None


# self layer: the first rdmacm4j frame from the top (JDK callees charged to it)
self_layer = collections.Counter()
top_jdk = collections.Counter()
incl = collections.Counter()
for s in win:
    ms = [method(f) for f in s["frames"]]
    lay = next((layer(m) for m in ms if layer(m)), "JDK only")
    self_layer[lay] += 1
    if ms and not layer(ms[0]):
        top_jdk[".".join(ms[0].split(".")[:3])] += 1
    for m in set(ms):
        if m.startswith("org.rdmacm4j"):
            incl[m] += 1
n = len(win)
print("\nby the first rdmacm4j frame from the top (its JDK callees included):")
for k, v in self_layer.most_common():
    print(f"  {100 * v / n:5.1f}%  {k}")
print("\ntop frame in the JDK, by package:")
for k, v in top_jdk.most_common(15):
    print(f"  {100 * v / n:5.1f}%  {k}")
print("\nrdmacm4j methods, inclusive:")
for k, v in incl.most_common(60):
    print(f"  {100 * v / n:5.1f}%  {k}")
