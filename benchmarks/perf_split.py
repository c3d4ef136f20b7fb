#!/usr/bin/env python3
# perf_split.py DIR [COMM]: from DIR/perf.data (perf record -g, cpu-clock), the thread COMM's samples
# split into user-space DSOs and kernel time by the syscall (first user-space frame) that entered it.
import collections, subprocess, sys
d = sys.argv[1]; comm = sys.argv[2] if len(sys.argv) > 2 else 'rdmacm4j-dispat'
out = subprocess.run(['perf', 'script', '-i', f'{d}/perf.data', '--comm', comm, '-F', 'ip,sym,dso'],
                     capture_output=True, text=True).stdout
samples, cur = [], []
for l in out.splitlines():
    if not l.strip():
        if cur: samples.append(cur); cur = []
        continue
    cur.append(l.strip())
if cur: samples.append(cur)
kern = lambda f: '[kernel.kallsyms]' in f or '[ib_' in f or '[rdma' in f
def dso(f): return f.rsplit('(', 1)[-1].rstrip(')').split('/')[-1]
def sym(f): return f.split(' ', 1)[1].rsplit(' (', 1)[0] if ' ' in f else f
user, entry = collections.Counter(), collections.Counter()
for s in samples:
    if kern(s[0]):
        fu = next((sym(f) for f in s if not kern(f)), '(kernel only)')
        entry[fu] += 1
    else:
        user[dso(s[0])] += 1   # JIT-compiled Java shows as perf-PID.map
n = len(samples); k = sum(entry.values())
print(f'{comm}: {n} samples; user {100*(n-k)/n:.1f} %, kernel {100*k/n:.1f} %')
print('user space by DSO (% of the thread):')
for x, c in user.most_common(10): print(f'  {100*c/n:5.1f} % {x}')
print('kernel by the call that entered it (% of the thread):')
for x, c in entry.most_common(10): print(f'  {100*c/n:5.1f} % {x}')
