#!/usr/bin/env bash
# Guest side of it/rig/jit-stress.sh (see there): runs one workload RUNS times, each in a fresh
# JVM with the JVM options given (none: the JDK's defaults, tiered C1+C2 and G1), keeps every
# hs_err file in the results share and writes one line per run to ${OUT}/runs.tsv:
#   workload  run  exit  seconds  kind
# kind is "ok", "crash SIGNAL FRAME" from the hs_err file (e.g. "crash SIGSEGV J c1 +0x20"), or
# "fail exit N" for a run that failed without one.
#
#   jit-stress.sh SPEC [JVM_OPTION...]     SPEC: WORKLOAD:RUNS[,WORKLOAD:RUNS...], e.g. churn:3,storm:3
#
# javac: the JDK's own compiler on verbs and cm-statemachine (no RDMA, no rdmacm4j code runs).
# churn: payloads/JitChurn.java (compiled by the host side into ${OUT}/churn-classes) for
#        CHURN_SECONDS (60): pure JDK code on 2 threads per vCPU, made to keep the JIT patching.
# PIN_CPUS (env): run each JVM under `taskset -c PIN_CPUS` (all its threads on those vCPUs).
# storm: the cmtime twin's client (examples' Cmtime, lockstep) at STORM_N (500) connections
#        against rdma-core's cmtime server, both on rxe0.
set -uo pipefail
: "${OUT:?}"
spec=$1; shift
jvm_opts=("$@")
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
server=${RDMACM4J_SERVER_ADDR:-192.0.2.1} client=${RDMACM4J_CLIENT_ADDR:-192.0.2.3}
n=${STORM_N:-500}
port=22000
tsv="${OUT}/runs.tsv"
java -version 2>&1 | sed -n 2p > "${OUT}/jdk.txt"

# kind_of FILE: "crash SIGNAL FRAME" from an hs_err file. FRAME is the problematic frame's kind
# (J = compiled Java, V = VM, C = native, j = interpreted), its compiler, method and offset.
kind_of() {
  local sig frame
  sig=$(sed -n 's/^#  \(SIG[A-Z]*\) .*/\1/p' "$1" | head -n 1)
  frame=$(sed -n '/^# Problematic frame:/{n;p;}' "$1" | head -n 1 | sed 's/^# //')
  # "J 3661 c1 pkg.Cls.method(Args)R (12 bytes) @ 0x.. [0x..+0x0000000000000020]" -> "J c1 pkg.Cls.method +0x20"
  frame=$(sed -E 's/^J [0-9]+ (c[12]|jvmci) ([^ (]+)\(.*\+0x0*([0-9a-f]+)\].*/J \1 \2 +0x\3/; s/^([VCj])  ?\[?([^] ]*).*/\1 \2/' <<< "${frame}")
  printf 'crash %s %s' "${sig:-?}" "${frame:-?}"
}

await_listen() {
  local deadline=$((SECONDS + 60))
  until timeout 10 rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q "$1:$2 "; do
    (( SECONDS < deadline )) || return 1
    sleep 0.2
  done
}

pin=()
[[ -n "${PIN_CPUS:-}" ]] && pin=(taskset -c "${PIN_CPUS}")
mp="${repo}/examples/target/classes:$(cat "${repo}/examples/target/classpath.txt" 2>/dev/null)"
# Both modules require Guava (com.google.common): its jar and the ones it names, from the it module's
# resolved class path (written by the build), on javac's module path.
guava_path=$(tr ':' '\n' < "${repo}/it/target/it-classpath.txt" \
  | grep -E '/(guava|failureaccess|jspecify|error_prone_annotations|j2objc-annotations)-[^/]*\.jar$' | paste -sd: -)
[[ -n "${guava_path}" ]] || { echo "jit-stress: no Guava jar in it/target/it-classpath.txt (run ./mvnw package first)" >&2; exit 2; }

run_workload() {
local workload=$1 runs=$2 i
for i in $(seq 1 "${runs}"); do
  err="${OUT}/hs_err_${workload}_run${i}_pid%p.log"
  log="${OUT}/${workload}-run${i}.log"
  t0=${EPOCHREALTIME}
  case "${workload}" in
    javac)
      rm -rf /tmp/jit-stress-classes
      jflags=()
      for o in "${jvm_opts[@]}" "-XX:ErrorFile=${err}"; do jflags+=("-J${o}"); done
      timeout -k 5 "${RUN_TIMEOUT:-600}" "${pin[@]}" javac "${jflags[@]}" -d /tmp/jit-stress-classes \
        --module-path "${guava_path}" \
        --module-source-path "org.rdmacm4j.verbs=${repo}/verbs/src/main/java" \
        --module-source-path "org.rdmacm4j.cm.statemachine=${repo}/cm-statemachine/src/main/java" \
        --module org.rdmacm4j.verbs,org.rdmacm4j.cm.statemachine > "${log}" 2>&1
      rc=$? ;;
    churn)
      timeout -k 5 "${RUN_TIMEOUT:-600}" "${pin[@]}" java "${jvm_opts[@]}" "-XX:ErrorFile=${err}" \
        -cp "${OUT}/churn-classes" JitChurn "${CHURN_SECONDS:-60}" > "${log}" 2>&1
      rc=$? ;;
    storm)
      port=$((port + 1))
      timeout -k 5 "${RUN_TIMEOUT:-600}" cmtime -b "${server}" -p "${port}" -c "${n}" > "${log}.server" 2>&1 &
      spid=$!
      if await_listen "${server}" "${port}"; then
        timeout -k 5 "${RUN_TIMEOUT:-600}" "${pin[@]}" java "${jvm_opts[@]}" "-XX:ErrorFile=${err}" \
          --module-path "${mp}" --enable-native-access=org.rdmacm4j.verbs \
          -m org.rdmacm4j.examples/org.rdmacm4j.examples.Cmtime \
          -s "${server}" -b "${client}" -p "${port}" -c "${n}" > "${log}" 2>&1
        rc=$?
      else
        echo "cmtime server never listened on ${server}:${port}" > "${log}"; rc=98
      fi
      kill "${spid}" 2>/dev/null; wait "${spid}" 2>/dev/null
      # a crashed client leaves its ids to the kernel; wait until rxe0 is back at rest
      for _ in $(seq 1 50); do timeout 10 rdma resource show cm_id 2>/dev/null | grep -q . || break; sleep 0.2; done ;;
    *) echo "jit-stress: unknown workload ${workload}" >&2; exit 2 ;;
  esac
  secs=$(echo "${EPOCHREALTIME} - ${t0}" | bc)
  hs=$(ls "${OUT}/hs_err_${workload}_run${i}_pid"*.log 2>/dev/null | head -n 1)
  if [[ -n "${hs}" ]]; then kind=$(kind_of "${hs}")
  elif (( rc == 0 )); then kind=ok
  else kind="fail exit ${rc}"
  fi
  printf '%s\t%s\t%s\t%.1f\t%s\n' "${workload}" "${i}" "${rc}" "${secs}" "${kind}" | tee -a "${tsv}"
done
}

IFS=, read -r -a items <<< "${spec}"
for item in "${items[@]}"; do
  run_workload "${item%%:*}" "${item#*:}"
done
