#!/bin/bash
# Guest side: where the kernel time of one storm half goes, C's cm_event_loop against CmBench
# (the launchers' flags, scripts/jvm-flags.sh; JAVA_EXTRA adds JVM options), both warm (K lone connections first), N connections set up and torn
# down; `perf record -a -g` (cpu-clock, whole guest, call graphs) switched on and off by the
# benchmark's own window around ONE half (BENCH_WINDOW_STORM=setup|teardown, as storm-split.sh).
# Writes, per program, NAME.txt (its output), NAME.perf.data and, resolved in the guest (where the
# kernel's symbols and C1's perf map live): NAME.comm.txt (samples by thread name and DSO),
# NAME.ksym.txt (kernel symbols of the event thread: C's one thread, rdmacm4j's dispatcher) and
# NAME.kcallers.txt (the same samples as caller chains, to see which syscall each kernel symbol
# serves), NAME.script.gz (every sample's thread and call chain, for benchmarks/storm_record.py:
# kernel time by system call per connection), NAME.frames.gz (the same with DSOs, for
# benchmarks/perf_frames.py: samples by thread and by Java method) and NAME.freq.
#   it/rig/guest.sh --timeout 900 --out OUT -- env MODE=teardown K=2000 N=500 \
#       bash benchmarks/storm-record.sh OUT JAR CEL_SOURCE_DIR
# (OUT must lie inside the checkout: the guest writes only there.) Then:
#   python3 benchmarks/storm_record.py OUT c-teardown j-teardown
set -u
OUT=$1; JAR=$2; SRC=$3
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/jvm-flags.sh"   # the launchers' JVM flags
MODE=${MODE:-teardown}; K=${K:-2000}; N=${N:-500}; FREQ=${FREQ:-999}
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
gcc -O2 -Wall -fno-omit-frame-pointer -o /tmp/cel "$SRC/cm_event_loop.c" -lrdmacm -libverbs || exit 1
cp "$JAR" /tmp/storm-bench.jar   # a copy: a rebuild on the host during the run changes nothing measured
port=30700
record() {   # record NAME EVENT-THREAD-COMM CMD...
  local name=$1 comm=$2; shift 2
  rm -f /tmp/ctl /tmp/ack; mkfifo /tmp/ctl /tmp/ack
  port=$((port + 1))
  BENCH_WINDOW_STORM=$MODE BENCH_PERF_CTL=/tmp/ctl BENCH_PERF_ACK=/tmp/ack timeout 900 \
    perf record -a -g -e cpu-clock -F "$FREQ" -D -1 --control fifo:/tmp/ctl,/tmp/ack \
    -o "$OUT/$name.perf.data" -- \
    "$@" warm 192.0.2.1 192.0.2.3 $port "$K" "$((K / 2 + 1))" "$N" > "$OUT/$name.txt" 2>&1
  echo "$name rc $? $(date +%T)"
  echo "$FREQ" > "$OUT/$name.freq"
  perf script -i "$OUT/$name.perf.data" -F comm,tid,ip,sym 2>/dev/null | gzip > "$OUT/$name.script.gz"
  # the same with each frame's DSO, for benchmarks/perf_frames.py (Java frames by method, per thread)
  perf script -i "$OUT/$name.perf.data" -F comm,tid,ip,sym,dso 2>/dev/null | gzip > "$OUT/$name.frames.gz"
  perf report -i "$OUT/$name.perf.data" --no-children --sort comm,dso --stdio -g none 2>/dev/null \
    | grep -v '^$' | head -40 > "$OUT/$name.comm.txt"
  perf report -i "$OUT/$name.perf.data" --no-children --comm "$comm" --dsos '[kernel.kallsyms]' \
    --sort sym --stdio -g none 2>/dev/null | grep -v '^$' | head -80 > "$OUT/$name.ksym.txt"
  perf report -i "$OUT/$name.perf.data" --no-children --comm "$comm" --dsos '[kernel.kallsyms]' \
    --sort sym --stdio -g caller,0.5,callee,function,percent --percent-limit 2 2>/dev/null \
    | grep -v '^$' | head -400 > "$OUT/$name.kcallers.txt"
}
record "c-$MODE" cel /tmp/cel
record "j-$MODE" rdmacm4j-dispat java "${rdmacm4j_launcher_flags[@]}" ${JAVA_EXTRA:-} \
  -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer \
  --enable-native-access=ALL-UNNAMED -cp /tmp/storm-bench.jar org.rdmacm4j.benchmarks.CmBench
echo done
