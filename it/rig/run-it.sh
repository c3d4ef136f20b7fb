#!/usr/bin/env bash
# Runs the `it` suite inside the soft-RoCE guest (two guests in parallel by default, see "The
# split" below) with the JUnit console launcher and copies its XML reports to it/target/it-reports/.
# Needs a prior `./mvnw install` (or package), which compiles the tests and writes
# it/target/it-classpath.txt and the launcher jar.
#
# Env: RDMACM4J_IT_SELECT  launcher selectors instead of scanning every *IT class, e.g.
#                          "--select-package=org.rdmacm4j.it.verbs" (runs in one guest)
#      RDMACM4J_IT_GUESTS  1 or 2: how many guests share the suite (default 2 with the default JVM
#                          and no RDMACM4J_IT_SELECT, else 1); see "The split"
#      RDMACM4J_IT_TIMEOUT each guest's deadline in seconds (default 2400: one guest took 756-954 s
#                          in the CI runs of 2026-11-23 with C1 on MTTCG, and past 1500 s on a host
#                          loaded by other builds)
#      RDMACM4J_IT_TEST_TIMEOUT each test method's (and lifecycle method's) deadline in seconds, where
#                          the test sets none itself (@Timeout); default 600, or RDMACM4J_IT_TIMEOUT
#                          when the caller raised the guest's deadline for a long on-demand run
#                          (run-leak.sh, a long soak). See "A test that hangs" below.
#      RDMACM4J_IT_JAVA_OPTS extra JVM options for the guest JVM, e.g. the on-demand load step
#                          "-Drdmacm4j.it.liveConnections=10000 -Xmx3g"
#      RDMACM4J_IT_JIT      default (the JDK's default JIT and GC, on a tiered-safe guest) or c1
#                          (-XX:TieredStopAtLevel=1 -XX:+UseSerialGC on the MTTCG guest); see below
#      RDMACM4J_IT_OPEN_FILES open-file limit for the guest JVM (ulimit -n), for on-demand
#                          load runs: every connection holds one completion-channel fd, and
#                          the default hard limit (4096) stops at 2,000 pairs (EMFILE)
#      RDMACM4J_IT_OUTSIDE=off  do not run the outside project first (see below)
#      RDMACM4J_IT_MODE=host, RDMACM4J_SERVER_ADDR/CLIENT_ADDR/DEVICE: see README (host mode: one
#                          "guest", this machine).
#
# The JVM: the JDK's default JIT and GC (tiered C1+C2; G1, the default in a 2-vCPU guest), the JVM
# users run, in a guest that runs tiered JVMs reliably: QEMU's multi-threaded TCG (MTTCG) corrupts
# a tiered JVM's freshly patched compiled code now and then (javac with the JDK's defaults crashed
# in 3 of 8 runs on MTTCG, 0 of 4 with thread=single: docs/jit-stress.md), so the suite's guests
# run with RDMACM4J_GUEST_TCG=single (one host thread runs both vCPUs) unless the caller set it.
# The JVMs the tests start (peers, the example twins through examples/launch.sh) get the same
# flags (ChildJvm, RDMACM4J_JAVA_FLAGS). Every JVM's crash report lands in the results dir, and
# run-it copies it to the reports and says so.
# RDMACM4J_IT_JIT=c1 runs the old way instead: C1 only and the serial GC on one MTTCG guest
# (faster under TCG, but not the JVM users run). No test class needs C1.
#
# The split: a thread=single guest uses one host core, so one such guest runs CPU-bound work
# about half as fast as an MTTCG guest, and the whole suite in it took too long for CI (see
# docs/jit-stress.md for the figures). Two thread=single guests run in parallel instead, and
# together use the machine's two cores: guest 1 runs the classes listed in it/rig/it-guest1.txt
# (the long ones, chosen by their times in the JUnit reports so the two guests end about
# together), guest 2 runs every other *IT class (so a new class lands there without a list to
# update) and, first, the outside project. Each guest has its own resting snapshot and its own
# end-of-suite check (it.Suite.guestN); its reports are renamed with -guestN and copied to
# it/target/it-reports, where scripts/TestSummary.java and ReliabilityDoc read every file.
#
# The classes in it/rig/it-own-jvm.txt (they delete and re-add RDMA devices) run each in a JVM of its
# own, after the rest of the last guest's suite (it/rig/it-own-jvm.txt says why); their reports are
# named -junit-own-CLASS. Not when RDMACM4J_IT_SELECT names the classes.
#
# The example twins' launchers record an AOT cache on a twin's first run (examples/launch.sh):
# in the guest that costs ~250 s over the suite and measures nothing, so the suite's twins run
# without it; AotCacheIT turns it on for itself and checks it. RDMACM4J_AOT=on to run them all with it.
#
# A test that hangs fails alone, with its stacks: every test method and lifecycle method without
# its own @Timeout gets RDMACM4J_IT_TEST_TIMEOUT and runs in a thread of its own
# (SEPARATE_THREAD), so a test stuck in an uninterruptible wait is failed and left behind while the
# rest of the suite goes on, and JUnit prints every thread's stack first (threaddump.enabled). The
# longest test in the CI runs takes 271 s (AotCacheIT, which sets 1,500 s itself), the next 123 s
# (SoakIT), so 600 s is a hang, not a slow machine. Without it one hung test ran its guest into the
# 2,400 s deadline and the JVM was killed with no report at all (CI of 2026-11-27, a6a6f47): nothing
# said which test. If the guest's deadline still passes, guest-setup.sh has every JVM print its
# threads first, and run-it writes what failed to it/target/run-it-problems.txt, which run-tests
# prints at its very end (CI keeps the tail of the output).
#
# The outside project (it/outside-project: a separate Maven project built by run-tests against
# the installed artifacts, it/outside-project/build.sh) runs first in a guest's job (the last
# guest's), so it costs no extra boot: its report goes to it/target/outside-project-reports/,
# which run-tests' summary requires (it is not built: no report, and the summary fails).
set -euo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${rigdir}/../.." && pwd)
target="${repo}/it/target"
# shellcheck source=rig-lib.sh
source "${rigdir}/rig-lib.sh"
# shellcheck source=resources.sh
source "${rigdir}/resources.sh"
rig_require_build "${target}" run-it
[[ "${RDMACM4J_IT_OPEN_FILES:-0}" =~ ^[0-9]+$ ]] \
  || { echo "run-it: RDMACM4J_IT_OPEN_FILES must be a number, not '${RDMACM4J_IT_OPEN_FILES}'" >&2; exit 2; }
