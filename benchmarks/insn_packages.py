#!/usr/bin/env python3
"""Instructions per connection by Java package (JIT code) and by native library, for one window of
benchmarks/insn-count.sh run with PROFILE=1: benchmarks/insn_profile.py's symbol table, summed.

A JIT symbol is named by its perf-map entry ("RET pkg.Class.method(ARGS)"); it is charged to the
method's package, cut to DEPTH dotted parts after "org.rdmacm4j" (so cm.core, cm.statemachine,
verbs) and to three parts elsewhere (java.util.concurrent, jdk.internal.foreign). Stubs and
interpreter code stay under their own name.

    python3 benchmarks/insn_packages.py OUT N [DEPTH]      # DEPTH: parts after org.rdmacm4j, default 2
"""
import re
import subprocess
import sys
from collections import defaultdict

METHOD = re.compile(r'(?:^|\s)([\w$]+(?:\.[\w$]+)+)\.[\w$<>]+\(')


def package(sym, depth):
    if not sym.startswith('j:'):
        return sym.split(':', 1)[0]
    m = METHOD.search(sym[2:])
    if not m:
        return 'JIT stubs, interpreter, other'
    parts = m.group(1).split('.')[:-1]   # drop the class
    if parts[:2] == ['org', 'rdmacm4j']:
        return '.'.join(parts[:2 + depth])
    return '.'.join(parts[:3])


def main():
    out, n = sys.argv[1], sys.argv[2]
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    text = subprocess.run([sys.executable, __file__.replace('insn_packages.py', 'insn_profile.py'), out, n,
                           '1000000'], capture_output=True, text=True, check=True).stdout
    lines = text.splitlines()
    print(lines[0])
    sums = defaultdict(float)
    in_symbols = False
    for line in lines:
        if line.startswith('top '):
            in_symbols = True
            continue
        if not in_symbols or not line.strip():
            continue
        per_conn, _share, sym = line.split(None, 2)
        sums[package(sym.strip(), depth)] += float(per_conn.replace(',', ''))
    total = sum(sums.values())
    for key, v in sorted(sums.items(), key=lambda x: -x[1])[:30]:
        print(f'{v:>10,.0f} {100 * v / total:>5.1f}%  {key}')


if __name__ == '__main__':
    main()
