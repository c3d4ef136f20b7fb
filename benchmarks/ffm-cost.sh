#!/usr/bin/env bash
# Guest side of the native-path cost runs (issue 21 item 2): for each VARIANT=JAR in $JARS, REPS
# times interleaved, ConnectCost (per-thread CPU per warm connect+close cycle, connect p50) under
# the launchers' JIT flags; then C's cm_event_loop latency CPU per cycle (bash time, K2 - K1);
# then, once per variant, strace -f over a short run (syscalls inside the measured window, by
# thread) and a JFR recording (settings=profile).
#   env OUT JARS="base=/a.jar new=/b.jar" [FLAGS_base='-Dx=y' (a variant's own JVM flags) REPS=3 WARMUP=500 K=1000 CEL=/path/cm_event_loop STRACE=1
#       STRACE_W=100 STRACE_K=200 CEL_STRACE=1 JFR=1 TRACE_JARS=(default JARS) PRIME=1 ORDER=alternate]
set -uo pipefail
: "${OUT:?}" "${JARS:?}"
# A run waiting for a guest slot can be given other variants: $OUT/jars, $OUT/trace-jars if present.
[[ -f ${OUT}/jars ]] && JARS=$(cat "${OUT}/jars")
TRACE_JARS=${TRACE_JARS:-${JARS}}
[[ -f ${OUT}/trace-jars ]] && TRACE_JARS=$(cat "${OUT}/trace-jars")
[[ -f ${OUT}/reps ]] && REPS=$(cat "${OUT}/reps")
[[ -f ${OUT}/no-jfr ]] && JFR=0
[[ -f ${OUT}/no-strace ]] && STRACE=0
reps=${REPS:-3}; warmup=${WARMUP:-500}; k=${K:-1000}
server=192.0.2.1; client=192.0.2.3; port=23000
c1=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED)
summary="${OUT}/summary.txt"
note() { echo "ffm-cost: $*" | tee -a "${summary}" >&2; }
note "kernel $(uname -r), $(java -version 2>&1 | sed -n 2p), jars ${JARS}"
run_cc() {   # run_cc LABEL JAR WARMUP K [java prefix/extra flags...]
  local label=$1 jar=$2 w=$3 n=$4; shift 4
  port=$((port + 1))
  local f="${OUT}/${label}.${port}.txt" t0=${EPOCHREALTIME}
  local variant=${label#cold-}; variant=${variant%%-*}
  local vflags="FLAGS_${variant}"   # per-variant JVM flags: FLAGS_<variant>='-D...' (e.g. an A/B of one jar)
  timeout -k 5 900 "$@" java "${c1[@]}" ${JAVA_EXTRA:-} ${!vflags:-} -cp "${jar}" org.rdmacm4j.benchmarks.ConnectCost "${server}" "${client}" "${port}" "${w}" "${n}" > "${f}" 2>&1
  local rc=$? t1=${EPOCHREALTIME}
  note "${label} W=${w} K=${n}: exit ${rc}, wall $(echo "${t1} - ${t0}" | bc) s; $(grep -E '^(open_ms|first_ms|connect_us|process)' "${f}" | tr '\n' ';')"
  grep -E '^thread' "${f}" | awk '$4+$6 >= 50' | sed 's/^/    /' | tee -a "${summary}" >&2
}
# In both alone A/Bs of 2026-11-27 (docs/benchmarks.md) the guest's second JVM, the first repetition
# of the second variant, was slower on every figure, early in a fresh guest's life. So one short JVM
# run goes first and is not counted (PRIME=0 to skip it), and the variants run in reverse order on
# every other repetition (ORDER=fixed keeps the listed order), so no variant always runs in a slot.
if [[ ${PRIME:-1} == 1 ]]; then
  first=${JARS%% *}
  run_cc "prime" "${first#*=}" 100 100
fi
# order_variants REP: sets variants to $JARS in the order of repetition REP (reversed on every
# other one unless ORDER=fixed), for the warm and the cold samples alike.
order_variants() {
  variants=(${JARS})
  if [[ ${ORDER:-alternate} == alternate ]] && (( $1 % 2 == 0 )); then
    local reversed=() i
    for ((i = ${#variants[@]} - 1; i >= 0; i--)); do reversed+=("${variants[i]}"); done
    variants=("${reversed[@]}")
  fi
}
for rep in $(seq 1 "${reps}"); do
  order_variants "${rep}"
  for v in "${variants[@]}"; do
    run_cc "${v%%=*}-r${rep}" "${v#*=}" "${warmup}" "${k}"
  done
done
# Cold first connections: a fresh JVM (or C process) per sample, one connection each.
COLD_REPS=${COLD_REPS:-0}
[[ -f ${OUT}/cold-reps ]] && COLD_REPS=$(cat "${OUT}/cold-reps")
for rep in $(seq 1 "${COLD_REPS}"); do
  order_variants "${rep}"
  for v in "${variants[@]}"; do
    run_cc "cold-${v%%=*}-c${rep}" "${v#*=}" 0 1
  done
  if [[ -n ${CEL:-} ]]; then
    port=$((port + 1))
    timeout -k 5 60 "${CEL}" latency "${server}" "${client}" "${port}" 1 > "${OUT}/c-cold-c${rep}.txt" 2>&1
    note "C cm_event_loop cold c${rep}: $(grep '^latency_us 0 ' "${OUT}/c-cold-c${rep}.txt")"
  fi
done
if [[ -n ${CEL:-} ]]; then
  for rep in $(seq 1 "${reps}"); do
    for kk in 300 1300; do
      port=$((port + 1))
      TIMEFORMAT='%U %S %R'
      { time timeout -k 5 300 "${CEL}" latency "${server}" "${client}" "${port}" "${kk}" > "${OUT}/c-${kk}-r${rep}.txt" 2>&1; } 2> "${OUT}/c-${kk}-r${rep}.time"
      note "C cm_event_loop latency K=${kk} r${rep}: user sys wall = $(cat "${OUT}/c-${kk}-r${rep}.time"), p50 $(awk '$1=="latency_us" && $2>=100 {print $3}' "${OUT}/c-${kk}-r${rep}.txt" | sort -n | awk '{a[NR]=$1} END {print a[int(NR/2)+1]}') us"
    done
  done
fi
if [[ ${STRACE:-1} == 1 ]]; then
  for v in ${TRACE_JARS}; do
    run_cc "${v%%=*}-strace" "${v#*=}" "${STRACE_W:-100}" "${STRACE_K:-200}" strace -f -o "${OUT}/${v%%=*}.strace" -qq
  done
  if [[ -n ${CEL:-} && ${CEL_STRACE:-1} == 1 ]]; then
    port=$((port + 1))
    strace -f -c -o "${OUT}/c-strace-200.txt" "${CEL}" latency "${server}" "${client}" "${port}" 200 > /dev/null 2>&1
    port=$((port + 1))
    strace -f -c -o "${OUT}/c-strace-100.txt" "${CEL}" latency "${server}" "${client}" "${port}" 100 > /dev/null 2>&1
  fi
fi
if [[ ${JFR:-1} == 1 ]]; then
  for v in ${TRACE_JARS}; do
    JAVA_EXTRA="-XX:StartFlightRecording=filename=${OUT}/${v%%=*}.jfr,settings=profile,dumponexit=true" \
      run_cc "${v%%=*}-jfr" "${v#*=}" "${warmup}" "${k}"
  done
fi
note done
