#!/usr/bin/env python3
"""What the JIT compiled inside a benchmark's measurement window: from a program's
-Xlog:jit+compilation=debug:file=NAME.jit:uptime log and its output's window_start_jvm_uptime_ms /
window_end_jvm_uptime_ms lines (Window.java), the compilations that started inside the window,
counted and summed by package and by class (bytecode bytes as the log gives them), and the methods.

    python3 benchmarks/jit_window.py OUT/NAME.jit OUT/NAME.txt [TOP]
"""
import re
import sys
from collections import Counter

LINE = re.compile(r'^\[(\d+(?:\.\d+)?)s\].*?\s([\w$/.]+)::([\w$<>]+)\s.*?\((\d+) bytes\)')


def window(txt):
    start = end = None
    with open(txt, errors='replace') as f:
        for line in f:
            if line.startswith('window_start_jvm_uptime_ms'):
                start = float(line.split()[1]) / 1000
            elif line.startswith('window_end_jvm_uptime_ms'):
                end = float(line.split()[1]) / 1000
    if start is None or end is None:
        sys.exit(f'{txt}: no window_start_jvm_uptime_ms / window_end_jvm_uptime_ms lines')
    return start, end


def main():
    jit, txt = sys.argv[1], sys.argv[2]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    start, end = window(txt)
    methods, by_pkg, by_class, size_pkg = [], Counter(), Counter(), Counter()
    with open(jit, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if not m or not start <= float(m.group(1)) <= end:
                continue
            cls = m.group(2).replace('/', '.')
            pkg = cls.rsplit('.', 1)[0] if '.' in cls else '(default)'
            if pkg.startswith('org.rdmacm4j.'):
                pkg = '.'.join(pkg.split('.')[:4])
            else:
                pkg = '.'.join(pkg.split('.')[:3])
            methods.append((float(m.group(1)), cls + '::' + m.group(3), int(m.group(4))))
            by_pkg[pkg] += 1
            size_pkg[pkg] += int(m.group(4))
            by_class[cls] += 1
    print(f'window {start:.3f}-{end:.3f} s: {len(methods)} compilations started inside it')
    for pkg, n in by_pkg.most_common(20):
        print(f'  {n:5d} methods {size_pkg[pkg]:7d} bytes  {pkg}')
    print('classes:')
    for cls, n in by_class.most_common(top):
        print(f'  {n:5d}  {cls}')
    print('methods (uptime, bytes):')
    for t, name, size in methods[:top]:
        print(f'  {t:9.3f} {size:6d}  {name}')


if __name__ == '__main__':
    main()
