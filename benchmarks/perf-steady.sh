#!/usr/bin/env bash
# Guest side: perf (cpu-clock, call graphs, C1's JIT perf map) of VerbsFloor and ConnectCost in the
# steady state, one after the other: each runs long enough that recording starts after DELAY s
# (past its warm-up) and lasts DUR s. Writes OUT/NAME.txt (the program's output), NAME.script.gz
# (perf script: comm, tid, frames, resolved in the guest, where the JIT map lives) and NAME.dso.txt.
#   it/rig/guest.sh --timeout 1200 --out OUT -- env OUT=OUT JAR=benchmarks.jar bash benchmarks/perf-steady.sh
# Then: python3 benchmarks/perf_frames.py OUT/NAME.script.gz [COMM] [TOP] [CALLERS-OF ...]
set -u
: "${OUT:?}" "${JAR:?}"
DELAY=${DELAY:-50}; DUR=${DUR:-30}
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
port=27100
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/jvm-flags.sh"   # the launchers' JVM flags
opts=("${rdmacm4j_launcher_flags[@]}" --enable-native-access=ALL-UNNAMED
      -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer)
run() {
  local name=$1; shift
  port=$((port + 1))
  java "${opts[@]}" -cp "${JAR}" "$@" > "${OUT}/${name}.txt" 2>&1 &
  local pid=$!
  sleep "${DELAY}"
  perf record -e cpu-clock -F 997 -g -p "${pid}" -o "${OUT}/${name}.perf.data" -- sleep "${DUR}" > "${OUT}/${name}.record.txt" 2>&1
  wait "${pid}"; echo "${name} rc $?"
  cp "/tmp/perf-${pid}.map" "${OUT}/${name}.map" 2>/dev/null
  perf script -i "${OUT}/${name}.perf.data" -F comm,tid,ip,sym,dso 2>/dev/null | gzip > "${OUT}/${name}.script.gz"
  perf report -i "${OUT}/${name}.perf.data" --no-children --sort comm,dso --stdio -g none 2>/dev/null | grep -v "^$" | head -40 > "${OUT}/${name}.dso.txt"
}
# 12,000 lone connections and 6,000 + 4,000 cycles: both still running when the recording ends
# PROGS (default "vfloor cc"): which of the two run
[[ " ${PROGS:-vfloor cc} " == *" vfloor "* ]] && run vfloor org.rdmacm4j.benchmarks.VerbsFloor latency 192.0.2.1 192.0.2.3 "${port}" "${VF_K:-12000}"
[[ " ${PROGS:-vfloor cc} " == *" cc "* ]] && run cc org.rdmacm4j.benchmarks.ConnectCost 192.0.2.1 192.0.2.3 "${port}" "${CC_W:-4000}" "${CC_K:-6000}"
echo done