timeout_s="${RDMACM4J_IT_TIMEOUT:-2400}"
test_timeout_s="${RDMACM4J_IT_TEST_TIMEOUT:-$([[ -n "${RDMACM4J_IT_TIMEOUT:-}" ]] && echo "${timeout_s}" || echo 600)}"
[[ "${timeout_s}" =~ ^[0-9]+$ && "${test_timeout_s}" =~ ^[0-9]+$ ]] \
  || { echo "run-it: RDMACM4J_IT_TIMEOUT and RDMACM4J_IT_TEST_TIMEOUT must be numbers of seconds" >&2; exit 2; }
server_addr="${RDMACM4J_SERVER_ADDR:-192.0.2.1}" client_addr="${RDMACM4J_CLIENT_ADDR:-192.0.2.3}"

jit_guest_tcg=single   # the tiered-safe guest (docs/jit-stress.md)
case "${RDMACM4J_IT_JIT:-default}" in
  default) jit_flags=(); default_guests=2 ;;
  c1) jit_flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC); jit_guest_tcg=multi; default_guests=1 ;;
  *) echo "run-it: RDMACM4J_IT_JIT must be default or c1, not '${RDMACM4J_IT_JIT}'" >&2; exit 2 ;;
esac
[[ -z "${RDMACM4J_IT_SELECT:-}" && "${RDMACM4J_IT_MODE:-guest}" != host ]] || default_guests=1
guests="${RDMACM4J_IT_GUESTS:-${default_guests}}"
[[ "${guests}" == 1 || "${guests}" == 2 ]] \
  || { echo "run-it: RDMACM4J_IT_GUESTS must be 1 or 2, not '${guests}'" >&2; exit 2; }
if (( guests == 2 )) && [[ -n "${RDMACM4J_IT_SELECT:-}" || "${RDMACM4J_IT_MODE:-guest}" == host ]]; then
  echo "run-it: RDMACM4J_IT_GUESTS=2 splits the whole suite: not with RDMACM4J_IT_SELECT or RDMACM4J_IT_MODE=host" >&2; exit 2
