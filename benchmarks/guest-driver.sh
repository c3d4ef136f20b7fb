#!/usr/bin/env bash
# Runs INSIDE the soft-RoCE guest (started by benchmarks/run-all.sh through it/rig/guest.sh): every
# pair of programs, rdmacm4j then C, interleaved A B A B, BENCH_REPS times, each command under its
# own deadline. Raw output goes to $OUT/raw/, one figure value per line to $OUT/results.tsv
# (figure <TAB> implementation <TAB> repetition <TAB> value), the exact commands to
# $OUT/commands.txt and the environment to $OUT/meta.txt. benchmarks/BenchReport turns them into
# docs/benchmarks.md and docs/connect-rate.png.
#
# Env (set by run-all.sh): OUT (results dir), REPO (the checkout), BENCH_JAR, EXAMPLES_MODULE_PATH (copies of the
# examples' classes and jars), CM_LOOP (the built C event loop), MSG_PINGPONG (the built C message
# round trip), BENCH_REPS, BENCH_NS (connection counts), BENCH_LOCKSTEP (1 when the twin has
# --lockstep), BENCH_MEMORY (connection counts for the memory figure), BENCH_MEMORY_SECONDS,
# BENCH_PINGPONG_WARMUP / BENCH_PINGPONG_COUNT (untimed and timed round trips), BENCH_ONLY (the
# figure groups to run, space-separated, of: cmtime latency warm storm pingpong rping ucmatose writebw
# memory; default all), BENCH_COLD_AOT (the cold group's AOT variants, "off on"; see cold_run), and for the warm group (issue 21: warm and cold apart) BENCH_WARM_K (lone
# connections per process, 2000), BENCH_WARM_FROM (the first connection of the warm window, 1001),
# BENCH_WARM_STORM_N (500), BENCH_JDK_REPS (how many repetitions run the JIT settings other than
# c1 and c1cb, 1), BENCH_JITS (the JIT settings the rdmacm4j rows run under, "c1 c1cb jdk":
# c1 = the launchers' -XX:TieredStopAtLevel=1, jdk = the JDK's default tiered JIT, c1hot = c1 with
# -XX:CompileThresholdScaling=0.05 (C1 compiles a method after a twentieth of the usual calls and
# loops: code run once per connection is compiled within the first connections instead of hundreds
# later, docs/benchmarks.md "The JIT that had not settled"), c1inl = c1 with C1's inlining limits raised
# (BENCH_C1INL_FLAGS, default -XX:C1MaxInlineSize=70 -XX:C1InlineStackLimit=10); all with the
# launchers' -XX:+UseSerialGC), c1mhc = c1 without -Djava.lang.invoke.MethodHandle.CUSTOMIZE_THRESHOLD=-1
# (the launchers' flags before s40), c1cc2 = c1 with two C1 compiler threads (-XX:CICompilerCount=2),
# c1aot = c1 with the build's AOT cache (BENCH_AOT_CACHE), as
# examples/launch.sh runs the examples (-XX:AOTMode=on: a run that cannot map it fails, not runs cold),
# c1cb = c1 with the warm group's connections driven from callbacks (not a JIT setting, a program
# shape: CmBench -Drdmacm4j.bench.driver=callbacks, each lone connection started from the callback
# that saw the one before it closed, the storms' ends counted by callbacks, on the dispatcher with a
# direct callback executor, as C's loop reacts to events; c1 is the blocking caller's form; both run
# in every repetition).
set -uo pipefail
repo=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
: "${OUT:?}" "${CM_LOOP:?}"
reps=${BENCH_REPS:-3}
only=${BENCH_ONLY:-all}
groups="cmtime latency warm cold storm pingpong rping ucmatose writebw memory"
for g in ${only}; do
  [[ ${g} == all || " ${groups} " == *" ${g} "* ]] || { echo "bench: BENCH_ONLY: unknown group ${g} (known: ${groups})" >&2; exit 2; }
