#!/usr/bin/env bash
# Profiles rdmacm4j's connection setup path in the soft-RoCE guest: the cmtime twin's CLIENT at
# N connections (pipelined) against rdma-core's cmtime SERVER (so only our side varies), under
#   c1      the examples' launcher flags (-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
#   c2      full tiered compilation (C2), serial GC
#   c1-aot  C1 with an AOT cache (JEP 483/514/515) trained by a 100-connection run first
#   c1-jfr  C1 with a JFR recording (settings=profile: execution samples, allocation samples, locks)
# each PROFILE_REPS times interleaved with cmtime's own client, plus the cold first connection
# (CmBench latency) with and without the AOT cache. Raw output, the .jfr and summary.txt land
# in the results dir.
#
# Run it with benchmarks/run-profile.sh (one guest boot, on a copy of the build).
#
# Env: OUT (required), PROFILE_N (500), PROFILE_REPS (2), BENCH_JAR, EXAMPLES_MODULE_PATH, REPO.
set -uo pipefail
repo=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
: "${OUT:?}"
n=${PROFILE_N:-500}
reps=${PROFILE_REPS:-2}
server=192.0.2.1
client=192.0.2.3
jar="${BENCH_JAR:-${repo}/benchmarks/target/benchmarks.jar}"
mp="${EXAMPLES_MODULE_PATH:-${repo}/examples/target/classes:$(cat "${repo}/examples/target/classpath.txt")}"
twin=(--module-path "${mp}" --enable-native-access=org.rdmacm4j.verbs -m org.rdmacm4j.examples/org.rdmacm4j.examples.Cmtime)
c1=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ErrorFile="${OUT}/hs_err_%p.log")
aot="${OUT}/cmtime.aot"
port=21000
mkdir -p "${OUT}"
summary="${OUT}/summary.txt"
: > "${summary}"
note() { echo "profile: $*" | tee -a "${summary}" >&2; }

# shellcheck source=guest-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

# One client run against a fresh cmtime server: run_client LABEL COUNT CLIENT_COMMAND...
run_client() {
  local label=$1 count=$2; shift 2
  port=$((port + 1))
  local f="${OUT}/${label}.${port}.txt"
  timeout -k 5 400 cmtime -b "${server}" -p "${port}" -c "${count}" > "${f}.server" 2>&1 &
  local spid=$!
  await_listen "${server}" "${port}" || { note "${label}: cmtime server never listened"; kill "${spid}"; return 1; }
  local t0=${EPOCHREALTIME}
  timeout -k 5 300 "$@" -s "${server}" -b "${client}" -p "${port}" -c "${count}" > "${f}" 2>&1
  local rc=$? t1=${EPOCHREALTIME}
  kill "${spid}" 2>/dev/null; wait "${spid}" 2>/dev/null
  local rate
  rate=$(sed -n 's/^connections\/s: connect \([0-9.]*\) .*connect + close \([0-9.]*\) (\([0-9.]*\) ms).*/connect \1 conn\/s, connect+close \2 conn\/s/p' "${f}")
  if [[ -z ${rate} ]]; then   # cmtime's own client: sum of its step totals
    rate=$(awk -F: -v n="${count}" '/^(create id|bind addr|resolve addr|resolve route|create qp|connect) *:/ {split($2, v, " "); s += v[1]}
      /^(disconnect|destroy) *:/ {split($2, v, " "); t += v[1]} END {printf "connect %.1f conn/s, teardown %.1f conn/s", n / (s / 1000), n / (t / 1000)}' "${f}")
  fi
  note "${label} N=${count}: exit ${rc}, process wall $(echo "${t1} - ${t0}" | bc) s, ${rate}"
}

note "kernel $(uname -r), $(java -version 2>&1 | sed -n 2p)"
# Training run for the AOT cache (JDK 25: one step, -XX:AOTCacheOutput).
run_client aot-train 100 java "${c1[@]}" -XX:AOTCacheOutput="${aot}" "${twin[@]}" --pipelined
ls -l "${aot}" >> "${summary}" 2>&1

for rep in $(seq 1 "${reps}"); do
  run_client c-cmtime "${n}" cmtime
  run_client c1 "${n}" java "${c1[@]}" "${twin[@]}" --pipelined
  run_client c2 "${n}" java -XX:+UseSerialGC -XX:ErrorFile="${OUT}/hs_err_%p.log" "${twin[@]}" --pipelined
  [[ -f ${aot} ]] && run_client c1-aot "${n}" java "${c1[@]}" -XX:AOTCache="${aot}" "${twin[@]}" --pipelined
done
run_client c1-jfr "${n}" java "${c1[@]}" \
  -XX:StartFlightRecording=filename="${OUT}/setup-c1.jfr",settings=profile,dumponexit=true "${twin[@]}" --pipelined

# The cold first connection, with and without the AOT cache of the cmtime twin's run (the same
# classes: RdmaCm, the dispatcher, the connect path).
lat_aot="${OUT}/latency.aot"
port=$((port + 1))
timeout -k 5 300 java "${c1[@]}" -XX:AOTCacheOutput="${lat_aot}" --enable-native-access=ALL-UNNAMED -cp "${jar}" \
  org.rdmacm4j.benchmarks.CmBench latency "${server}" "${client}" "${port}" 20 > "${OUT}/latency-train.txt" 2>&1
for rep in $(seq 1 "${reps}"); do
  for v in plain aot; do
    port=$((port + 1))
    extra=()
    [[ ${v} == aot && -f ${lat_aot} ]] && extra=(-XX:AOTCache="${lat_aot}")
    t0=${EPOCHREALTIME}
    timeout -k 5 300 java "${c1[@]}" "${extra[@]}" --enable-native-access=ALL-UNNAMED -cp "${jar}" \
      org.rdmacm4j.benchmarks.CmBench latency "${server}" "${client}" "${port}" 20 > "${OUT}/latency-${v}-${rep}.txt" 2>&1
    t1=${EPOCHREALTIME}
    note "latency ${v}: process wall $(echo "${t1} - ${t0}" | bc) s, cold $(awk '/^latency_us 0 / {print $3}' "${OUT}/latency-${v}-${rep}.txt") us, then $(awk '/^latency_us/ && $2 > 0 {print $3}' "${OUT}/latency-${v}-${rep}.txt" | sort -g | awk '{a[NR]=$1} END {print a[int(NR/2)+1]}') us (p50)"
  done
done
exit 0
