#!/usr/bin/env bash
# Issue 21's timeline, inside the soft-RoCE guest: for the C event loop and for rdmacm4j (the
# launchers' C1 flags), a perf record of
#   lone   TIMELINE_MARKS (3) lone warm connections after TIMELINE_WARMUP (1000) in the same process
#          (both ends in it; CmBench prints each one's caller-side monotonic timestamps and both
#          ends' histories), and
#   storm  a storm of TIMELINE_STORM_N (500) after the same warm-up, in a second process,
# each with the scheduler's switches and wake-ups, every syscall's entry and exit, and CPU-clock
# samples (user code by DSO), all on CLOCK_MONOTONIC, the clock System.nanoTime and the C program
# read. perf is switched on for the window only (window.h / Window.java drive its control fifo).
# benchmarks/Timeline turns each perf script into per-thread time by kind and the hand-offs.
#
# Run it with: PROFILE_SCRIPT=profile-timeline.sh benchmarks/run-profile.sh [RESULTS_DIR]
# Env: OUT (required), BENCH_JAR, CM_LOOP, REPO (the checkout: its scripts/jvm-flags.sh), TIMELINE_WARMUP,
# TIMELINE_MARKS, TIMELINE_STORM_N (0: no storm).
set -uo pipefail
: "${OUT:?}" "${CM_LOOP:?}" "${BENCH_JAR:?}"
warmup=${TIMELINE_WARMUP:-1000}
marks=${TIMELINE_MARKS:-3}
storm_n=${TIMELINE_STORM_N:-500}
server=192.0.2.1
client=192.0.2.3
port=22000
summary="${OUT}/summary.txt"
: > "${summary}"
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
# librdmacm gives every QP's CQs a completion channel (an fd): a storm of 500 with both ends in one
# process needs more than the default 1,024 descriptors (the JVM raises its own limit, C does not)
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
events=sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,raw_syscalls:sys_enter,raw_syscalls:sys_exit
{
  echo "date $(date -u +%Y-%m-%dT%H:%MZ) kernel $(uname -r) cpus $(nproc) clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
  echo "perf $(perf --version) events ${events},cpu-clock"
  echo "java $(java -version 2>&1 | head -2 | tail -1)"
} >> "${summary}"

# record NAME PERIOD_NS PROGRAM...: PROGRAM under perf record, switched on by the program's window
record() {
  local name=$1 period=$2; shift 2
  rm -f /tmp/tl-ctl /tmp/tl-ack
  mkfifo /tmp/tl-ctl /tmp/tl-ack
  port=$((port + 1))
  echo "command ${name}: perf record -a -k CLOCK_MONOTONIC -e ${events} -e cpu-clock -c ${period} -D -1 --control fifo:CTL,ACK -- $* ${server} ${client} PORT ..." >> "${summary}"
  BENCH_PERF_CTL=/tmp/tl-ctl BENCH_PERF_ACK=/tmp/tl-ack timeout -k 5 900 \
    perf record -q -a -k CLOCK_MONOTONIC -e "${events}" -e cpu-clock -c "${period}" -D -1 \
      --control fifo:/tmp/tl-ctl,/tmp/tl-ack -o "/tmp/${name}.data" -- \
      "$@" > "${OUT}/${name}.out" 2> "${OUT}/${name}.err"
  echo "${name}: exit $?" >> "${summary}"
  perf script -i "/tmp/${name}.data" -F comm,pid,tid,cpu,time,event,trace,ip,dso --ns > "${OUT}/${name}.perf.txt" 2> "${OUT}/${name}.script.err"
  rm -f "/tmp/${name}.data"
}

# The launchers' JVM flags (scripts/jvm-flags.sh, as run-all's c1 rows; until 2026-11-29 this ran
# C1 and the serial GC without the method-handle property); lone-rdmacm4j is the blocking caller
# (run-all's c1), lone-rdmacm4j-cb the program in C's loop's shape (c1cb: callbacks on the dispatcher).
source "${REPO:?}/scripts/jvm-flags.sh"
java_jvm=(java "${rdmacm4j_launcher_flags[@]}" --enable-native-access=ALL-UNNAMED)
cmbench=(-cp "${BENCH_JAR}" org.rdmacm4j.benchmarks.CmBench)
java_c1=("${java_jvm[@]}" "${cmbench[@]}")
java_c1cb=("${java_jvm[@]}" -Drdmacm4j.bench.driver=callbacks "${cmbench[@]}")
k=$((warmup + marks))
record lone-c 100000 "${CM_LOOP}" warm "${server}" "${client}" "$((port + 1))" "${k}" "$((warmup + 1))" 1
record lone-rdmacm4j 100000 "${java_c1[@]}" warm "${server}" "${client}" "$((port + 1))" "${k}" "$((warmup + 1))" 1
record lone-rdmacm4j-cb 100000 "${java_c1cb[@]}" warm "${server}" "${client}" "$((port + 1))" "${k}" "$((warmup + 1))" 1
if (( storm_n > 0 )); then   # TIMELINE_STORM_N=0: the lone connections only (the storm's recordings are large)
  export BENCH_WINDOW_STORM=1
  record storm-c 1000000 "${CM_LOOP}" warm "${server}" "${client}" "$((port + 1))" "${warmup}" "${warmup}" "${storm_n}"
  record storm-rdmacm4j 1000000 "${java_c1[@]}" warm "${server}" "${client}" "$((port + 1))" "${warmup}" "${warmup}" "${storm_n}"
fi
cat "${summary}"