done
# "all" is every group but latency (K = 100 lone connections of a fresh process: the warm group's
# cold first connection and warm window measure the same thing apart); latency runs when named.
wanted() {   # wanted GROUP: is GROUP among BENCH_ONLY's groups
  [[ (" ${only} " == *" all "* && $1 != latency) || " ${only} " == *" $1 "* ]]
}
ns=${BENCH_NS:-100 500}
server=192.0.2.1
client=192.0.2.3
jar="${BENCH_JAR:-${repo}/benchmarks/target/benchmarks.jar}"
# The same JVM flags as the examples' launchers (examples/bin/*, scripts/jvm-flags.sh): C1 only,
# serial GC, no method-handle customization.
source "${repo}/scripts/jvm-flags.sh"
c1=("${rdmacm4j_launcher_flags[@]}")
# c1mhc: the launchers' flags before s40 (method handles customized after 128 calls, the JDK's default).
c1mhc=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
# c1inl: C1 inlining deeper and bigger methods than its defaults (C1MaxInlineSize 35 bytecodes,
# C1InlineStackLimit 5): the FFM downcall path and the per-step calls are chains of small methods
# just over the defaults (docs/benchmarks.md, "C1's inlining limits", s38-prof1).
c1inl_flags="${BENCH_C1INL_FLAGS:--XX:C1MaxInlineSize=70 -XX:C1InlineStackLimit=10}"
java_cmd=(java "${c1[@]}" --enable-native-access=ALL-UNNAMED -cp "${jar}")
# java_jit JIT: the CmBench java command under one of BENCH_JITS (c1: the launchers' flags; jdk: the
# JDK's default tiered JIT, the launchers' GC kept so that only the JIT differs).
java_jit() {
  case "$1" in
    c1) echo java "${c1[@]}" --enable-native-access=ALL-UNNAMED -cp "${jar}" ;;
    jdk) echo java -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -cp "${jar}" ;;
    c1hot) echo java "${c1[@]}" -XX:CompileThresholdScaling=0.05 --enable-native-access=ALL-UNNAMED -cp "${jar}" ;;
    c1mn) echo java "${c1[@]}" -Xmn96m --enable-native-access=ALL-UNNAMED -cp "${jar}" ;;
    c1inl) echo java "${c1[@]}" ${c1inl_flags} --enable-native-access=ALL-UNNAMED -cp "${jar}" ;;
    c1mhc) echo java "${c1mhc[@]}" --enable-native-access=ALL-UNNAMED -cp "${jar}" ;;
    c1aot)   # the launchers' JVM: their flags and the build's AOT cache, jar and cache in tmpfs (cold_copy)
      cold_copy
      [[ -f /tmp/cold/benchmarks.aot ]] || { note "c1aot: no AOT cache for ${jar} (BENCH_AOT_CACHE)"; return 1; }
      echo java "${c1[@]}" -XX:AOTCache=/tmp/cold/benchmarks.aot -XX:AOTMode=on --enable-native-access=ALL-UNNAMED \
        -cp /tmp/cold/benchmarks.jar ;;
    c1cc2) echo java "${c1[@]}" -XX:CICompilerCount=2 --enable-native-access=ALL-UNNAMED -cp "${jar}" ;;
    c1cb)   # not a JIT setting: c1, the warm group's lone connections driven from callbacks on the dispatcher
      echo java "${c1[@]}" -Drdmacm4j.bench.driver=callbacks --enable-native-access=ALL-UNNAMED -cp "${jar}" ;;
    *) note "BENCH_JITS: unknown JIT setting $1 (known: c1 c1aot c1cc2 c1cb jdk c1hot c1mn c1inl c1mhc)"; return 1 ;;
  esac
}
# twin NAME: the examples' launcher command (examples/bin/NAME) on run-all.sh's copy of the examples'
# classes and jars: its JVM flags, its entry (Launch) and, as the launcher runs by default
# (RDMACM4J_AOT=on), the build's AOT cache for that module path (BENCH_TWIN_AOT_CACHE, a copy made by
# run-all.sh; -XX:AOTMode=on: a JVM that cannot map it exits, never runs cold in its place).
# BENCH_TWIN_AOT=off runs the twins without a cache (the rows before 2026-11-29 did: java directly).
twin_aot=()
case ${BENCH_TWIN_AOT:-on} in
  on)
    if [[ -n ${BENCH_TWIN_AOT_CACHE:-} && -f ${BENCH_TWIN_AOT_CACHE} ]]; then
      twin_aot=(-XX:AOTCache="${BENCH_TWIN_AOT_CACHE}" -XX:AOTMode=on)
      twin_aot_meta="the build's examples cache, as examples/bin runs them (${BENCH_TWIN_AOT_CACHE##*/})"
    else
      echo "bench: BENCH_TWIN_AOT=on but no examples AOT cache (BENCH_TWIN_AOT_CACHE='${BENCH_TWIN_AOT_CACHE:-}'): the twins run without one, and meta.txt says so" >&2
      twin_aot_meta="none (no examples cache for this build: the twins start cold)"
    fi ;;
  off) twin_aot_meta="none (BENCH_TWIN_AOT=off: the twins start cold)" ;;
  *) echo "bench: BENCH_TWIN_AOT must be on or off, was '${BENCH_TWIN_AOT}'" >&2; exit 2 ;;
esac
twin() {
  local main
  case "$1" in cmtime) main=Cmtime ;; rping) main=Rping ;; ucmatose) main=Ucmatose ;; esac
  echo java "${c1[@]}" "${twin_aot[@]}" --module-path "${EXAMPLES_MODULE_PATH:?}" --enable-native-access=org.rdmacm4j.verbs \
    -m "org.rdmacm4j.examples/org.rdmacm4j.examples.Launch" "$1" "${main}"
}
mkdir -p "${OUT}/raw"
results="${OUT}/results.tsv"
: > "${results}"
: > "${OUT}/commands.txt"
failures=0
port=20000

{
  echo "date $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "kernel $(uname -r)"
  echo "cpus $(nproc)"
  echo "memory_mib $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo)"
  echo "rdma_core $(dpkg-query -W -f='${Version}' rdma-core 2>/dev/null)"
  echo "perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
  echo "java $(java -version 2>&1 | head -2 | tail -1)"
  echo "reps ${reps}"
  echo "lockstep ${BENCH_LOCKSTEP:-0}"
  echo "only ${only}"
  echo "jits ${BENCH_JITS:-c1 c1cb jdk}"
  echo "floors ${BENCH_FLOORS-floor vfloor}"
  echo "jdk_reps ${BENCH_JDK_REPS:-1}"
  echo "jit_c1 ${c1[*]} (the examples' launchers, scripts/jvm-flags.sh)"
  echo "jit_jdk -XX:+UseSerialGC (the JDK's default tiered compilation, C1 then C2)"
  echo "jit_c1hot ${c1[*]} -XX:CompileThresholdScaling=0.05 (C1 compiles after a twentieth of the usual invocations and loops)"
  echo "jit_c1mn ${c1[*]} -Xmn96m (the launchers' flags with a 96 MB young generation)"
  echo "jit_c1inl ${c1[*]} ${c1inl_flags} (C1 inlining bigger methods, deeper)"
  echo "jit_c1mhc ${c1mhc[*]} (the launchers' flags before s40: method handles customized after 128 calls)"
  echo "jit_c1cc2 ${c1[*]} -XX:CICompilerCount=2 (two C1 compiler threads instead of one: the queue drains sooner in the warm-up)"
  echo "jit_c1cb ${c1[*]} -Drdmacm4j.bench.driver=callbacks (not a JIT setting, a program shape: the lone connections driven from callbacks on the dispatcher with a direct callback executor, the storms' ends counted by callbacks, as C's loop; c1 is the blocking caller)"
  echo "jit_c1aot ${c1[*]} -XX:AOTCache=<the build's cache> -XX:AOTMode=on (the launchers' JVM: examples/launch.sh maps the build's cache; the JVM exits if it cannot)"
  echo "warm K=${BENCH_WARM_K:-2000} FROM=${BENCH_WARM_FROM:-1001} STORM_N=${BENCH_WARM_STORM_N:-500}"
  echo "perf $(perf --version 2>/dev/null || echo none)"
  # The twins (twin()) map the examples' build cache as examples/bin does, unless BENCH_TWIN_AOT=off;
  # CmBench (java_cmd) runs without a cache but in the cold group's rdmacm4j-aot rows and c1aot.
  echo "aot twins: ${twin_aot_meta}; CmBench: none, but the cold group's rdmacm4j-aot rows and the c1aot rows (the build's benchmarks cache, ${BENCH_AOT_CACHE:-missing})"
  echo "device $(rdma link show rxe0/1 2>/dev/null | head -1)"
  echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null) (the rig boots with clocksource=tsc tsc=reliable unless RDMACM4J_GUEST_CLOCK=kernel: it/rig/rig-lib.sh)"
} > "${OUT}/meta.txt"

