#!/usr/bin/env bash
# Runs the `it` suite inside the soft-RoCE guest with the JUnit console launcher and copies its
# XML reports to it/target/it-reports/. Needs a prior `./mvnw install` (or package), which
# compiles the tests and writes it/target/it-classpath.txt and the launcher jar.
#
# Env: RDMACM4J_IT_SELECT  launcher selectors instead of scanning every *IT class, e.g.
#                          "--select-package=org.rdmacm4j.it.verbs"
#      RDMACM4J_IT_TIMEOUT whole-suite deadline in seconds (default 2400: the suite took 756-954 s in the CI runs of 2026-11-23, and past 1500 s on a host loaded by other builds)
#      RDMACM4J_IT_JAVA_OPTS extra JVM options for the guest JVM, e.g. the on-demand load step
#                          "-Drdmacm4j.it.liveConnections=10000 -Xmx3g"
#      RDMACM4J_IT_JIT      default (the JDK's default JIT and GC, on a tiered-safe guest) or c1
#                          (-XX:TieredStopAtLevel=1 -XX:+UseSerialGC on the MTTCG guest); see below
#      RDMACM4J_IT_OPEN_FILES open-file limit for the guest JVM (ulimit -n), for on-demand
#                          load runs: every connection holds one completion-channel fd, and
#                          the default hard limit (4096) stops at 2,000 pairs (EMFILE)
#      RDMACM4J_IT_OUTSIDE=off  do not run the outside project first (see below)
#      RDMACM4J_IT_MODE=host, RDMACM4J_SERVER_ADDR/CLIENT_ADDR/DEVICE: see README.
#
# The outside project (it/outside-project: a separate Maven project built by run-tests against
# the installed artifacts, it/outside-project/build.sh) runs first in the same guest job, so it
# costs no extra boot: its report goes to it/target/outside-project-reports/, which run-tests'
# summary requires (it is not built: no report, and the summary fails).
set -euo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${rigdir}/../.." && pwd)
target="${repo}/it/target"
# shellcheck source=rig-lib.sh
source "${rigdir}/rig-lib.sh"
rig_require_build "${target}" run-it
[[ "${RDMACM4J_IT_OPEN_FILES:-0}" =~ ^[0-9]+$ ]] \
  || { echo "run-it: RDMACM4J_IT_OPEN_FILES must be a number, not '${RDMACM4J_IT_OPEN_FILES}'" >&2; exit 2; }

out="${target}/guest/it-$(date +%Y%m%d-%H%M%S)-$$"
reports="${target}/it-reports"
rm -rf "${reports}"
mkdir -p "${out}/junit" "${reports}"

selectors=(--scan-class-path "${target}/test-classes")
if [[ -n "${RDMACM4J_IT_SELECT:-}" ]]; then
  read -r -a selectors <<< "${RDMACM4J_IT_SELECT}"
fi
# The launcher's default class-name filter (^(Test.*|.+[.$]Test.*|.*Tests?)$) would drop every
# *IT class, with explicit selectors too.
selectors+=(--include-classname '.*IT')

jit_guest_tcg=single   # the tiered-safe guest (docs/jit-stress.md)
extra_java_opts=()
if [[ -n "${RDMACM4J_IT_JAVA_OPTS:-}" ]]; then
  read -r -a extra_java_opts <<< "${RDMACM4J_IT_JAVA_OPTS}"
fi
# The JVM: the JDK's default JIT and GC (tiered C1+C2; G1, the default in a 2-vCPU guest), the JVM
# users run, in a guest that runs tiered JVMs reliably: QEMU's multi-threaded TCG corrupts a
# tiered JVM's freshly patched compiled code now and then (docs/jit-stress.md has the counts), so
# this suite's guest runs with RDMACM4J_GUEST_TCG=${jit_guest_tcg} unless the caller set it.
# The JVMs the tests start (peers, the example twins through examples/launch.sh) get the same
# flags (ChildJvm, RDMACM4J_JAVA_FLAGS). Every JVM's crash report lands in the results dir.
# RDMACM4J_IT_JIT=c1 runs the old way instead: C1 only and the serial GC on the default MTTCG guest
# (faster under TCG, but not the JVM users run).
# The example twins' launchers record an AOT cache on a twin's first run (examples/launch.sh):
# in the guest that costs ~250 s over the suite and measures nothing, so the suite's twins run
# without it; AotCacheIT turns it on for itself and checks it. RDMACM4J_AOT=on to run them all with it.
case "${RDMACM4J_IT_JIT:-default}" in
  default) jit_flags=() ;;
  c1) jit_flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC); jit_guest_tcg=multi ;;
  *) echo "run-it: RDMACM4J_IT_JIT must be default or c1, not '${RDMACM4J_IT_JIT}'" >&2; exit 2 ;;
