#!/usr/bin/env bash
# Downcall cost of ibv_wc_status_str: JMH (default / critical / errno-capture linkage) against a
# C loop built with gcc -O2 in the same run. Prints a Markdown table for docs/benchmarks.md.
# Usage: benchmarks/run-downcall-bench.sh   (after ./mvnw -q -pl verbs,benchmarks -am install -DskipTests)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${here}/.." && pwd)
[[ -n "${JAVA_HOME:-}" ]] || { source "${repo}/scripts/find-jdk.sh"; rdmacm4j_find_jdk; }
jar="${here}/target/benchmarks.jar"
[[ -f "${jar}" ]] || { echo "missing ${jar}: run ./mvnw -q -pl verbs,benchmarks -am install -DskipTests" >&2; exit 2; }
out="${here}/target/downcall"
mkdir -p "${out}"

gcc -O2 -o "${out}/downcall_loop" "${here}/src/main/c/downcall_loop.c" -libverbs
"${out}/downcall_loop" 10 20000000 > "${out}/c.txt"

java -jar "${jar}" DowncallBenchmark -rf json -rff "${out}/jmh.json" > "${out}/jmh.log"

python3 - "${out}/jmh.json" "${out}/c.txt" <<'PY'
import json, statistics, sys
calls = 1000
rows = {}
for b in json.load(open(sys.argv[1])):
    name = b["benchmark"].rsplit(".", 1)[1]
    samples = [x / calls for fork in b["primaryMetric"]["rawData"] for x in fork]
    rows[name] = samples
c = [float(l) for l in open(sys.argv[2]) if l.strip()]
rows = {"C loop (gcc -O2)": c, **rows}
base = statistics.median(c)
print("| call | samples | min ns/call | median ns/call | median / C |")
print("|---|---|---|---|---|")
for name, s in rows.items():
    print(f"| {name} | {len(s)} | {min(s):.2f} | {statistics.median(s):.2f} | {statistics.median(s) / base:.2f} |")
PY