note() { echo "bench: $*" >&2; }
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "${results}"; }
command_once() {   # command_once KEY TEXT: the exact command of a figure, written once
  grep -q "^$1	" "${OUT}/commands.txt" || printf '%s\t%s\n' "$1" "$2" >> "${OUT}/commands.txt"
}

# shellcheck source=guest-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

# Runs a server in the background and a client in the foreground, both under deadlines.
# pair FILE SECONDS PORT KILL_SERVER SERVER... -- CLIENT...; client output in FILE, server in FILE.server.
pair() {
  local file=$1 secs=$2 p=$3 kill_server=$4; shift 4
  local s=() c=()
  while [[ $1 != -- ]]; do s+=("$1"); shift; done; shift
  c=("$@")
  timeout -k 5 $((secs + 30)) "${s[@]}" > "${file}.server" 2>&1 &
  local spid=$!
  if ! await_listen "${server}" "${p}"; then
    note "nothing listens on ${server}:${p} after 60 s"
    kill "${spid}" 2>/dev/null; wait "${spid}" 2>/dev/null
    echo "server never listened" > "${file}"; return 1
  fi
  local t0 t1 rc
  t0=$(date +%s.%N)
  timeout -k 5 "${secs}" "${c[@]}" > "${file}" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  echo "wall_seconds $(echo "${t1} - ${t0}" | bc -l)" >> "${file}"
  # cmtime's server never exits by itself; the others get 60 s to finish after their client.
  if (( kill_server )); then kill "${spid}" 2>/dev/null; fi
  local until=$((SECONDS + 60))
  while kill -0 "${spid}" 2>/dev/null && (( SECONDS < until )); do sleep 0.2; done
  kill "${spid}" 2>/dev/null
  wait "${spid}" 2>/dev/null
  (( rc == 0 )) || { note "$(basename "${file}") exited ${rc}"; failures=$((failures + 1)); }
  return "${rc}"
}

# cmtime's table -> step totals (ms) and the setup / teardown rates.
cmtime_rows() {   # cmtime_rows FILE IMPL REP N MODE
  local f=$1 impl=$2 rep=$3 n=$4 mode=$5
  awk -F: '/^(create id|bind addr|resolve addr|resolve route|create qp|connect|disconnect|destroy) *:/ {
      name=$1; sub(/ +$/, "", name); split($2, v, " "); if (v[1] ~ /^[0-9.]+$/) print name "\t" v[1] }' "${f}" |
    while IFS=$'\t' read -r step ms; do
      record "step_ms/${mode}/${n}/${step}" "${impl}" "${rep}" "${ms}"
    done
}

c_cmtime() {   # c_cmtime REP N
  local rep=$1 n=$2 f p
  port=$((port + 1)); p=${port}
  f="${OUT}/raw/cmtime-c-n${n}-r${rep}.txt"
  command_once "cmtime/C" "cmtime -b ${server} -p PORT -c N  &&  cmtime -s ${server} -b ${client} -p PORT -c N"
  pair "${f}" 300 "${p}" 1 cmtime -b "${server}" -p "${p}" -c "${n}" -- \
    cmtime -s "${server}" -b "${client}" -p "${p}" -c "${n}" || return
  cmtime_rows "${f}" C "${rep}" "${n}" cmtime
  # cmtime runs each step for all N connections before the next one: setup = create id ..
  # connect, teardown = disconnect + destroy (the sums of the step totals).
  awk -F: -v n="${n}" '/^(create id|bind addr|resolve addr|resolve route|create qp|connect) *:/ {split($2, v, " "); s += v[1]}
      /^(disconnect|destroy) *:/ {split($2, v, " "); t += v[1]}
      END { if (s > 0) print "setup " n / (s / 1000); if (t > 0) print "teardown " n / (t / 1000) }' "${f}" |
    while read -r what rate; do record "${what}_rate/${n}" C "${rep}" "${rate}"; done
}

j_cmtime() {   # j_cmtime REP N MODE (pipelined|lockstep)
  local rep=$1 n=$2 mode=$3 f p
  port=$((port + 1)); p=${port}
  f="${OUT}/raw/cmtime-j${mode}-n${n}-r${rep}.txt"
  command_once "cmtime/${mode}" "examples/bin/cmtime -b ${server} -p PORT -c N  &&  examples/bin/cmtime -s ${server} -b ${client} -p PORT -c N --${mode}"
  pair "${f}" 300 "${p}" 0 $(twin cmtime) -b "${server}" -p "${p}" -c "${n}" --linger 60 -- \
    $(twin cmtime) -s "${server}" -b "${client}" -p "${p}" -c "${n}" "--${mode}" || return
  cmtime_rows "${f}" "${mode}" "${rep}" "${n}" "${mode}"
  # "connections/s: connect R (n in T1 ms), connect + close R2 (T2 ms)"
  sed -n 's/^connections\/s: connect \([0-9.]*\) (\([0-9]*\) in \([0-9.]*\) ms), connect + close [0-9.]* (\([0-9.]*\) ms).*/\1 \2 \3 \4/p' "${f}" |
    while read -r rate ok t1 t2; do
      record "setup_rate/${n}" "${mode}" "${rep}" "$(echo "${ok} / (${t1} / 1000)" | bc -l)"
      record "teardown_rate/${n}" "${mode}" "${rep}" "$(echo "${ok} / ((${t2} - ${t1}) / 1000)" | bc -l)"
    done
}

