#!/usr/bin/env python3
"""Where one thread's samples go, from a benchmarks/perf-steady.sh script file:
python3 benchmarks/perf_frames.py NAME.script.gz [COMM] [TOP] [LEAF ...].

Prints the samples by thread and kernel/user; then, for COMM (all threads if empty): user samples
by the first org.rdmacm4j frame above the leaf (what rdmacm4j code they were spent under, natives
and JDK frames included), user leaf symbols, inclusive samples per rdmacm4j method (all / user),
and for each LEAF given the three frames above it (who calls it). Percentages of all samples of
the file, so figures of different threads add up."""
import collections
import gzip
import re
import sys

path = sys.argv[1]
comm = sys.argv[2] if len(sys.argv) > 2 else ''
top = int(sys.argv[3]) if len(sys.argv) > 3 else 30
leaves = sys.argv[4:]
samples, cur = [], None
with gzip.open(path, 'rt', errors='replace') as f:
    for line in f:
        if not line.strip():
            if cur:
                samples.append(cur)
            cur = None
        elif not line.startswith((' ', '\t')):
            cur = (' '.join(line.split()[:-1]), [])
        else:
            m = re.match(r'\s*[0-9a-f]+\s+(.*)\s+\((.*)\)\s*$', line)
            if m and cur is not None:
                cur[1].append((m.group(1), m.group(2)))
if cur:
    samples.append(cur)
n = len(samples)
pct = lambda v: f'{v * 100 / n:5.1f}'
is_kernel = lambda frame: 'kernel' in frame[1]


def short(sym):
    sym = re.sub(r'\(.*', '', sym)
    return (sym.split()[-1] if ' ' in sym else sym).replace('org.rdmacm4j.', '')


by_thread = collections.Counter((c, 'kernel' if st and is_kernel(st[0]) else 'user') for c, st in samples)
print(f'{n} samples; by thread:')
for (c, k), v in by_thread.most_common(12):
    print(f'  {pct(v)}  {c} {k}')
mine = [st for c, st in samples if st and (not comm or c == comm)]
first, leafsym, incl = collections.Counter(), collections.Counter(), collections.Counter()
for st in mine:
    user = not is_kernel(st[0])
    if user:
        first[next((short(s) for s, _ in st if 'org.rdmacm4j' in s), '(no rdmacm4j frame: native code)')] += 1
        leafsym[short(st[0][0])] += 1
    seen = set()
    for s, _ in st:
        if 'org.rdmacm4j' in s and short(s) not in seen:
            seen.add(short(s))
            incl[(short(s), 'all')] += 1
            if user:
                incl[(short(s), 'user')] += 1
print(f'\n{comm or "all threads"}: user samples by the first rdmacm4j frame above the leaf')
for k, v in first.most_common(top):
    print(f'  {pct(v)}  {k}')
print('\nuser leaf symbols')
for k, v in leafsym.most_common(top):
    print(f'  {pct(v)}  {k}')
print('\ninclusive per rdmacm4j method: all / user')
for (m, w), v in sorted(((k, v) for k, v in incl.items() if k[1] == 'all'), key=lambda kv: -kv[1])[:top]:
    print(f'  {pct(v)} {pct(incl[(m, "user")])}  {m}')
for leaf in leaves:
    callers = collections.Counter(' < '.join(short(s) for s, _ in st[1:4]) for st in mine if leaf in st[0][0])
    print(f'\ncallers of {leaf}: {pct(sum(callers.values()))}')
    for k, v in callers.most_common(8):
        print(f'  {pct(v)}  {k}')
