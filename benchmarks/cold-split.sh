#!/usr/bin/env bash
# Guest side of the cold first connection split (issue 21 part 3, docs/benchmarks.md "The cold
# first connection, split"): per repetition, C's first connection (`cm_event_loop latency ... 3`),
# then a fresh JVM per ColdSplit VARIANT (plain, prelinked, trained, trained-prelinked) and per AOT
# MODE (off: no cache; on: the build's cache), each making 3 connections; the order of the JVMs
# reversed on every other repetition. The jar and the cache are copied into the guest's tmpfs first
# (cp -p: the JVM checks the jar's size and time against the cache), as guest-driver.sh's cold group.
# One uncounted C run and JVM run go first (PRIME=0 to skip them).
#   env OUT JAR AOT CEL [REPS=3 VARIANTS='plain prelinked trained trained-prelinked' MODES='off on' PRIME=1]
# Files in OUT: VARIANT-MODE-rN.txt (ColdSplit's output plus launched_epoch_us), .cl (-Xlog:class+load
# with System.nanoTime() stamps), .aot (-Xlog:aot), c-rN.txt; summary.txt.
set -uo pipefail
: "${OUT:?}" "${JAR:?}" "${AOT:?}" "${CEL:?}"
reps=${REPS:-3}
server=192.0.2.1; client=192.0.2.3; port=24000
c1=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED)
summary="${OUT}/summary.txt"
note() { echo "cold-split: $*" | tee -a "${summary}" >&2; }
mkdir -p /tmp/cold && cp -p "${JAR}" /tmp/cold/benchmarks.jar && cp -p "${AOT}" /tmp/cold/benchmarks.aot
note "kernel $(uname -r), $(java -version 2>&1 | sed -n 2p), jar ${JAR}, cache ${AOT}"
run_c() {   # run_c LABEL
  port=$((port + 1))
  timeout -k 5 60 "${CEL}" latency "${server}" "${client}" "${port}" 3 > "${OUT}/c-$1.txt" 2>&1
  note "C $1: exit $?, $(grep '^latency_us' "${OUT}/c-$1.txt" | awk '{printf "%s ", $3}')"
}
run_j() {   # run_j VARIANT MODE LABEL
  local v=$1 mode=$2 f="${OUT}/$1-$2-$3" aot=()
  port=$((port + 1))
  [[ ${mode} == on ]] && aot=(-XX:AOTCache=/tmp/cold/benchmarks.aot -Xlog:aot=info:file="${f}.aot")
  local t0; t0=$(date +%s%N)
  timeout -k 5 600 java "${c1[@]}" "${aot[@]}" -Xlog:class+load=info:file="${f}.cl":tn \
    -cp /tmp/cold/benchmarks.jar org.rdmacm4j.benchmarks.ColdSplit "${v}" "${server}" "${client}" "${port}" 3 \
    > "${f}.txt" 2>&1
  local rc=$? t1; t1=$(date +%s%N)
  echo "launched_epoch_us $((t0 / 1000)) exited_epoch_us $((t1 / 1000))" >> "${f}.txt"
  local opened=""
  [[ ${mode} == on ]] && { grep -q 'Opened AOT cache' "${f}.aot" && opened=", cache opened" || opened=", CACHE NOT OPENED"; }
  note "${v} ${mode} $3: exit ${rc}, wall $(( (t1 - t0) / 1000000 )) ms${opened}; $(grep '^latency_us' "${f}.txt" | awk '{printf "%s ", $3}')"
}
if [[ ${PRIME:-1} == 1 ]]; then
  run_c prime
  run_j plain off prime
fi
for rep in $(seq 1 "${reps}"); do
  run_c "r${rep}"
  jobs=()
  for v in ${VARIANTS:-plain prelinked trained trained-prelinked}; do
    for m in ${MODES:-off on}; do jobs+=("${v} ${m}"); done
  done
  if (( rep % 2 == 0 )); then
    rev=(); for ((i = ${#jobs[@]} - 1; i >= 0; i--)); do rev+=("${jobs[i]}"); done; jobs=("${rev[@]}")
  fi
  for j in "${jobs[@]}"; do
    read -r v m <<< "${j}"
    run_j "${v}" "${m}" "r${rep}"
  done
done
note done