# Setup latency: cold = connection 0, p50/p99 of the rest.
latency_rows() {   # latency_rows FILE IMPL REP
  awk '/^latency_us/ {print $3}' "$1" > "$1.lat"
  local cold p50 p99
  cold=$(head -1 "$1.lat")
  [[ -n "${cold}" ]] || return 1
  p50=$(tail -n +2 "$1.lat" | sort -g | awk '{a[NR]=$1} END {i=int(NR*0.50+0.5); if (i<1) i=1; print a[i]}')
  p99=$(tail -n +2 "$1.lat" | sort -g | awk '{a[NR]=$1} END {i=int(NR*0.99+0.5); if (i<1) i=1; if (i>NR) i=NR; print a[i]}')
  record "latency_cold_us" "$2" "$3" "${cold}"
  record "latency_p50_us" "$2" "$3" "${p50}"
  record "latency_p99_us" "$2" "$3" "${p99}"
}

single_process() {   # single_process FILE SECONDS CMD...: one program, both ends in it
  local f=$1 secs=$2; shift 2
  timeout -k 5 "${secs}" "$@" > "${f}" 2>&1
  local rc=$?
  (( rc == 0 )) || { note "$(basename "${f}") exited ${rc}"; failures=$((failures + 1)); }
  return "${rc}"
}

# cm_bench FILE IMPL MODE ARG: the event-loop benchmark MODE (latency, storm) with its one
# argument, both ends in one process: the C event loop for IMPL C, CmBench for rdmacm4j.
cm_bench() {
  local f=$1 impl=$2 mode=$3 arg=$4
  port=$((port + 1))
  if [[ ${impl} == C ]]; then
    command_once "${mode}/C" "cm_event_loop ${mode} ${server} ${client} PORT ${arg}"
    single_process "${f}" 300 "${CM_LOOP}" "${mode}" "${server}" "${client}" "${port}" "${arg}"
  else
    command_once "${mode}/rdmacm4j" "java ... org.rdmacm4j.benchmarks.CmBench ${mode} ${server} ${client} PORT ${arg}"
    single_process "${f}" 300 "${java_cmd[@]}" org.rdmacm4j.benchmarks.CmBench "${mode}" "${server}" "${client}" "${port}" "${arg}"
  fi
}

latency_pair() {   # latency_pair REP IMPL
  local rep=$1 impl=$2 f="${OUT}/raw/latency-$2-r$1.txt"
  cm_bench "${f}" "${impl}" latency "${BENCH_LATENCY_K:-100}" || return
  latency_rows "${f}" "${impl}" "${rep}"
}

storm_pair() {   # storm_pair REP IMPL
  local rep=$1 impl=$2 f="${OUT}/raw/storm-$2-r$1.txt"
  cm_bench "${f}" "${impl}" storm "${BENCH_STORM_N:-200}" || return
  awk '/^events / {print $2, $6}' "${f}" | while read -r ev rate; do
    record "storm_events" "${impl}" "${rep}" "${ev}"
    record "events_per_s" "${impl}" "${rep}" "${rate}"
  done
}

# rping / ucmatose: the per-iteration time is the difference of two runs' client wall times
# (COUNT and 1 iterations), which removes process start, connection setup and teardown.
tool_pair() {   # tool_pair REP IMPL TOOL COUNT FIGURE -- extra args
  local rep=$1 impl=$2 tool=$3 count=$4 figure=$5; shift 6
  local bin=${tool} shown=${tool} w1 wn f
  [[ ${impl} == rdmacm4j ]] && { bin=$(twin "${tool}"); shown="examples/bin/${tool}"; }
  for c in 1 "${count}"; do
    port=$((port + 1))
    f="${OUT}/raw/${tool}-${impl}-C${c}-r${rep}.txt"
    if [[ ${tool} == rping ]]; then
      command_once "${tool}/${impl}" "${shown} -s -a ${server} -p PORT -C COUNT $*  &&  ${shown} -c -a ${server} -I ${client} -p PORT -C COUNT $*"
      pair "${f}" 300 "${port}" 0 ${bin} -s -a "${server}" -p "${port}" -C "${c}" "$@" -- \
        ${bin} -c -a "${server}" -I "${client}" -p "${port}" -C "${c}" "$@" || return
    else
      command_once "${tool}/${impl}" "${shown} -b ${server} -p PORT -C COUNT $*  &&  ${shown} -s ${server} -b ${client} -p PORT -C COUNT $*"
      pair "${f}" 300 "${port}" 0 ${bin} -b "${server}" -p "${port}" -C "${c}" "$@" -- \
        ${bin} -s "${server}" -b "${client}" -p "${port}" -C "${c}" "$@" || return
    fi
    if [[ ${c} == 1 ]]; then w1=$(awk '/^wall_seconds/ {print $2}' "${f}"); else wn=$(awk '/^wall_seconds/ {print $2}' "${f}"); fi
  done
  record "${figure}" "${impl}" "${rep}" "$(echo "(${wn} - ${w1}) * 1000000 / (${count} - 1)" | bc -l)"
}

