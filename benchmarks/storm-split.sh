#!/bin/bash
# Guest side of the warm storm's split (issue 21 item 1): C's cm_event_loop warm and CmBench warm
# (the launchers' C1 flags), K lone connections and then a storm of N set up and torn down in the
# same process, with the measurement window around ONE half of the storm (BENCH_WINDOW_STORM=setup
# or teardown): per connection the process's CPU, each thread's CPU, run-queue wait and slices
# (window.h / Window.java), and, counted by perf stat switched on and off by the window, syscalls by
# kind and context switches. rdmacm4j's JIT compilations go to NAME.jit (-Xlog:jit+compilation), the
# classes it loads (hidden ones included: what the JDK spins for lambdas, method handles and string
# concatenation) to NAME.classes (-Xlog:class+load), both stamped with the JVM's uptime.
# MODES (default "setup teardown"; "lone" puts the window on the lone connections K/2+1..K instead of
# the storm), WITH_C (default 1; 0 runs rdmacm4j only), JAVA_EXTRA (more JVM options for rdmacm4j's runs).
#   it/rig/guest.sh --out OUT -- env REPS=2 K=2000 N=500 bash benchmarks/storm-split.sh OUT JAR CEL_SOURCE_DIR
# (OUT must lie inside the checkout: the guest writes only there.) Summary:
#   python3 benchmarks/storm_split.py OUT
set -u
OUT=$1; JAR=$2; SRC=$3
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/jvm-flags.sh"   # the launchers' JVM flags
REPS=${REPS:-2}; K=${K:-2000}; N=${N:-500}; MODES=${MODES:-setup teardown}; WITH_C=${WITH_C:-1}
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
gcc -O2 -Wall -o /tmp/cel "$SRC/cm_event_loop.c" -lrdmacm -libverbs || exit 1
cp "$JAR" /tmp/storm-bench.jar   # a copy: a rebuild on the host during the run changes nothing measured
ev=raw_syscalls:sys_enter,context-switches,cpu-migrations
for s in ioctl write read futex epoll_wait epoll_ctl close mmap munmap madvise fcntl mprotect; do ev+=",syscalls:sys_enter_$s"; done
port=30500
run() {   # run NAME MODE CMD...
  local name=$1 mode=$2; shift 2
  rm -f /tmp/ctl /tmp/ack; mkfifo /tmp/ctl /tmp/ack
  port=$((port + 1))
  BENCH_WINDOW_STORM=$mode BENCH_PERF_CTL=/tmp/ctl BENCH_PERF_ACK=/tmp/ack timeout 900 \
    perf stat -x, -o "$OUT/$name.perf" -e "$ev" -D -1 --control fifo:/tmp/ctl,/tmp/ack -- \
    "$@" warm 192.0.2.1 192.0.2.3 $port "$K" "$((K / 2 + 1))" "$N" > "$OUT/$name.txt" 2>&1
  echo "$name rc $? $(date +%T)"
}
for rep in $(seq 1 "$REPS"); do
  for mode in ${MODES}; do
    [[ ${WITH_C} == 1 ]] && run "c-$mode-r$rep" "$mode" /tmp/cel
    # shellcheck disable=SC2086 # JAVA_EXTRA is a list of options
    run "j-$mode-r$rep" "$mode" java "${rdmacm4j_launcher_flags[@]}" ${JAVA_EXTRA:-} \
      "-Xlog:jit+compilation=debug:file=$OUT/j-$mode-r$rep.jit:uptime" \
      "-Xlog:class+load=info:file=$OUT/j-$mode-r$rep.classes:uptime" --enable-native-access=ALL-UNNAMED \
      -cp /tmp/storm-bench.jar org.rdmacm4j.benchmarks.CmBench
  done
done