fi
export RDMACM4J_GUEST_TCG="${RDMACM4J_GUEST_TCG:-${jit_guest_tcg}}"
jit_words="${jit_flags[*]}"
echo "run-it: JVM flags: ${jit_words:-none (the JDK defaults)}; ${guests} guest(s), TCG ${RDMACM4J_GUEST_TCG}, ${RDMACM4J_GUEST_SMP:-2} vCPUs each" >&2

extra_java_opts=()
if [[ -n "${RDMACM4J_IT_JAVA_OPTS:-}" ]]; then
  read -r -a extra_java_opts <<< "${RDMACM4J_IT_JAVA_OPTS}"
fi

# read_class_list FILE: the classes FILE lists (comments and blanks dropped), into `listed`; every
# one must be a compiled test class (a stale name would silently move nothing).
read_class_list() {
  local c
  mapfile -t listed < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$1")
  (( ${#listed[@]} > 0 )) || { echo "run-it: $1 lists no class" >&2; exit 2; }
  for c in "${listed[@]}"; do
    [[ -f "${target}/test-classes/${c//.//}.class" ]] \
      || { echo "run-it: $1 names ${c}, which is not a compiled test class" >&2; exit 2; }
  done
}

# The classes that run in a JVM of their own each, after the rest of the last guest's suite
# (it/rig/it-own-jvm.txt says why); none when RDMACM4J_IT_SELECT names the classes.
own_jvm_classes=()
own_exclude=""
if [[ -z "${RDMACM4J_IT_SELECT:-}" ]]; then
  read_class_list "${rigdir}/it-own-jvm.txt"
  own_jvm_classes=("${listed[@]}")
  for c in "${own_jvm_classes[@]}"; do own_exclude+="${own_exclude:+|}${c//./\\.}"; done
fi

# Which classes each guest runs. The launcher's default class-name filter
# (^(Test.*|.+[.$]Test.*|.*Tests?)$) would drop every *IT class, with explicit selectors too.
selectors_1=() selectors_2=()
if (( guests == 1 )); then
  selectors_1=(--scan-class-path "${target}/test-classes")
  if [[ -n "${RDMACM4J_IT_SELECT:-}" ]]; then
    read -r -a selectors_1 <<< "${RDMACM4J_IT_SELECT}"
  else
    selectors_1+=(--exclude-classname "^(${own_exclude})\$")
  fi
  selectors_1+=(--include-classname '.*IT')
else
  read_class_list "${rigdir}/it-guest1.txt"
  exclude="${own_exclude}"
  for c in "${listed[@]}"; do
    [[ " ${own_jvm_classes[*]} " != *" ${c} "* ]] \
      || { echo "run-it: ${c} is in it-guest1.txt and in it-own-jvm.txt: one or the other" >&2; exit 2; }
    selectors_1+=("--select-class=${c}")
    exclude+="${exclude:+|}${c//./\\.}"
  done
  selectors_1+=(--include-classname '.*IT')
  selectors_2=(--scan-class-path "${target}/test-classes" --include-classname '.*IT' --exclude-classname "^(${exclude})\$")
fi

stamp="${target}/guest/it-$(date +%Y%m%d-%H%M%S)-$$"
reports="${target}/it-reports"
problems="${target}/run-it-problems.txt"
rm -f "${problems}"
# problem TEXT...: says it now and keeps it for run-tests' closing lines.
problem() { echo "run-it: FAILED: $*" >&2; echo "$*" >> "${problems}"; }
outside_reports="${target}/outside-project-reports"
rm -rf "${reports}" "${outside_reports}"
mkdir -p "${reports}"
outside_guest="${guests}"
outside_built=no
[[ -f "${repo}/it/outside-project/target/outside.jar" ]] && outside_built=yes
if [[ "${RDMACM4J_IT_OUTSIDE:-on}" == off || "${outside_built}" == no ]]; then
  echo "run-it: the outside project is not run (RDMACM4J_IT_OUTSIDE=${RDMACM4J_IT_OUTSIDE:-on}, built: ${outside_built})" >&2
  outside_guest=0
fi

# junit_jvm N OUT REPORTS SELECTORS...: one JVM of the suite (guest N), into the array `jvm`.
junit_jvm() {
  local n="$1" out="$2" reports_dir="$3"; shift 3
  local flags=("${jit_flags[@]}" "-XX:ErrorFile=${out}/hs_err_pid%p.log")
  jvm=(env "RDMACM4J_AOT=${RDMACM4J_AOT:-off}" "RDMACM4J_JAVA_FLAGS=${flags[*]}" java "${flags[@]}"
    --enable-native-access=ALL-UNNAMED
    "${extra_java_opts[@]}"
    "-Drdmacm4j.it.resting=${out}/rdma-resting.txt"
    "-Drdmacm4j.it.serverAddr=${server_addr}"
    "-Drdmacm4j.it.clientAddr=${client_addr}"
    "-Drdmacm4j.it.device=${RDMACM4J_DEVICE:-rxe0}"
    -jar "${target}/launcher/junit-console.jar" execute
    --disable-banner --disable-ansi-colors --details=testfeed --fail-if-no-tests
    "--config=junit.jupiter.execution.timeout.default=${test_timeout_s} s"
    --config=junit.jupiter.execution.timeout.thread.mode.default=SEPARATE_THREAD
    --config=junit.jupiter.execution.timeout.threaddump.enabled=true
    --class-path "${target}/test-classes:${target}/classes:$(cat "${target}/it-classpath.txt")"
    --reports-dir "${reports_dir}"
    "$@")
}

# own_jvm_guest: the guest that runs it-own-jvm.txt's classes (the last one).
own_jvm_guest="${guests}"

# guest_job N OUT: the command guest N runs, into the array `job`: its JVMs one after the other (a
# script in OUT), exit status the first non-zero one.
guest_job() {
  local n="$1" out="$2" flags=("${jit_flags[@]}" "-XX:ErrorFile=${out}/hs_err_pid%p.log") sel c
  if (( n == 1 )); then sel=("${selectors_1[@]}"); else sel=("${selectors_2[@]}"); fi
  {
    echo 'status=0'
    junit_jvm "${n}" "${out}" "${out}/junit" "${sel[@]}"
    printf '%q ' "${jvm[@]}"; echo '|| status=$?'
    if (( n == own_jvm_guest )); then
      for c in "${own_jvm_classes[@]}"; do
        junit_jvm "${n}" "${out}" "${out}/junit-own-${c##*.}" "--select-class=${c}" --include-classname '.*IT'
        printf '%q ' "${jvm[@]}"; echo '|| { s=$?; (( status == 0 )) && status=${s}; }'
      done
    fi
    echo 'exit "${status}"'
  } > "${out}/it-jvms.sh"
  job=(bash "${out}/it-jvms.sh")
  if [[ -n "${RDMACM4J_IT_OPEN_FILES:-}" ]]; then
    job=(bash -c 'ulimit -n "$1" && shift && exec "$@"' ulimit "${RDMACM4J_IT_OPEN_FILES}" "${job[@]}")
  fi
  if (( n == outside_guest )); then
    # Its failure does not stop the suite: the summary counts its report.
    job=(env "RDMACM4J_JAVA_FLAGS=${flags[*]}" bash -c '"$1" "$2" "$3" "$4"; shift 4; exec "$@"' outside
      "${repo}/it/outside-project/check.sh" "${out}/outside" "${server_addr}" "${client_addr}" "${job[@]}")
  fi
}

# run_guest N OUT: boots guest N on its job; its exit status and seconds go to OUT/run-it.*.
run_guest() {
  local n="$1" out="$2" t=${SECONDS} status=0
  guest_job "${n}" "${out}"
  (cd "${repo}" && "${rigdir}/guest.sh" --timeout "${timeout_s}" --out "${out}" -- "${job[@]}") || status=$?
  echo "${status}" > "${out}/run-it.status"
  echo $((SECONDS - t)) > "${out}/run-it.seconds"
}

# collect N OUT SUFFIX: copies guest N's reports (renamed with SUFFIX) and writes its end-of-suite
# check; returns 1 if the guest failed, left the kernel not at rest, or wrote no JUnit report.
collect() {
  local n="$1" out="$2" sfx="$3" status fails verdict x
  status=$(cat "${out}/run-it.status" 2>/dev/null || echo 2)
  echo "run-it: guest ${n} exited ${status} after $(cat "${out}/run-it.seconds" 2>/dev/null || echo '?') s (results ${out})" >&2
  for x in "${out}"/junit/TEST-*.xml; do
    [[ -e "${x}" ]] && cp "${x}" "${reports}/$(basename "${x}" .xml)${sfx}.xml"
  done
  for x in "${out}"/junit-own-*/TEST-*.xml; do   # the classes of a JVM of their own
    [[ -e "${x}" ]] && cp "${x}" "${reports}/$(basename "${x}" .xml)-$(basename "$(dirname "${x}")")${sfx}.xml"
  done
  if [[ -d "${out}/outside" ]]; then
    mkdir -p "${outside_reports}"
    cp "${out}"/outside/* "${outside_reports}/" 2>/dev/null || true
  fi
  for x in "${out}"/rdma-*.txt "${out}/console.log"; do
    [[ -e "${x}" ]] && cp "${x}" "${reports}/$(basename "${x%.*}")${sfx}.${x##*.}"
  done
  [[ "${status}" == 0 ]] || problem "guest ${n}'s job exited ${status} after $(cat "${out}/run-it.seconds" 2>/dev/null || echo '?') s$( ((status == 124 || status == 137)) && echo " (killed at its ${timeout_s} s deadline; thread dumps in its console.log)")"
  if ls "${out}"/hs_err_pid*.log >/dev/null 2>&1; then
    problem "a JVM in guest ${n} crashed: $(ls "${out}"/hs_err_pid*.log | tr '\n' ' ')"
    for x in "${out}"/hs_err_pid*.log; do cp "${x}" "${reports}/$(basename "${x}" .log)${sfx}.log"; done
  fi
  # Scenario tables for docs/reliability.md (scripts/ReliabilityDoc.java), from the tests that passed.
  cp "${out}"/reliability-*.md "${reports}/" 2>/dev/null || true
  # This guest's leak check, from outside the JVM after it exited: no allowance at all.
  if [[ -f "${out}/rdma-resting.txt" ]]; then
    if [[ -f "${out}/rdma-after.txt" ]] && rig_same_resources "${out}/rdma-resting.txt" "${out}/rdma-after.txt"; then
      fails=0
      verdict="<testcase classname=\"it.Suite${sfx:+.${sfx#-}}\" name=\"kernelBackAtRestingCountsAfterTheSuite\"/>"
    else
      problem "rdma resource show after guest ${n}'s part of the suite differs from before it"
      diff "${out}/rdma-resting.txt" "${out}/rdma-after.txt" >&2 || true
      fails=1
      verdict="<testcase classname=\"it.Suite${sfx:+.${sfx#-}}\" name=\"kernelBackAtRestingCountsAfterTheSuite\"><failure message=\"not back at rest\"><![CDATA[before:
$(cat "${out}/rdma-resting.txt")
after:
$(cat "${out}/rdma-after.txt" 2>/dev/null)]]></failure></testcase>"
      status=1
    fi
    cat > "${reports}/TEST-it-suite-at-rest${sfx}.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="it.Suite${sfx:+.${sfx#-}}" tests="1" failures="${fails}" errors="0" skipped="0">${verdict}</testsuite>
XML
  fi
  if (( n == own_jvm_guest )); then
    for x in "${own_jvm_classes[@]}"; do
      [[ -e "${out}/junit-own-${x##*.}/TEST-junit-jupiter.xml" ]] || { problem "guest ${n}'s JVM for ${x} wrote no JUnit XML report (exit ${status}); see ${out}"; status=2; }
    done
  fi
  if [[ ! -e "${out}/junit/TEST-junit-jupiter.xml" ]]; then
    problem "guest ${n} produced no JUnit XML report (exit ${status}); see ${out}; the last tests its console names:
$(grep ' :: \(STARTED\|SUCCESSFUL\|FAILED\|ABORTED\)' "${out}/console.log" 2>/dev/null | tail -n 8 | sed 's/^/    | /')
  and its last lines:
$(grep -v '^\s*$' "${out}/console.log" 2>/dev/null | tail -n 6 | sed 's/^/    | /')"
    return 2
  fi
  (( status == 0 ))
}

status=0
if (( guests == 1 )); then
  mkdir -p "${stamp}/junit"
  run_guest 1 "${stamp}"
  collect 1 "${stamp}" "" || status=$?
else
  pids=()
  trap 'kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM
  for n in 1 2; do
    mkdir -p "${stamp}/guest${n}/junit"
    # Each line of a guest's console and the rig's messages carries its guest's name.
    run_guest "${n}" "${stamp}/guest${n}" > >(sed -u "s/^/[guest${n}] /") 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}" || true
  trap - INT TERM
  for n in 1 2; do
    collect "${n}" "${stamp}/guest${n}" "-guest${n}" || { s=$?; (( s > status )) && status=${s}; }
  done
fi
exit "${status}"
