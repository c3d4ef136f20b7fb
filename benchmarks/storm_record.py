#!/usr/bin/env python3
"""Kernel time of one storm half by system call, C's loop thread against rdmacm4j's threads, from
benchmarks/storm-record.sh's OUT/NAME.script.gz (perf script, call chains resolved in the guest).

Each kernel sample of a thread is charged to the system call its chain runs under (the outermost
__x64_sys_* / __do_sys_* frame; for ioctl and write on the RDMA char devices the ucma_* or
ib_uverbs_* handler under it names the command), or to "irq/softirq" or "other kernel" when no
system call is on the chain (an interrupt taken in user mode, a page fault). Figures are
milliseconds per connection: samples x the sampling period / the window's connections.

    python3 benchmarks/storm_record.py OUT [NAME ...]     # default: c-teardown j-teardown
"""
import gzip
import os
import re
import sys
from collections import Counter, defaultdict

SYS = re.compile(r'^(?:__x64_sys_|__do_sys_|__se_sys_|ksys_)(\w+)')
HANDLER = re.compile(r'^(ucma_\w+|ib_uverbs_\w+|rxe_\w+|ib_destroy\w*|ib_dealloc\w*|ib_dereg\w*)$')
IRQ = re.compile(r'^(asm_)?(sysvec_|common_interrupt|__do_softirq|irq_exit|do_softirq)')


def samples(path):
    """Yields (comm, tid, [(ip, symbol) innermost first]) from `perf script -F comm,tid,ip,sym`."""
    head, frames = None, []
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', errors='replace') as f:
        for line in f:
            if not line.strip():
                if head:
                    yield head[0], head[1], frames
                head, frames = None, []
                continue
            if not line.startswith((' ', '\t')):
                parts = line.split()
                head = (' '.join(parts[:-1]) if len(parts) > 1 else parts[0], parts[-1].rstrip(':'))
                frames = []
            else:
                parts = line.split(None, 1)
                frames.append((parts[0], parts[1].strip().split('+')[0] if len(parts) > 1 else '?'))
    if head:
        yield head[0], head[1], frames


def classify(frames):
    """(system call or kind, handler or innermost symbol) for a sample taken in the kernel, else None.

    In the kernel = the innermost frame's address is a kernel one (modules' symbols, such as rdma_rxe's
    loaded from the rig's own module tree, may print as [unknown]; their addresses still tell)."""
    if not frames or not frames[0][0].startswith('ffff'):
        return None
    syms = [sym for ip, sym in frames if ip.startswith('ffff')]
    syscall = next((m.group(1) for m in map(SYS.match, syms) if m), None)
    handler = next((sym for sym in reversed(syms) if HANDLER.match(sym)), None)
    if syscall:
        return syscall, handler or syms[0]
    if any(IRQ.match(sym) for sym in syms):
        return 'irq/softirq', syms[0]
    if any(sym.startswith(('asm_exc_page_fault', 'exc_page_fault', 'handle_mm_fault')) for sym in syms):
        return 'page fault', syms[0]
    return 'other kernel', syms[0]


def window_connections(out, name):
    try:
        with open(os.path.join(out, name + '.txt')) as f:
            for line in f:
                m = re.match(r'window connections (\d+)', line)
                if m:
                    return int(m.group(1))
    except OSError:
        pass
    return 500


def main():
    out = sys.argv[1]
    names = sys.argv[2:] or ['c-teardown', 'j-teardown']
    for name in names:
        path = os.path.join(out, name + '.script.gz')
        if not os.path.exists(path):
            print(f'{name}: no {path}')
            continue
        period_ms = 1000.0 / float(open(os.path.join(out, name + '.freq')).read().strip()) \
            if os.path.exists(os.path.join(out, name + '.freq')) else 1000.0 / 999
        conns = window_connections(out, name)
        per_thread = Counter()
        by_sys = defaultdict(Counter)
        kernel = Counter()
        for comm, tid, frames in samples(path):
            per_thread[comm] += 1
            kind = classify(frames)
            if kind:
                kernel[comm] += 1
                by_sys[comm][kind] += 1
        scale = period_ms / conns
        print(f'== {name}: {conns} connections, {period_ms:.3f} ms per sample; ms per connection')
        shown = [c for c, _ in per_thread.most_common() if c not in ('swapper', 'perf')][:8]
        for comm in shown:
            print(f'  {comm:18s} all {per_thread[comm] * scale:6.3f}  kernel {kernel[comm] * scale:6.3f}')
        for comm in shown[:3]:
            calls = Counter()
            for (syscall, _h), n in by_sys[comm].items():
                calls[syscall] += n
            print(f'  -- {comm}: kernel by system call')
            for syscall, n in calls.most_common(14):
                handlers = Counter({h: c for (s, h), c in by_sys[comm].items() if s == syscall})
                top = ', '.join(f'{h} {c * scale:.3f}' for h, c in handlers.most_common(4))
                print(f'     {syscall:16s} {n * scale:6.3f}   {top}')


if __name__ == '__main__':
    main()