# The message round trip, measured inside the client program (msg_pingpong.c / CmBench pingpong):
# server and client in two processes, 64-byte SENDs echoed one at a time, every round trip timed.
# pingpong_run FILE SERVER_IMPL CLIENT_IMPL: one server/client pair, either implementation at either end.
pingpong_run() {
  local f=$1 simpl=$2 cimpl=$3 size=64 warm=${BENCH_PINGPONG_WARMUP:-1000} count=${BENCH_PINGPONG_COUNT:-5000}
  local s c
  port=$((port + 1))
  if [[ ${simpl} == C ]]; then
    s=("${MSG_PINGPONG:?}" server "${server}" "${port}" "${size}")
    command_once "pingpong/server/C" "msg_pingpong server ${server} PORT ${size}"
  else
    s=("${java_cmd[@]}" org.rdmacm4j.benchmarks.CmBench pingpong server "${server}" "${port}" "${size}")
    command_once "pingpong/server/rdmacm4j" "java ... org.rdmacm4j.benchmarks.CmBench pingpong server ${server} PORT ${size}"
  fi
  if [[ ${cimpl} == C ]]; then
    c=("${MSG_PINGPONG}" client "${server}" "${client}" "${port}" "${size}" "${warm}" "${count}")
    command_once "pingpong/client/C" "msg_pingpong client ${server} ${client} PORT ${size} ${warm} ${count}"
  else
    c=("${java_cmd[@]}" org.rdmacm4j.benchmarks.CmBench pingpong client "${server}" "${client}" "${port}" "${size}" "${warm}" "${count}")
    command_once "pingpong/client/rdmacm4j" "java ... org.rdmacm4j.benchmarks.CmBench pingpong client ${server} ${client} PORT ${size} ${warm} ${count}"
  fi
  pair "${f}" 300 "${port}" 0 "${s[@]}" -- "${c[@]}"
}

pingpong_pair() {   # pingpong_pair REP IMPL: IMPL at both ends
  local rep=$1 impl=$2 f="${OUT}/raw/pingpong-$2-r$1.txt"
  pingpong_run "${f}" "${impl}" "${impl}" || return
  pingpong_rows "${f}" msg "${impl}" "${rep}"
}

# The client's "rtt_us min A p50 B p99 C max D" and "round_trips/s R" -> PREFIX_rtt_p50_us,
# PREFIX_rtt_p99_us, PREFIX_per_s.
pingpong_rows() {   # pingpong_rows FILE PREFIX IMPL REP
  awk '/^rtt_us/ {print $5, $7} /^round_trips\/s/ {print "rate", $2}' "$1" | while read -r a b; do
    if [[ ${a} == rate ]]; then record "$2_per_s" "$3" "$4" "${b}"
    else record "$2_rtt_p50_us" "$3" "$4" "${a}"; record "$2_rtt_p99_us" "$3" "$4" "${b}"; fi
  done
}

# Once per run: each implementation's client against the other's server (the wire is the same);
# figure msg_cross_*, implementation CLIENT>SERVER.
pingpong_cross() {
  local pairs=("rdmacm4j C" "C rdmacm4j") p cimpl simpl f
  for p in "${pairs[@]}"; do
    read -r cimpl simpl <<< "${p}"
    f="${OUT}/raw/pingpong-client-${cimpl}-server-${simpl}.txt"
    pingpong_run "${f}" "${simpl}" "${cimpl}" || continue
    pingpong_rows "${f}" msg_cross "${cimpl}>${simpl}" 1
  done
}

writebw_pair() {   # writebw_pair REP IMPL
  local rep=$1 impl=$2 f size=65536 count=2000 window=64
  port=$((port + 1))
  f="${OUT}/raw/writebw-${impl}-r${rep}.txt"
  if [[ ${impl} == C ]]; then
    command_once "writebw/C" "ib_write_bw -R -s ${size} -n ${count} -t ${window} -p PORT  &&  ib_write_bw -R -s ${size} -n ${count} -t ${window} -p PORT ${server}"
    timeout -k 5 120 ib_write_bw -R -s "${size}" -n "${count}" -t "${window}" -p "${port}" > "${f}.server" 2>&1 &
    local spid=$!
    sleep 2   # ib_write_bw's server listens on every address: rdma resource show names no address
    timeout -k 5 120 ib_write_bw -R -s "${size}" -n "${count}" -t "${window}" -p "${port}" "${server}" > "${f}" 2>&1
    local rc=$?
    wait "${spid}" 2>/dev/null
    (( rc == 0 )) || { note "ib_write_bw exited ${rc}"; failures=$((failures + 1)); return 1; }
    # the result row: bytes, iterations, BW peak, BW average [MB/sec], MsgRate
    awk -v s="${size}" '$1 == s && NF >= 5 {print $4}' "${f}" | tail -1 | while read -r mb; do
      record "write_mb_s" C "${rep}" "${mb}"; done
  else
    command_once "writebw/rdmacm4j" "java ... org.rdmacm4j.benchmarks.CmBench writebw ${server} ${client} PORT ${size} ${count} ${window}"
    single_process "${f}" 300 "${java_cmd[@]}" org.rdmacm4j.benchmarks.CmBench writebw "${server}" "${client}" "${port}" \
      "${size}" "${count}" "${window}" || return
    awk '/^MB\/s/ {print $2}' "${f}" | while read -r mb; do record "write_mb_s" rdmacm4j "${rep}" "${mb}"; done
  fi
}

# Issue 21's figures, warm and cold apart: one process per implementation and repetition makes K
# lone connections (the first is the cold one; p50/p99 over connections FROM..K), then a storm of N
# set up and torn down in the same warm process; a second, fresh process runs the cold storm of N.
# The warm window (connections FROM..K) also gives the whole process's CPU time per connection and,
# under perf stat switched on for the window only (window.h / Window.java drive perf's control
# fifo), its syscalls and context switches per connection. IMPL: C, or rdmacm4j-JIT for each of BENCH_JITS.
perf_ok=0
if command -v perf > /dev/null; then
  mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null
  perf stat -e raw_syscalls:sys_enter -x, -o /dev/null -- true 2> /dev/null && perf_ok=1
fi
(( perf_ok )) || note "perf cannot count raw_syscalls:sys_enter here: the syscall figures will be missing"

warm_cmd() {   # warm_cmd IMPL: the program for IMPL (prints the command words)
  case $1 in
    C) echo "${CM_LOOP}" ;;
    floor-*) echo "$(java_jit "${1#floor-}") org.rdmacm4j.benchmarks.FfmFloor" ;;
    vfloor-*) echo "$(java_jit "${1#vfloor-}") org.rdmacm4j.benchmarks.VerbsFloor" ;;
    *) echo "$(java_jit "${1#rdmacm4j-}") org.rdmacm4j.benchmarks.CmBench" ;;
  esac
}

