"""Summary of benchmarks/cold-ab.sh: per variant the first connection (ms) per repetition, min/median, the ratio to C of the same repetition and the median of those ratios."""
import sys, re, statistics as st, collections
rows = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    m = re.match(r'r(\d+) (\S+) ([\d.]+)', l)
    if m: rows[m.group(2)][int(m.group(1))] = float(m.group(3)) / 1000
c = rows.pop('C')
for name, d in rows.items():
    reps = sorted(d)
    ratios = [d[r] / c[r] for r in reps if r in c]
    vals = [d[r] for r in reps]
    print(f"{name}: ms {' / '.join(f'{v:.0f}' for v in vals)}; min/median {min(vals):.0f} / {st.median(vals):.0f}; "
          f"ratio per rep {' / '.join(f'{x:.1f}' for x in ratios)}; median of ratios {st.median(ratios):.1f}x, min {min(ratios):.1f}x")
print(f"C: ms {' / '.join(f'{c[r]:.1f}' for r in sorted(c))}; min/median {min(c.values()):.1f} / {st.median(c.values()):.1f}")