esac
export RDMACM4J_GUEST_TCG="${RDMACM4J_GUEST_TCG:-${jit_guest_tcg}}"
jit_words="${jit_flags[*]}"
echo "run-it: JVM flags: ${jit_words:-none (the JDK defaults)}; guest TCG ${RDMACM4J_GUEST_TCG}, ${RDMACM4J_GUEST_SMP:-2} vCPUs" >&2
jit_flags+=("-XX:ErrorFile=${out}/hs_err_pid%p.log")
java_cmd=(env "RDMACM4J_AOT=${RDMACM4J_AOT:-off}" "RDMACM4J_JAVA_FLAGS=${jit_flags[*]}" java "${jit_flags[@]}"
  --enable-native-access=ALL-UNNAMED
  "${extra_java_opts[@]}"
  "-Drdmacm4j.it.resting=${out}/rdma-resting.txt"
  "-Drdmacm4j.it.serverAddr=${RDMACM4J_SERVER_ADDR:-192.0.2.1}"
  "-Drdmacm4j.it.clientAddr=${RDMACM4J_CLIENT_ADDR:-192.0.2.3}"
  "-Drdmacm4j.it.device=${RDMACM4J_DEVICE:-rxe0}"
  -jar "${target}/launcher/junit-console.jar" execute
  --disable-banner --details=tree --fail-if-no-tests
  --class-path "${target}/test-classes:${target}/classes:$(cat "${target}/it-classpath.txt")"
  --reports-dir "${out}/junit"
  "${selectors[@]}")

if [[ -n "${RDMACM4J_IT_OPEN_FILES:-}" ]]; then
  java_cmd=(bash -c 'ulimit -n "$1" && shift && exec "$@"' ulimit "${RDMACM4J_IT_OPEN_FILES}" "${java_cmd[@]}")
fi

outside_reports="${target}/outside-project-reports"
rm -rf "${outside_reports}"
if [[ "${RDMACM4J_IT_OUTSIDE:-on}" != off && -f "${repo}/it/outside-project/target/outside.jar" ]]; then
  # Its failure does not stop the suite: the summary counts its report.
  java_cmd=(bash -c '"$1" "$2" "$3" "$4"; shift 4; exec "$@"' outside
    "${repo}/it/outside-project/check.sh" "${out}/outside"
    "${RDMACM4J_SERVER_ADDR:-192.0.2.1}" "${RDMACM4J_CLIENT_ADDR:-192.0.2.3}" "${java_cmd[@]}")
else
  echo "run-it: the outside project is not run (RDMACM4J_IT_OUTSIDE=${RDMACM4J_IT_OUTSIDE:-on}, built: $([[ -f "${repo}/it/outside-project/target/outside.jar" ]] && echo yes || echo no))" >&2
fi

set +e
(cd "${repo}" && "${rigdir}/guest.sh" --timeout "${RDMACM4J_IT_TIMEOUT:-2400}" --out "${out}" -- "${java_cmd[@]}")
status=$?
set -e
cp "${out}"/junit/*.xml "${reports}/" 2>/dev/null || true
if [[ -d "${out}/outside" ]]; then
  mkdir -p "${outside_reports}"
  cp "${out}"/outside/* "${outside_reports}/" 2>/dev/null || true
fi
cp "${out}"/rdma-*.txt "${out}/console.log" "${reports}/" 2>/dev/null || true
if ls "${out}"/hs_err_pid*.log >/dev/null 2>&1; then
  echo "run-it: a JVM in the guest crashed: $(ls "${out}"/hs_err_pid*.log | tr '\n' ' ')" >&2
  cp "${out}"/hs_err_pid*.log "${reports}/"
fi
# Scenario tables for docs/reliability.md (scripts/ReliabilityDoc.java), from the tests that passed.
cp "${out}"/reliability-*.md "${reports}/" 2>/dev/null || true
# Suite-level leak check, from outside the JVM after it exited: no allowance at all.
if [[ -f "${out}/rdma-resting.txt" ]]; then
  source "${rigdir}/resources.sh"
  if [[ -f "${out}/rdma-after.txt" ]] && rig_same_resources "${out}/rdma-resting.txt" "${out}/rdma-after.txt"; then
    fails=0
    verdict='<testcase classname="it.Suite" name="kernelBackAtRestingCountsAfterTheSuite"/>'
  else
    echo "run-it: FAILED: rdma resource show after the suite differs from before it" >&2
    diff "${out}/rdma-resting.txt" "${out}/rdma-after.txt" >&2 || true
    fails=1
    verdict="<testcase classname=\"it.Suite\" name=\"kernelBackAtRestingCountsAfterTheSuite\"><failure message=\"not back at rest\"><![CDATA[before:
$(cat "${out}/rdma-resting.txt")
after:
$(cat "${out}/rdma-after.txt" 2>/dev/null)]]></failure></testcase>"
    (( status == 0 )) && status=1
  fi
  cat > "${reports}/TEST-it-suite-at-rest.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="it.Suite" tests="1" failures="${fails}" errors="0" skipped="0">${verdict}</testsuite>
XML
fi
if ! ls "${reports}"/TEST-junit-jupiter.xml >/dev/null 2>&1; then
  echo "run-it: FAILED: the suite produced no JUnit XML report (exit ${status}); see ${out}" >&2
  exit 2
fi
exit "${status}"
