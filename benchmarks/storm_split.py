#!/usr/bin/env python3
"""storm_split.py DIR...: the results of benchmarks/storm-split.sh (or its earlier one-off jobs), per storm half
(setup, teardown) and implementation, per connection: wall, process user/sys, the threads' CPU and the
loop thread's run-queue wait and slices, and (with .perf files) syscalls by kind and context switches."""
import glob, os, re, sys, collections
rows = collections.defaultdict(list)
for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, '[cj]-*-r*.txt'))):
        name = os.path.basename(f)[:-4]
        impl, half, rep = name.split('-')
        t = open(f, errors='replace').read()
        w = re.search(r'window connections (\d+) wall_us ([\d.]+) cpu_user_us ([\d.]+) cpu_sys_us ([\d.]+)', t)
        if not w:
            continue
        r = {'wall': float(w.group(2)), 'user': float(w.group(3)), 'sys': float(w.group(4))}
        for m in re.finditer(r'thread (\S+) \d+ run_us ([\d.]+) runq_us ([\d.]+) slices ([\d.]+)'
                             r'(?: user_us ([\d.]+) sys_us ([\d.]+))?', t):
            comm = {'cel': 'loop', 'rdmacm4j-dispat': 'loop', 'java': 'main', 'C1_CompilerThre': 'C1',
                    'rdmacm4j-1-call': 'callbacks', 'rdmacm4j-1-poll': 'poller'}.get(m.group(1))
            if comm:
                r[comm + '_run'] = r.get(comm + '_run', 0) + float(m.group(2))
                if comm == 'loop':
                    r['loop_runq'] = float(m.group(3)); r['loop_slices'] = float(m.group(4))
                    if m.group(5):
                        r['loop_user'] = float(m.group(5)); r['loop_sys'] = float(m.group(6))
        p = f[:-4] + '.perf'
        if os.path.exists(p):
            for line in open(p):
                x = line.split(',')
                if len(x) > 2 and x[0].strip().isdigit():
                    k = x[2].replace('syscalls:sys_enter_', '').replace('raw_syscalls:sys_enter', 'syscalls')
                    r[k] = float(x[0]) / int(w.group(1))
        rows[(half, impl)].append(r)
keys = ['wall', 'user', 'sys', 'loop_run', 'loop_user', 'loop_sys', 'loop_runq', 'loop_slices', 'main_run', 'C1_run', 'callbacks_run',
        'syscalls', 'context-switches', 'ioctl', 'write', 'futex', 'munmap', 'mmap', 'close', 'fcntl', 'epoll_wait', 'mprotect']
for half in ('setup', 'teardown'):
    print(f'\n{half} (per connection; median over repetitions; n)')
    for impl in ('c', 'j'):
        rs = rows.get((half, impl), [])
        if not rs:
            continue
        out = []
        for k in keys:
            v = sorted(r[k] for r in rs if k in r)
            if v:
                out.append(f'{k} {v[len(v)//2]:.1f}')
        print(f'  {"C" if impl=="c" else "rdmacm4j"} ({len(rs)}): ' + ', '.join(out))
