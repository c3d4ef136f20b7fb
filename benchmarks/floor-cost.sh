#!/usr/bin/env bash
# Guest side of the floor runs (issue 21): what one warm connect + close cycle costs C's loop, the
# same loop in Java over raw FFM (FfmFloor: no framework), and rdmacm4j (ConnectCost), in one guest
# boot, REPS times with the programs in a rotating order. Per program and repetition: CPU per cycle
# of the whole process over connections K1..K2 (bash time of a K2 run minus a K1 run, as
# benchmarks/ffm-cost.sh measures C) and the p50 of the lone connections from K1 on.
#   env OUT JAR CEL=/path/cm_event_loop [REPS=3 K1=1000 K2=2000 PROGRAMS="c floor-c1 floor-jdk rdmacm4j"]
# Programs: c (cm_event_loop latency), floor-c1 (FfmFloor under the launchers' JIT flags), floor-jdk
# (FfmFloor under the JDK's defaults), rdmacm4j (ConnectCost under the launchers' flags, WARMUP=K1,
# K=K2-K1: its own per-thread CPU and p50 over the same connections).
# Summary: python3 benchmarks/floor_summary.py OUT
set -uo pipefail
: "${OUT:?}" "${JAR:?}" "${CEL:?}"
reps=${REPS:-3}; k1=${K1:-1000}; k2=${K2:-2000}
programs=(${PROGRAMS:-c floor-c1 floor-jdk rdmacm4j})
server=192.0.2.1; client=192.0.2.3; port=24000
launchers=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED)
summary="${OUT}/summary.txt"
note() { echo "floor-cost: $*" | tee -a "${summary}" >&2; }
note "kernel $(uname -r), $(java -version 2>&1 | sed -n 2p), jar ${JAR}, K1=${k1} K2=${k2}"
command_of() {   # command_of PROGRAM K: the command words of a lone-connection run of K connections
  port=$((port + 1))
  case $1 in
    c) cmd=("${CEL}" latency "${server}" "${client}" "${port}" "$2") ;;
    floor-c1) cmd=(java "${launchers[@]}" -cp "${JAR}" org.rdmacm4j.benchmarks.FfmFloor latency "${server}" "${client}" "${port}" "$2") ;;
    floor-jdk) cmd=(java --enable-native-access=ALL-UNNAMED -cp "${JAR}" org.rdmacm4j.benchmarks.FfmFloor latency "${server}" "${client}" "${port}" "$2") ;;
    *) echo "unknown program $1" >&2; return 1 ;;
  esac
}
run_timed() {   # run_timed PROGRAM REP K
  local f="${OUT}/$1-k$3-r$2"
  command_of "$1" "$3" || return
  TIMEFORMAT='%U %S %R'
  { time timeout -k 5 600 "${cmd[@]}" > "${f}.txt" 2>&1; } 2> "${f}.time"
  local rc=$?
  note "$1 K=$3 r$2: exit ${rc}, user sys wall = $(tail -1 "${f}.time"), connections $(grep -c '^latency_us' "${f}.txt")"
}
run_cc() {   # run_cc REP
  port=$((port + 1))
  local f="${OUT}/rdmacm4j-r$1.txt"
  timeout -k 5 900 java "${launchers[@]}" -cp "${JAR}" org.rdmacm4j.benchmarks.ConnectCost "${server}" "${client}" "${port}" "${k1}" "$((k2 - k1))" > "${f}" 2>&1
  note "rdmacm4j r$1: exit $?, $(grep -E '^(process|connect_us)' "${f}" | tr '\n' ';')"
}
# One uncounted short run first: a fresh guest's first JVM is slower on every figure.
# It also checks the floor program: a floor that cannot connect stops the run here.
command_of floor-c1 100 && timeout -k 5 300 "${cmd[@]}" > "${OUT}/prime.txt" 2>&1
rc=$?
note "prime (FfmFloor, 100 connections): exit ${rc}, connections $(grep -c '^latency_us' "${OUT}/prime.txt")"
if (( rc != 0 )); then
  note "the floor program failed: $(tail -3 "${OUT}/prime.txt" | tr '\n' ' ')"
  exit 1
fi
n=${#programs[@]}
for rep in $(seq 1 "${reps}"); do
  for ((j = 0; j < n; j++)); do
    p=${programs[$(((j + rep - 1) % n))]}   # rotate: no program always runs in the same slot
    if [[ ${p} == rdmacm4j ]]; then
      run_cc "${rep}"
    else
      run_timed "${p}" "${rep}" "${k1}"
      run_timed "${p}" "${rep}" "${k2}"
    fi
  done
done
note done
