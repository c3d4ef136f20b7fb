#!/usr/bin/env bash
# Guest side of benchmarks/insn-count.sh: runs the warm window of each program REPS times, in
# order, one process at a time, and writes one label line per window to OUT/insn-labels.txt
# (PROG VARIANT REP CONNECTIONS RC FILE) in the order the windows ran, which is the order of the
# plugin's marks. Programs (PROGS, default "c floor vfloor cm"):
#   c       cm_event_loop warm (C, $CEL)                     window: connections FROM..K
#   floor   FfmFloor warm (raw FFM, no framework)            window: connections FROM..K
#   vfloor  VerbsFloor warm (the verbs module's API)          window: connections FROM..K
#   cm      CmBench warm (rdmacm4j)                           window: connections FROM..K
#   cc      ConnectCost (rdmacm4j, W warm-up + K measured)    window: the K measured cycles
#   csu ctd cmsu cmtd   C's loop and CmBench warm, the window on the storm of N after the K lone
#           connections instead (BENCH_WINDOW_STORM): its setup (su) or its teardown (td); per
#           connection of the storm
# The Java programs run once per jar of JARS ("NAME=JAR ..."), under the launchers' JIT (C1, serial
# GC); C once per repetition. Env: OUT, CEL, JARS, PROGS, REPS (2), K (2000), FROM (1001), N (500:
# the storm after the window, outside it), CC_W (1000), CC_K (1000), PAUSE (0 s before each run),
# PROFILE (0; 1: the plugin also profiles each window, and each run leaves what insn_profile.py needs
# to name its addresses: the JVM's perf map at exit, the process's maps at the window's close, and
# once the guest kernel's symbols), JIT (c1, the launchers' JIT, or jdk: the JDK's default tiered JIT),
# JAVA_EXTRA (JVM options added to every Java program's command line), JAVA_EXTRA_<NAME> (added to
# the runs of jar NAME only).
set -u
: "${OUT:?}" "${JARS:?}"
source "$(dirname "${BASH_SOURCE[0]}")/jvm-flags.sh"   # the launchers' JVM flags (insn-count.sh copies it beside this script)
jvm=("${rdmacm4j_launcher_flags[@]}" --enable-native-access=ALL-UNNAMED)
# JIT=jdk: the JDK's default tiered JIT (C2 included), the launchers' GC kept (as run-all's "jdk")
[[ ${JIT:-c1} == jdk ]] && jvm=(-XX:+UseSerialGC --enable-native-access=ALL-UNNAMED)
read -r -a extra <<< "${JAVA_EXTRA:-}"   # more JVM options for every Java program, e.g. a -D to A/B
jvm+=("${extra[@]}")
k=${K:-2000}; from=${FROM:-1001}; n=${N:-500}; ccw=${CC_W:-1000}; cck=${CC_K:-1000}
server=192.0.2.1; client=192.0.2.3; port=29000
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"   # the storm: a channel fd per CQ
labels="${OUT}/insn-labels.txt"
: > "${labels}"
if [[ ${PROFILE:-0} == 1 ]]; then
  jvm+=(-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit)
  export INSN_MAPS="${OUT}"
  cat /proc/kallsyms > "${OUT}/kallsyms.txt"
  rm -f /tmp/perf-*.map
fi
run() {   # run PROG VARIANT REP CONNECTIONS COMMAND...
  local prog=$1 v=$2 rep=$3 conns=$4; shift 4
  local f="${OUT}/insn-${prog}-${v}-r${rep}.txt"
  sleep "${PAUSE:-0}"
  timeout -k 5 900 "$@" > "${f}" 2>&1
  local rc=$?
  local m pid=-
  for m in /tmp/perf-*.map; do   # the JVM's perf map at exit (PROFILE=1): named by its pid
    [[ -e ${m} ]] || continue
    pid=${m#/tmp/perf-}; pid=${pid%.map}
    mv "${m}" "${OUT}/perfmap-${pid}.map"
  done
  echo "${prog} ${v} ${rep} ${conns} ${rc} $(basename "${f}") ${pid}" >> "${labels}"
  echo "insn-job: ${prog} ${v} r${rep} rc ${rc} $(grep '^window connections' "${f}") $(grep '^window_jvm' "${f}")"
}
for rep in $(seq 1 "${REPS:-2}"); do
  for prog in ${PROGS:-c floor vfloor cm}; do
    if [[ ${prog} == c ]]; then
      run c - "${rep}" $((k - from + 1)) "${CEL:?}" warm "${server}" "${client}" $((port++)) "${k}" "${from}" "${n}"
      continue
    fi
    half=setup; [[ ${prog} == *td ]] && half=teardown
    if [[ ${prog} == csu || ${prog} == ctd ]]; then
      run "${prog}" - "${rep}" "${n}" env BENCH_WINDOW_STORM="${half}" "${CEL:?}" warm "${server}" "${client}" $((port++)) "${k}" "${from}" "${n}"
      continue
    fi
    for pair in ${JARS}; do
      v=${pair%%=*}; jar=${pair#*=}
      ve="JAVA_EXTRA_${v}"; read -r -a vextra <<< "${!ve:-}"
      vjvm=("${jvm[@]}" "${vextra[@]}")
      case ${prog} in   # the three warm loops take C's arguments; ConnectCost its own
        floor|vfloor|cm)
          main=FfmFloor; [[ ${prog} == vfloor ]] && main=VerbsFloor; [[ ${prog} == cm ]] && main=CmBench
          run "${prog}" "${v}" "${rep}" $((k - from + 1)) java "${vjvm[@]}" -cp "${jar}" "org.rdmacm4j.benchmarks.${main}" warm "${server}" "${client}" $((port++)) "${k}" "${from}" "${n}" ;;
        cmsu|cmtd) run "${prog}" "${v}" "${rep}" "${n}" env BENCH_WINDOW_STORM="${half}" java "${vjvm[@]}" -cp "${jar}" \
            org.rdmacm4j.benchmarks.CmBench warm "${server}" "${client}" $((port++)) "${k}" "${from}" "${n}" ;;
        cc) run cc "${v}" "${rep}" "${cck}" java "${vjvm[@]}" -cp "${jar}" org.rdmacm4j.benchmarks.ConnectCost "${server}" "${client}" $((port++)) "${ccw}" "${cck}" ;;
        *) echo "insn-job: unknown program ${prog}" >&2; exit 2 ;;
      esac
    done
  done
done
echo "insn-job: done"
