#!/usr/bin/env bash
# Checks that the rig fails loudly instead of hanging or skipping: a kernel package that does
# not exist, a guest that cannot boot in time, a QEMU mode that does not exist (RDMACM4J_GUEST_TCG),
# and a job past its deadline must each end in a
# non-zero exit with a clear message. Writes a JUnit XML report to it/target/rig-selftest/.
set -uo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${rigdir}/../.." && pwd)
dir="${repo}/it/target/rig-selftest"
rm -rf "${dir}"; mkdir -p "${dir}"
cases=""; failures=0; count=0

xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

# check NAME EXPECTED_MESSAGE_REGEX -- COMMAND...: COMMAND must exit non-zero, within its
# own deadline, saying EXPECTED_MESSAGE on stderr.
check() {
  local name="$1" expected="$2" log="${dir}/${1}.log" start status
  shift 3
  count=$((count + 1)); start=${SECONDS}
  timeout -k 5 400 "$@" > "${log}" 2>&1
  status=$?
  local seconds=$((SECONDS - start)) failure=""
  if (( status == 0 )); then failure="exited 0; a broken rig must fail"
  elif (( seconds >= 400 )); then failure="hung until the self-check's own 400 s deadline"
  elif ! grep -Eq "${expected}" "${log}"; then failure="exit ${status} without the expected message /${expected}/"
  fi
  if [[ -n "${failure}" ]]; then
    failures=$((failures + 1))
    echo "rig self-check ${name}: FAILED: ${failure}" >&2; tail -n 15 "${log}" | sed 's/^/  | /' >&2
    cases+="<testcase classname=\"rig.SelfCheck\" name=\"${name}\" time=\"${seconds}\"><failure message=\"$(echo "${failure}" | xml_escape)\"><![CDATA[$(tail -n 40 "${log}")]]></failure></testcase>"
  else
    echo "rig self-check ${name}: ok (exit ${status} after ${seconds} s: $(grep -Eo "${expected}.*" "${log}" | head -n 1))" >&2
    cases+="<testcase classname=\"rig.SelfCheck\" name=\"${name}\" time=\"${seconds}\"/>"
  fi
}

out="${repo}/it/target/guest/selftest"
check missingKernelFailsClearly "rig: FAILED: cannot download kernel package" -- \
  env RDMACM4J_KERNEL_PACKAGE=linux-image-0.0.0-rdmacm4j-no-such-kernel-amd64 \
      RDMACM4J_CACHE="${repo}/it/target/guest/selftest-cache" \
      "${rigdir}/guest.sh" --out "${out}-kernel" -- true
check bootDeadlineFailsWithConsole "rig: FAILED: the guest did not come up within 2 s" -- \
  env RDMACM4J_BOOT_TIMEOUT=2 "${rigdir}/guest.sh" --out "${out}-boot" -- true
check badGuestModeFailsClearly "rig: FAILED: RDMACM4J_GUEST_TCG must be multi or single" -- \
  env RDMACM4J_GUEST_TCG=bogus "${rigdir}/guest.sh" --out "${out}-mode" -- true
check jobDeadlineIsEnforced "rig: FAILED: the job passed its deadline of 5 s" -- \
  "${rigdir}/guest.sh" --timeout 5 --out "${out}-job" -- sleep 600

cat > "${dir}/TEST-rig-selftest.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="rig.SelfCheck" tests="${count}" failures="${failures}" errors="0" skipped="0">${cases}</testsuite>
XML
(( failures == 0 ))
