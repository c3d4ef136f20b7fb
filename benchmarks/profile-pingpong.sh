#!/usr/bin/env bash
# Profiles rdmacm4j's message round trip in the soft-RoCE guest: where a round trip of
# CmBench pingpong goes, against the C msg_pingpong (benchmarks/src/main/c/msg_pingpong.c), each
# variant changing one end only, interleaved PROFILE_REPS times:
#   c-c        C client, C server (the floor)
#   j-c        rdmacm4j client (C1, the launchers' flags), C server: the client side's cost
#   c-j        C client, rdmacm4j server (C1): the server side's cost
#   j2-c       rdmacm4j client under C2 (full tiered compilation), C server: what C1's code costs
#   c-c-busy   C client, C server, with a niced busy loop beside them: a vCPU that never idles
#              (tests whether the round trip waits for an idle vCPU to wake, not for either program)
#   j-j-busy   the same with rdmacm4j at both ends (C1)
# then once each with a JFR recording (execution samples every 1 ms, native-method samples every
# 5 ms) of the rdmacm4j end: j-c-jfr (the client) and c-j-jfr (the server). Raw output, the .jfr
# files and summary.txt land in the results dir.
#
# Run it with PROFILE_SCRIPT=profile-pingpong.sh benchmarks/run-profile.sh (one guest boot).
#
# Env: OUT (required), MSG_PINGPONG (the built C program), BENCH_JAR, PROFILE_REPS (2),
#      PROFILE_WARMUP (1000), PROFILE_COUNT (5000).
set -uo pipefail
repo=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
: "${OUT:?}" "${MSG_PINGPONG:?}"
reps=${PROFILE_REPS:-2}
warm=${PROFILE_WARMUP:-1000}
count=${PROFILE_COUNT:-5000}
size=64
server=192.0.2.1
client=192.0.2.3
jar="${BENCH_JAR:-${repo}/benchmarks/target/benchmarks.jar}"
c1=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ErrorFile="${OUT}/hs_err_%p.log")
c2=(-XX:+UseSerialGC -XX:ErrorFile="${OUT}/hs_err_%p.log")
jfr_settings="jdk.ExecutionSample#period=1ms,jdk.NativeMethodSample#period=5ms"
port=22000
mkdir -p "${OUT}"
summary="${OUT}/summary.txt"
: > "${summary}"
note() { echo "profile: $*" | tee -a "${summary}" >&2; }

# shellcheck source=guest-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/guest-lib.sh"

# make_cmd KIND ROLE PORT [JVM_FLAGS...]: sets cmd to the server or client command of KIND (c, j).
make_cmd() {
  local kind=$1 role=$2 p=$3; shift 3
  local args
  if [[ ${role} == server ]]; then args=(server "${server}" "${p}" "${size}")
  else args=(client "${server}" "${client}" "${p}" "${size}" "${warm}" "${count}"); fi
  if [[ ${kind} == c ]]; then cmd=("${MSG_PINGPONG}" "${args[@]}")
  else cmd=(java "$@" --enable-native-access=ALL-UNNAMED -cp "${jar}" org.rdmacm4j.benchmarks.CmBench pingpong "${args[@]}"); fi
}

# run LABEL SERVER_KIND CLIENT_KIND [SERVER_FLAGS...] [-- CLIENT_FLAGS...]: one pair under deadlines.
run() {
  local label=$1 skind=$2 ckind=$3; shift 3
  local sflags=() cflags=() scmd
  while (( $# )) && [[ $1 != -- ]]; do sflags+=("$1"); shift; done
  (( $# )) && shift
  cflags=("$@")
  port=$((port + 1))
  local f="${OUT}/${label}.${port}.txt"
  make_cmd "${skind}" server "${port}" "${sflags[@]}"; scmd=("${cmd[@]}")
  echo "server: ${scmd[*]}" > "${f}.cmd"
  timeout -k 5 300 "${scmd[@]}" > "${f}.server" 2>&1 &
  local spid=$!
  await_listen "${server}" "${port}" || { note "${label}: the server never listened"; kill "${spid}"; return 1; }
  make_cmd "${ckind}" client "${port}" "${cflags[@]}"
  echo "client: ${cmd[*]}" >> "${f}.cmd"
  timeout -k 5 240 "${cmd[@]}" > "${f}" 2>&1
  local rc=$?
  local until=$((SECONDS + 60))
  while kill -0 "${spid}" 2>/dev/null && (( SECONDS < until )); do sleep 0.2; done
  kill "${spid}" 2>/dev/null; wait "${spid}"
  local src=$?
  note "${label}: client exit ${rc}, server exit ${src}: $(grep -h '^rtt_us\|^round_trips\|^wakeups' "${f}" | tr '\n' ' ')"
}

note "kernel $(uname -r), $(java -version 2>&1 | sed -n 2p), ${warm} + ${count} round trips of ${size} bytes"
for rep in $(seq 1 "${reps}"); do
  run c-c c c
  run j-c c j -- "${c1[@]}"
  run c-j j c "${c1[@]}"
  run j2-c c j -- "${c2[@]}"
  timeout 300 nice -n 19 bash -c 'while :; do :; done' &
  busy=$!
  run c-c-busy c c
  run j-j-busy j j "${c1[@]}" -- "${c1[@]}"
  kill "${busy}"; wait "${busy}" 2>/dev/null
done
run j-c-jfr c j -- "${c1[@]}" \
  "-XX:StartFlightRecording=filename=${OUT}/client-c1.jfr,settings=profile,${jfr_settings},dumponexit=true"
run c-j-jfr j c "${c1[@]}" \
  "-XX:StartFlightRecording=filename=${OUT}/server-c1.jfr,settings=profile,${jfr_settings},dumponexit=true"
note "done"
