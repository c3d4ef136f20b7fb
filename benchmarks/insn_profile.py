#!/usr/bin/env python3
"""Instructions per connection by library and by symbol, for one window of benchmarks/insn-count.sh
run with PROFILE=1 (the plugin's OUT/prof-N.txt: "VADDR INSNS EXECUTIONS" per translation block).

Kernel addresses are named from the guest's /proc/kallsyms (OUT/kallsyms.txt); user addresses from
the process's maps at the window's close (OUT/maps-PID.txt): a file-backed mapping by the file's
ELF symbols (nm; readelf's load segments to turn the file offset into the symbol's address), the
JVM's anonymous code cache by its perf map at exit (OUT/perfmap-PID.map, -XX:+DumpPerfMapAtExit).
A window is named by its line in OUT/insn-labels.txt (1-based, the order the windows ran).
Whole guest: another process's user blocks in the window would be named against this one's maps
(the windows run alone in the guest, so there are none to speak of).

    python3 benchmarks/insn_profile.py OUT N [TOP]
"""
import bisect
import os
import re
import subprocess
import sys
from collections import defaultdict

KERNEL_START = 0xffff800000000000


class Symbols:
    """Sorted (start, name) with an optional end per symbol; name_of(addr) by bisection."""

    def __init__(self, entries):
        entries.sort()
        self.starts = [e[0] for e in entries]
        self.entries = entries

    def name_of(self, addr):
        i = bisect.bisect_right(self.starts, addr) - 1
        if i < 0:
            return None
        start, end, name = self.entries[i]
        if end is not None and addr >= end:
            return None
        return name


def kernel_symbols(path):
    entries = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and w[1] in "tTwW":
                entries.append((int(w[0], 16), None, w[2]))
    return Symbols(entries)


def perf_map(path):
    entries = []
    if os.path.exists(path):
        with open(path, errors="replace") as f:
            for line in f:
                w = line.rstrip("\n").split(" ", 2)
                if len(w) == 3:
                    start, size = int(w[0], 16), int(w[1], 16)
                    entries.append((start, start + size, w[2]))
    return Symbols(entries)


def maps(path):
    out = []
    with open(path) as f:
        for line in f:
            w = line.split()
            lo, hi = (int(x, 16) for x in w[0].split("-"))
            out.append((lo, hi, int(w[2], 16), w[5] if len(w) > 5 else ""))
    out.sort()
    return out


_elf = {}


def elf(path):
    """(load segments [(p_offset, p_vaddr, p_filesz)], Symbols by ELF address) of a file, cached."""
    if path in _elf:
        return _elf[path]
    segs = []
    try:
        text = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
        for line in text.splitlines():
            w = line.split()
            if w and w[0] == "LOAD":
                segs.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))
        entries = []
        for dyn in ([], ["-D"]):
            nm = subprocess.run(["nm", "-n", "--defined-only", "-S", *dyn, path], capture_output=True, text=True).stdout
            for line in nm.splitlines():
                w = line.split()
                if len(w) == 4 and w[2] in "tTwWiI":
                    start = int(w[0], 16)
                    entries.append((start, start + int(w[1], 16), w[3]))
                elif len(w) == 3 and w[1] in "tTwWiI":
                    entries.append((int(w[0], 16), None, w[2]))
            if entries:
                break
    except OSError:
        entries = []
    _elf[path] = (segs, Symbols(entries))
    return _elf[path]


def library_class(path):
    base = os.path.basename(path)
    for key, name in (("libjvm", "libjvm.so"), ("libc.so", "libc"), ("libc-", "libc"), ("librdmacm", "librdmacm"),
                      ("libibverbs", "libibverbs"), ("librxe", "librxe (provider)"), ("ld-linux", "ld.so"),
                      ("libpthread", "libc")):
        if key in base:
            return name
    return base or "anonymous"


def main(out, n, top):
    with open(f"{out}/insn-labels.txt") as f:
        labels = [line.split() for line in f if line.strip()]
    label = labels[n - 1]
    conns = int(label[3])
    pid = label[6] if len(label) > 6 else "-"
    ksyms = kernel_symbols(f"{out}/kallsyms.txt")
    jit = perf_map(f"{out}/perfmap-{pid}.map")
    mp = maps(f"{out}/maps-{pid}.txt") if os.path.exists(f"{out}/maps-{pid}.txt") else []
    starts = [m[0] for m in mp]
    by_class = defaultdict(int)
    by_symbol = defaultdict(int)
    with open(f"{out}/prof-{n}.txt") as f:
        for line in f:
            v, ni, hits = line.split()
            addr, insns = int(v, 16), int(ni) * int(hits)
            if addr >= KERNEL_START:
                cls, sym = "kernel", "k:" + (ksyms.name_of(addr) or "?")
            else:
                i = bisect.bisect_right(starts, addr) - 1
                m = mp[i] if i >= 0 and addr < mp[i][1] else None
                if m is None or not m[3].startswith("/"):
                    name = jit.name_of(addr)
                    cls = "JIT code and stubs" if name else ("unmapped" if m is None else "anonymous, not in the perf map")
                    sym = "j:" + (name or "?")
                else:
                    cls = library_class(m[3])
                    segs, syms = elf(m[3])
                    off = addr - m[0] + m[2]
                    ev = next((off - so + sv for so, sv, sz in segs if so <= off < so + sz), off)
                    sym = cls + ":" + (syms.name_of(ev) or "?")
            by_class[cls] += insns
            by_symbol[sym] += insns
    total = sum(by_class.values())
    print(f"window {n}: {' '.join(label[:4])} connections; {total / conns:,.0f} instructions per connection")
    print(f"{'where':<34} {'per conn':>12} {'share':>6}")
    for cls, v in sorted(by_class.items(), key=lambda x: -x[1]):
        print(f"{cls:<34} {v / conns:>12,.0f} {100 * v / total:>5.1f}%")
    print()
    print(f"top {top} symbols")
    for sym, v in sorted(by_symbol.items(), key=lambda x: -x[1])[:top]:
        print(f"{v / conns:>10,.0f} {100 * v / total:>5.1f}%  {sym[:150]}")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: insn_profile.py OUT N [TOP]")
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) == 4 else 40)
