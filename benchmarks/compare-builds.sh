#!/usr/bin/env bash
# Runs INSIDE the guest (started by benchmarks/run-compare.sh): before/after figures of builds
# side by side in one boot. Each build is a snapshot dir (benchmarks.jar + examples/, see
# snapshot.sh); per repetition, every build in turn runs
#   - CmBench latency (K connections one at a time: cold first, p50 of the rest), and
#   - the cmtime twin's client, pipelined, N connections, against rdma-core's cmtime server,
# with the examples' launcher flags (C1, serial GC). Prints one summary line per run.
# Env: OUT, REPO, COMPARE_K (60), COMPARE_N (500), COMPARE_REPS (2). Args: NAME=DIR ...
set -uo pipefail
: "${OUT:?}"
k=${COMPARE_K:-60}
n=${COMPARE_N:-500}
reps=${COMPARE_REPS:-2}
server=192.0.2.1
client=192.0.2.3
c1=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ErrorFile="${OUT}/hs_err_%p.log")
port=22000
summary="${OUT}/summary.txt"
: > "${summary}"
note() { echo "compare: $*" | tee -a "${summary}" >&2; }
# shellcheck source=guest-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"
for rep in $(seq 1 "${reps}"); do
  for build in "$@"; do
    name=${build%%=*} dir=${build#*=}
    mp="${dir}/examples/classes"
    for j in "${dir}"/examples/*.jar; do mp+=":${j}"; done
    port=$((port + 1))
    f="${OUT}/latency-${name}-${rep}.txt"
    timeout -k 5 300 java "${c1[@]}" --enable-native-access=ALL-UNNAMED -cp "${dir}/benchmarks.jar" \
      org.rdmacm4j.benchmarks.CmBench latency "${server}" "${client}" "${port}" "${k}" > "${f}" 2>&1
    note "${name} rep ${rep} latency: exit $?, cold $(awk '/^latency_us 0 / {print $3}' "${f}") us, p50 of the rest $(awk '/^latency_us/ && $2 > 0 {print $3}' "${f}" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') us"
    port=$((port + 1))
    f="${OUT}/cmtime-${name}-${rep}.txt"
    timeout -k 5 300 cmtime -b "${server}" -p "${port}" -c "${n}" > "${f}.server" 2>&1 &
    spid=$!
    if await_listen "${server}" "${port}"; then
      timeout -k 5 300 java "${c1[@]}" --module-path "${mp}" --enable-native-access=org.rdmacm4j.verbs \
        -m org.rdmacm4j.examples/org.rdmacm4j.examples.Cmtime -s "${server}" -b "${client}" -p "${port}" -c "${n}" --pipelined > "${f}" 2>&1
      note "${name} rep ${rep} cmtime N=${n}: exit $?, $(grep '^connections/s' "${f}")"
    else
      note "${name} rep ${rep}: cmtime server never listened"
    fi
    kill "${spid}" 2>/dev/null; wait "${spid}" 2>/dev/null
  done
done
exit 0
