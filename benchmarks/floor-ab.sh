#!/usr/bin/env bash
# Guest side of a bindings A/B (issue 21): two builds' benchmarks.jar, REPS times with the order
# alternating, each running VerbsFloor warm (the verbs module under C's call pattern: K lone
# connections, the window over FROM..K, a storm of N) and ConnectCost (rdmacm4j, W + K connections):
# so a change to the bindings is measured apart from cm-core, and against what rdmacm4j sees.
#   it/rig/guest.sh --timeout 2400 --out OUT -- env OUT=OUT A=a.jar B=b.jar [REPS=5] [PROGS="vfloor cc"] [PAUSE=0] bash benchmarks/floor-ab.sh
# PROGS="cc" runs ConnectCost only (a change to cm-core); PAUSE seconds of rest before each run (the
# run right after a VerbsFloor storm started slower, by 10-40 %, in s32-ab1).
# Summary: python3 benchmarks/floor_ab_summary.py OUT
set -u
: "${OUT:?}" "${A:?}" "${B:?}"
c1=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED)
port=28000
# librdmacm gives every QP's CQs a channel (an fd): the storm needs more than 1,024
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
note() { echo "ab: $*" | tee -a "${OUT}/summary.txt"; }
# One short uncounted run first: a fresh guest's first JVM is slower on every figure.
java "${c1[@]}" -cp "${A}" org.rdmacm4j.benchmarks.VerbsFloor latency 192.0.2.1 192.0.2.3 $((port++)) 100 > "${OUT}/prime.txt" 2>&1
note "prime rc $?"
for rep in $(seq 1 "${REPS:-5}"); do
  if (( rep % 2 )); then order="a b"; else order="b a"; fi
  for v in ${order}; do
    [[ " ${PROGS:-vfloor cc} " == *" vfloor "* ]] || continue
    j=${A}; [[ ${v} == b ]] && j=${B}
    sleep "${PAUSE:-0}"
    f="${OUT}/vfloor-${v}-r${rep}.txt"
    timeout -k 5 600 java "${c1[@]}" -cp "${j}" org.rdmacm4j.benchmarks.VerbsFloor warm 192.0.2.1 192.0.2.3 $((port++)) 2000 1001 500 > "${f}" 2>&1
    note "vfloor ${v} r${rep} rc $? $(grep '^window connections' "${f}") $(grep '^storm' "${f}") p50 $(awk '$1=="latency_us" && $2>=1000 {print $3}' "${f}" | sort -g | awk '{a[NR]=$1} END {print a[int(NR/2)+1]}')"
  done
  for v in ${order}; do
    [[ " ${PROGS:-vfloor cc} " == *" cc "* ]] || continue
    j=${A}; [[ ${v} == b ]] && j=${B}
    sleep "${PAUSE:-0}"
    f="${OUT}/cc-${v}-r${rep}.txt"
    timeout -k 5 600 java "${c1[@]}" -cp "${j}" org.rdmacm4j.benchmarks.ConnectCost 192.0.2.1 192.0.2.3 $((port++)) 1000 1000 > "${f}" 2>&1
    note "cc ${v} r${rep} rc $? $(grep -E '^(process|connect_us)' "${f}" | tr '\n' ' ') $(grep 'rdmacm4j-dispat' "${f}" | grep user_us)"
  done
done
note done
