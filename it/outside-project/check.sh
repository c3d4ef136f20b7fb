#!/usr/bin/env bash
# Runs the outside project's program (SelfConnect) where RDMA is: inside the soft-RoCE guest
# (it/rig/run-it.sh runs this as the first thing of its guest job, so it costs no extra boot) or
# on a machine with its own RDMA (RDMACM4J_IT_MODE=host). Writes OUTDIR/TEST-outside-project.xml,
# the JUnit report run-tests' summary counts, and OUTDIR/outside-project.log. Exits with the
# program's status (0 only if the connection to itself worked and everything was checked).
#
#   it/outside-project/check.sh OUTDIR SERVER_ADDR CLIENT_ADDR      (env RDMACM4J_JAVA_FLAGS: the JVM's flags)
#
# Needs it/outside-project/build.sh first. The JVM gets the module path and native access for the
# exact module org.rdmacm4j.verbs; --illegal-native-access=deny makes any other module's
# restricted call an error instead of a warning, so a wrong flag cannot pass.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
outdir=$1 server=$2 client=$3
mkdir -p "${outdir}"
log="${outdir}/outside-project.log"
java="${JAVA_HOME:+${JAVA_HOME}/bin/}java"
target="${here}/target"

start=${SECONDS}
if [[ -f "${target}/outside.jar" && -d "${target}/lib" ]]; then
  # The suite's JVM flags (run-it.sh passes them in RDMACM4J_JAVA_FLAGS: none, the JDK's defaults,
  # unless RDMACM4J_IT_JIT=c1); unset, the examples' launcher's (scripts/jvm-flags.sh).
  source "${here}/../../scripts/jvm-flags.sh"
  rdmacm4j_jvm_flags
  timeout -k 5 180 "${java}" "${jvm_flags[@]}" \
    --enable-native-access=org.rdmacm4j.verbs --illegal-native-access=deny \
    --module-path "${target}/outside.jar:${target}/lib" \
    --module com.example.outside/com.example.outside.SelfConnect "${server}" "${client}" 2>&1 | tee "${log}"
  prog_status=${PIPESTATUS[0]}
else
  echo "outside-project: FAILED: ${target}/outside.jar is not built (it/outside-project/build.sh)" | tee "${log}"
  prog_status=2
fi
status=${prog_status}
elapsed=$((SECONDS - start))
echo "outside-project: exit ${prog_status} after ${elapsed} s"

# The kernel back at its resting counts (rig's snapshot before the job), as the suite checks
# for itself: the program must not leave a cm_id, QP, CQ, PD or MR behind.
rest_case='<testcase classname="outside.SelfConnect" name="kernelBackAtRestingCounts"><skipped message="no resting snapshot (RDMACM4J_RESTING_FILE)"/></testcase>'
rest_fail=0 rest_skip=1
if [[ -n "${RDMACM4J_RESTING_FILE:-}" && -f "${RDMACM4J_RESTING_FILE}" ]]; then
  rest_skip=0
  source "${here}/../rig/resources.sh"
  cp "${RDMACM4J_RESTING_FILE}" "${outdir}/rdma-resting.txt"   # rig_snapshot_after settles against it
  rig_snapshot_after "${outdir}"
  if rig_same_resources "${outdir}/rdma-resting.txt" "${outdir}/rdma-after.txt"; then
    rest_case='<testcase classname="outside.SelfConnect" name="kernelBackAtRestingCounts"/>'
  else
    rest_fail=1
    echo "outside-project: FAILED: rdma resource show after the program differs from before it" >&2
    rest_case="<testcase classname=\"outside.SelfConnect\" name=\"kernelBackAtRestingCounts\"><failure message=\"not back at rest\"><![CDATA[before:
$(cat "${outdir}/rdma-resting.txt")
after:
$(cat "${outdir}/rdma-after.txt")]]></failure></testcase>"
    (( status == 0 )) && status=1
  fi
fi

if (( prog_status == 0 )) && [[ "$(tail -n 1 "${log}")" == "outside-project: OK" ]]; then
  main_case="<testcase classname=\"outside.SelfConnect\" name=\"connectsToItselfFromTheModulePath\" time=\"${elapsed}\"/>"
  fails=0
else
  main_case="<testcase classname=\"outside.SelfConnect\" name=\"connectsToItselfFromTheModulePath\" time=\"${elapsed}\"><failure message=\"exit ${prog_status}\"><![CDATA[$(sed 's/]]>/]] >/g' "${log}")]]></failure></testcase>"
  fails=1
  (( status == 0 )) && status=1
fi
cat > "${outdir}/TEST-outside-project.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="outside.SelfConnect" tests="2" failures="$((fails + rest_fail))" errors="0" skipped="${rest_skip}">
${main_case}
${rest_case}
</testsuite>
XML
exit "${status}"