warm_run() {   # warm_run REP IMPL
  local rep=$1 impl=$2 k=${BENCH_WARM_K:-2000} from=${BENCH_WARM_FROM:-1001} n=${BENCH_WARM_STORM_N:-500}
  local f="${OUT}/raw/warm-${impl}-r${rep}.txt" cmd perf=()
  read -r -a cmd <<< "$(warm_cmd "${impl}")" || return
  port=$((port + 1))
  command_once "warm/${impl}" "${cmd[*]/#*\/cm_event_loop/cm_event_loop} warm ${server} ${client} PORT ${k} ${from} ${n}"
  if (( perf_ok )); then
    rm -f /tmp/bench-ctl /tmp/bench-ack; mkfifo /tmp/bench-ctl /tmp/bench-ack
    perf=(perf stat -x, -o "${f}.perf" -e raw_syscalls:sys_enter,context-switches,cpu-migrations -D -1
          --control fifo:/tmp/bench-ctl,/tmp/bench-ack --)
    command_once "warm/perf" "${perf[*]} PROGRAM (switched on for the window only)"
  fi
  if (( ${#perf[@]} )); then export BENCH_PERF_CTL=/tmp/bench-ctl BENCH_PERF_ACK=/tmp/bench-ack; fi
  single_process "${f}" 900 "${perf[@]}" "${cmd[@]}" warm "${server}" "${client}" "${port}" "${k}" "${from}" "${n}"
  local rc=$?
  unset BENCH_PERF_CTL BENCH_PERF_ACK
  # what the program measured before a failure (the lone connections, a storm that died) is recorded;
  # single_process counted the failure
  awk '/^latency_us/ {print $2, $3}' "${f}" > "${f}.lat"
  record "warm_cold_us" "${impl}" "${rep}" "$(awk '$1 == 0 {print $2}' "${f}.lat")"
  awk -v from="${from}" '$1 >= from - 1 {print $2}' "${f}.lat" | sort -g > "${f}.win"
  record "warm_p50_us" "${impl}" "${rep}" "$(awk '{a[NR]=$1} END {i=int(NR*0.50+0.5); if (i<1) i=1; print a[i]}' "${f}.win")"
  record "warm_p99_us" "${impl}" "${rep}" "$(awk '{a[NR]=$1} END {i=int(NR*0.99+0.5); if (i<1) i=1; if (i>NR) i=NR; print a[i]}' "${f}.win")"
  awk '/^window connections/ {print $7 + $9, $7, $9, $13}' "${f}" | while read -r cpu user sys runq; do
    record "warm_cpu_us" "${impl}" "${rep}" "${cpu}"
    record "warm_cpu_user_us" "${impl}" "${rep}" "${user}"
    record "warm_cpu_sys_us" "${impl}" "${rep}" "${sys}"
    record "warm_runq_us" "${impl}" "${rep}" "${runq}"
  done
  awk '/^storm n/ {print $3, $5, $7}' "${f}" | while read -r sn setup teardown; do
    record "warm_storm_setup_rate" "${impl}" "${rep}" "$(echo "${sn} / ${setup}" | bc -l)"
    record "warm_storm_teardown_rate" "${impl}" "${rep}" "$(echo "${sn} / ${teardown}" | bc -l)"
  done
  if [[ -s ${f}.perf ]]; then
    local wn; wn=$(awk '/^window connections/ {print $3}' "${f}")
    awk -F, -v n="${wn}" '$3 == "raw_syscalls:sys_enter" {print "warm_syscalls", $1 / n}
        $3 == "context-switches" {print "warm_cswitches", $1 / n}' "${f}.perf" |
      while read -r fig v; do record "${fig}" "${impl}" "${rep}" "${v}"; done
  fi
  return "${rc}"
}

cold_storm_run() {   # cold_storm_run REP IMPL: a fresh process's storm of N
  local rep=$1 impl=$2 n=${BENCH_WARM_STORM_N:-500} f="${OUT}/raw/coldstorm-$2-r$1.txt" cmd
  read -r -a cmd <<< "$(warm_cmd "${impl}")" || return
  port=$((port + 1))
  command_once "coldstorm/${impl}" "${cmd[*]/#*\/cm_event_loop/cm_event_loop} storm ${server} ${client} PORT ${n}"
  single_process "${f}" 600 "${cmd[@]}" storm "${server}" "${client}" "${port}" "${n}" || return
  awk '/^storm n/ {print $3, $5, $7}' "${f}" | while read -r sn setup teardown; do
    record "cold_storm_setup_rate" "${impl}" "${rep}" "$(echo "${sn} / ${setup}" | bc -l)"
    record "cold_storm_teardown_rate" "${impl}" "${rep}" "$(echo "${sn} / ${teardown}" | bc -l)"
  done
}

# The cold group (issue 21 part 3): a fresh process's first connection, C against rdmacm4j
# without and with the build's AOT cache (BENCH_AOT_CACHE: benchmarks/aot-cache.sh made it at
# package time from a device-free training run; run-all.sh copies it with the jar), interleaved
# C, off, on per repetition. C: `cm_event_loop latency ... 3`; rdmacm4j: `CmBench latency ... 3`
# (connect() called to its future completed for I = 0, as the warm group's cold figure) with
# -XX:+CITime and -Xlog:perf+class+link (JIT time, class initialisation and call-site linking at
# exit) and, with the cache, -Xlog:aot to a file (the row counts only if the JVM opened the cache).
# The split of JVM start to first connection: the launch time (taken here just before the exec)
# against CmBench's phase lines (main entered, RdmaCm open, listening, first connection).
# Both rdmacm4j variants run the jar, and the second the cache, from copies in the guest's tmpfs
# (cp -p: the JVM checks the jar's size and time against the cache): on the 9p results mount every
# page of the mapped cache and of the jar is a host round trip under TCG, which no user has (the
# first run of 2026-11-26 did that: 48 s to main with the cache against 21 s without). The JDK
# stays on the host root over 9p for both.
cold_copy() {
  [[ -d /tmp/cold ]] && return 0
  mkdir -p /tmp/cold && cp -p "${jar}" /tmp/cold/benchmarks.jar
  if [[ -n ${BENCH_AOT_CACHE:-} && -f ${BENCH_AOT_CACHE} ]]; then cp -p "${BENCH_AOT_CACHE}" /tmp/cold/benchmarks.aot; fi
}
cold_run() {   # cold_run REP IMPL (C | rdmacm4j | rdmacm4j-aot)
  local rep=$1 impl=$2 f="${OUT}/raw/cold-$2-r$1.txt" cmd t0 aot=()
  port=$((port + 1))
  if [[ ${impl} == C ]]; then
    cmd=("${CM_LOOP}")
  else
    cold_copy
    if [[ ${impl} == rdmacm4j-aot ]]; then
      [[ -f /tmp/cold/benchmarks.aot ]] || { note "cold: no AOT cache for ${jar}: the rdmacm4j-aot rows are missing"; return 1; }
      aot=(-XX:AOTCache=/tmp/cold/benchmarks.aot -Xlog:aot=info:file="${f}.aot")
    fi
    cmd=(java "${c1[@]}" "${aot[@]}" -XX:+CITime -Xlog:perf+class+link=info:file="${f}.link"
         --enable-native-access=ALL-UNNAMED -cp /tmp/cold/benchmarks.jar org.rdmacm4j.benchmarks.CmBench)
  fi
  command_once "cold/${impl}" "${cmd[*]/#*\/cm_event_loop/cm_event_loop} latency ${server} ${client} PORT 3"
  t0=$(date +%s%N)
  single_process "${f}" 300 "${cmd[@]}" latency "${server}" "${client}" "${port}" 3 || return
  local t1; t1=$(date +%s%N)
  echo "launched_epoch_us $((t0 / 1000)) exited_epoch_us $((t1 / 1000))" >> "${f}"
  if [[ -n ${aot[*]} ]] && ! grep -q 'Opened AOT cache' "${f}.aot"; then
    note "cold: the JVM did not open ${BENCH_AOT_CACHE} (see ${f}.aot): row not recorded"; return 1
  fi
  record "cold_first_us" "${impl}" "${rep}" "$(awk '/^latency_us 0 / {print $3}' "${f}")"
  record "cold_process_ms" "${impl}" "${rep}" "$(( (t1 - t0) / 1000000 ))"
  [[ ${impl} == C ]] && return 0
  # phases, ms from the launch: main entered, RdmaCm open, listening, first connection
  awk -v t0="$((t0 / 1000))" '/^phase / {printf "%s %.1f\n", $2, ($3 - t0) / 1000}' "${f}" |
    while read -r ph ms; do record "cold_phase_ms/${ph}" "${impl}" "${rep}" "${ms}"; done
  awk '/Total compilation time/ {print $5 * 1000}' "${f}" | while read -r ms; do record "cold_jit_ms" "${impl}" "${rep}" "${ms}"; done
  awk '/At VM exit/ {e = 1} e && /clinit:/ {print "clinit", $(NF-3)} e && /invokedynamic:/ {print "indy", $(NF-3)}
       e && /CP_MethodHandle:/ {print "cp_mh", $(NF-3)}' "${f}.link" | sed 's/ms$//' |
    while read -r what ms; do record "cold_${what}_ms" "${impl}" "${rep}" "${ms}"; done
}
# The launchers with and without the build's cache (BENCH_COLD_ECHO=1; 76-92 s a run in the loaded
# guest of 2026-11-26, so not by default): the echo demo (examples/bin/echo, one process,
# messaging connection) through examples/launch.sh of the checkout (REPO: its target/aot), its
# "echo: connected ... in X ms" (a fresh JVM's first connect) and the process wall time.
cold_echo() {   # cold_echo REP MODE (off | build)
  local rep=$1 mode=$2 f="${OUT}/raw/cold-echo-$2-r$1.txt" t0 t1
  port=$((port + 1))
  command_once "cold/echo-${mode}" "RDMACM4J_AOT=${mode} examples/bin/echo -a ${server} -b ${client} -p PORT -n 20 -S 64 -t 60"
  t0=$(date +%s%N)
  single_process "${f}" 300 env RDMACM4J_AOT="${mode}" RDMACM4J_AOT_DIR="${OUT}/aot-echo" \
    "${repo}/examples/bin/echo" -a "${server}" -b "${client}" -p "${port}" -n 20 -S 64 -t 60 || return
  t1=$(date +%s%N)
  if [[ ${mode} == build ]] && ! grep -qs 'Opened AOT cache' "${OUT}"/aot-echo/examples-*.aot.log; then
    note "cold: the echo demo did not open the build's cache (${OUT}/aot-echo): row not recorded"; return 1
  fi
  record "cold_echo_connect_ms" "echo-${mode}" "${rep}" "$(sed -n 's/^echo: connected .* in \([0-9.]*\) ms.*/\1/p' "${f}")"
  record "cold_echo_process_ms" "echo-${mode}" "${rep}" "$(( (t1 - t0) / 1000000 ))"
}
cold_group() {
  local rep=$1 v
  cold_run "${rep}" C
  for v in ${BENCH_COLD_AOT:-off on}; do
    case "${v}" in
      off) cold_run "${rep}" rdmacm4j; if [[ ${BENCH_COLD_ECHO:-0} == 1 ]]; then cold_echo "${rep}" off; fi ;;
      on) cold_run "${rep}" rdmacm4j-aot; if [[ ${BENCH_COLD_ECHO:-0} == 1 ]]; then cold_echo "${rep}" build; fi ;;
    esac
  done
}

# warm_impls REP: C first (it takes seconds), then the Java floors of BENCH_FLOORS (default "floor
# vfloor", under the launchers' JIT: floor-c1 is FfmFloor, C's loop call for call over raw FFM with
# no framework, what the JVM costs by itself; vfloor-c1 is VerbsFloor, the same loop over the verbs
# module's API, what the bindings add), then rdmacm4j under each of
# BENCH_JITS, the JIT settings other than the launchers' (c1) only in the first BENCH_JDK_REPS
# repetitions (default 1: under TCG the JDK's default JIT takes ~8 min for one K = 2,000 process,
# twice C1's time).
warm_impls() {
  local j
  echo C
  for j in ${BENCH_FLOORS-floor vfloor}; do echo "${j}-c1"; done
  for j in ${BENCH_JITS:-c1 c1cb jdk}; do
    if [[ ${j} == c1 || ${j} == c1cb ]] || (( $1 <= ${BENCH_JDK_REPS:-1} )); then echo "rdmacm4j-${j}"; fi
  done
}

start=${SECONDS}
# timed GROUP CMD...: runs CMD and adds the seconds it took to GROUP's total in meta.txt (group_seconds)
declare -A group_seconds=()
timed() {
  local g=$1 t=${SECONDS}; shift
  "$@"
  group_seconds[${g}]=$(( ${group_seconds[${g}]:-0} + SECONDS - t ))
}
cmtime_group() {
  local rep=$1 n
  for n in ${ns}; do
    j_cmtime "${rep}" "${n}" pipelined
    if [[ ${BENCH_LOCKSTEP:-0} == 1 ]]; then j_cmtime "${rep}" "${n}" lockstep; fi
    c_cmtime "${rep}" "${n}"
  done
}
warm_group() {
  local rep=$1 impl
  # librdmacm gives every QP's CQs a completion channel (an fd): a storm of 500 with both ends in
  # one process needs more than the default 1,024 (the JVM raises its own soft limit, C does not)
  ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  for impl in $(warm_impls "${rep}"); do warm_run "${rep}" "${impl}"; cold_storm_run "${rep}" "${impl}"; done
}
pingpong_group() {
  pingpong_pair "$1" rdmacm4j; pingpong_pair "$1" C
  if (( $1 == 1 )); then pingpong_cross; fi
}
for rep in $(seq 1 "${reps}"); do
  note "repetition ${rep} of ${reps} ($((SECONDS - start)) s)"
  if wanted cmtime; then timed cmtime cmtime_group "${rep}"; fi
  if wanted latency; then timed latency latency_pair "${rep}" rdmacm4j; timed latency latency_pair "${rep}" C; fi
  if wanted warm; then timed warm warm_group "${rep}"; fi
  if wanted cold; then timed cold cold_group "${rep}"; fi
  if wanted storm; then timed storm storm_pair "${rep}" rdmacm4j; timed storm storm_pair "${rep}" C; fi
  if wanted pingpong; then timed pingpong pingpong_group "${rep}"; fi
  if wanted rping; then
    timed rping tool_pair "${rep}" rdmacm4j rping "${BENCH_RPING_COUNT:-2000}" rping_iteration_us -- -S 64
    timed rping tool_pair "${rep}" C rping "${BENCH_RPING_COUNT:-2000}" rping_iteration_us -- -S 64
  fi
  if wanted ucmatose; then
    timed ucmatose tool_pair "${rep}" rdmacm4j ucmatose "${BENCH_UCMATOSE_COUNT:-8000}" ucmatose_message_us -- -S 64
    timed ucmatose tool_pair "${rep}" C ucmatose "${BENCH_UCMATOSE_COUNT:-8000}" ucmatose_message_us -- -S 64
  fi
  if wanted writebw; then timed writebw writebw_pair "${rep}" rdmacm4j; timed writebw writebw_pair "${rep}" C; fi
done
for g in "${!group_seconds[@]}"; do echo "group_seconds_${g} ${group_seconds[${g}]}" >> "${OUT}/meta.txt"; done

if ! wanted memory; then
  echo "seconds $((SECONDS - start))" >> "${OUT}/meta.txt"
  echo "failures ${failures}" >> "${OUT}/meta.txt"
  note "done in $((SECONDS - start)) s, ${failures} failed command(s) (BENCH_ONLY=${only})"
  exit 0
fi

note "memory ($((SECONDS - start)) s)"
# Each connection end holds descriptors (its completion channel): allow more than the default 1024.
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
echo "open_files_limit $(ulimit -n)" >> "${OUT}/meta.txt"
port=$((port + 1))
command_once "memory/rdmacm4j" "java ... org.rdmacm4j.benchmarks.CmBench memory ${server} ${client} PORT ${BENCH_MEMORY:-1000,10000} ${BENCH_MEMORY_SECONDS:-150}"
single_process "${OUT}/raw/memory.txt" $(( ${BENCH_MEMORY_SECONDS:-150} + 240 )) "${java_cmd[@]}" \
  org.rdmacm4j.benchmarks.CmBench memory "${server}" "${client}" "${port}" "${BENCH_MEMORY:-1000,10000}" \
  "${BENCH_MEMORY_SECONDS:-150}"
awk '/^memory connections/ {print $3, $7, $9, $11, $13}' "${OUT}/raw/memory.txt" |
  while read -r n heap rss native slab; do
    record "memory_heap_bytes/${n}" rdmacm4j 1 "${heap}"
    record "memory_rss_bytes/${n}" rdmacm4j 1 "${rss}"
    record "memory_native_bytes/${n}" rdmacm4j 1 "${native}"
    record "memory_slab_bytes/${n}" rdmacm4j 1 "${slab}"
  done

stop=$(sed -n 's/.* stopped: //p' "${OUT}/raw/memory.txt" | head -1)
[[ -n "${stop}" ]] && echo "memory_stop ${stop}" >> "${OUT}/meta.txt"
echo "seconds $((SECONDS - start))" >> "${OUT}/meta.txt"
echo "failures ${failures}" >> "${OUT}/meta.txt"
note "done in $((SECONDS - start)) s, ${failures} failed command(s)"
exit 0
