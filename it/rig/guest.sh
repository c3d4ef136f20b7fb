#!/usr/bin/env bash
# Runs a command inside a QEMU guest that has real soft-RoCE (rdma_rxe on veth0, rxe0 with
# 192.0.2.1 and 192.0.2.3) and exits with the command's exit status.
#
#   it/rig/guest.sh [--timeout SECONDS] [--out DIR] -- COMMAND [ARGS...]
#
# The guest sees the host's whole filesystem read-only (so the checkout, the JDK and ~/.m2
# are there at the same paths) and DIR read-write at its own path; the command runs from the
# current directory. Output streams live. The guest that does not come up, or a command past
# its deadline, fails with the guest's last console lines; it never hangs and never skips.
#
# Env: RDMACM4J_IT_MODE=host runs the command directly on this machine instead (for machines
#      that already have RDMA); RDMACM4J_BOOT_TIMEOUT (default 240 s); RDMACM4J_CACHE;
#      RDMACM4J_KERNEL_PACKAGE; RDMACM4J_GUEST_MEM (MiB, default 4096); RDMACM4J_GUEST_CLOCK
#      (tsc, the default, or kernel: the guest's clocksource, see rig_clock_cmdline in rig-lib.sh);
#      RDMACM4J_GUEST_TCG (multi, the default, or single: QEMU's -accel tcg,thread=...),
#      RDMACM4J_GUEST_SMP (vCPUs, default 2), RDMACM4J_GUEST_CPU (QEMU -cpu model, default max):
#      see rig_qemu_cpu_words in rig-lib.sh and docs/jit-stress.md. RDMACM4J_GUEST_PLUGIN: a TCG
#      plugin for QEMU's -plugin (FILE.so[,ARG=VALUE...]; benchmarks/insn-count.sh's counter).
set -euo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${rigdir}/../.." && pwd)
# shellcheck source=kernel.sh
source "${rigdir}/kernel.sh"
# shellcheck source=resources.sh
source "${rigdir}/resources.sh"
# shellcheck source=rig-lib.sh
source "${rigdir}/rig-lib.sh"

timeout_s=900
out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --timeout) timeout_s="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; break ;;
    *) rig_die "usage: guest.sh [--timeout SECONDS] [--out DIR] -- COMMAND [ARGS...]" ;;
  esac
done
[[ $# -gt 0 ]] || rig_die "usage: guest.sh [--timeout SECONDS] [--out DIR] -- COMMAND [ARGS...]"
[[ -n "${out}" ]] || out="${repo}/it/target/guest/run-$(date +%Y%m%d-%H%M%S)-$$"
out=$(rig_results_dir "${out}" "${repo}")
rm -f "${out}/exit-status" "${out}/console.log"

{ printf '# the command guest.sh was asked to run\n'; printf '%q ' "$@"; printf '\n'; } > "${out}/job.sh"

if [[ "${RDMACM4J_IT_MODE:-guest}" == host ]]; then
  # A machine with its own RDMA: same job, same resting snapshot, no guest.
  command -v rdma >/dev/null || rig_die "RDMACM4J_IT_MODE=host needs the 'rdma' tool (apt-get install iproute2)"
  rig_snapshot_resting "${out}" || rig_die "rdma resource show failed: does this machine have RDMA?"
  echo "rig: host mode: running on this machine's RDMA ($(tr '\n' ' ' < "${out}/rdma-resting.txt"))" >&2
  set +e
  RDMACM4J_RESTING_FILE="${out}/rdma-resting.txt" RDMACM4J_OUT="${out}" timeout -k 10 "${timeout_s}" bash "${out}/job.sh"
  status=$?
  rig_snapshot_after "${out}"
  exit "${status}"
fi

"${repo}/scripts/ensure-host-packages.sh"
rig_prepare_kernel
cat > "${out}/job.env" <<ENV
RIG_KTREE=$(printf '%q' "${RIG_KTREE}")
RIG_KVER=$(printf '%q' "${RIG_KVER}")
JOB_CWD=$(printf '%q' "${PWD}")
JOB_TIMEOUT=${timeout_s}
JAVA_HOME=$(printf '%q' "${JAVA_HOME:-}")
ENV

clock_words=$(rig_clock_cmdline)   # dies here on a bad RDMACM4J_GUEST_CLOCK
cpu_line=$(rig_qemu_cpu_words)     # dies here on a bad RDMACM4J_GUEST_TCG/SMP/CPU
read -r -a cpu_words <<< "${cpu_line}"
plugin_words=()
[[ -z "${RDMACM4J_GUEST_PLUGIN:-}" ]] || plugin_words=(-plugin "${RDMACM4J_GUEST_PLUGIN}")
boot_timeout="${RDMACM4J_BOOT_TIMEOUT:-240}"
console="${out}/console.log"
: > "${console}"
echo "rig: booting ${RIG_KVER} under QEMU/TCG (${cpu_words[*]}); results in ${out}" >&2
qemu-system-x86_64 "${cpu_words[@]}" "${plugin_words[@]}" -m "${RDMACM4J_GUEST_MEM:-4096}" \
  -nographic -no-reboot -nic none -serial "file:${console}" -monitor none -display none \
  -kernel "${RIG_VMLINUZ}" -initrd "${RIG_INITRAMFS}" \
  -append "console=ttyS0 quiet loglevel=3 panic=-1 rdmacm4j.out=${out} rdmacm4j.setup=${rigdir}/guest-setup.sh rdmacm4j.repo=${repo} ${clock_words}" \
  -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=${repo},mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=${out},mount_tag=results,security_model=none,multidevs=remap" \
  > "${out}/qemu.log" 2>&1 < /dev/null &
qemu_pid=$!
# The BIOS paints the screen with escape sequences; drop them from the streamed copy.
tail -n +1 -f --pid="${qemu_pid}" "${console}" 2>/dev/null | sed -u 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' &
tail_pid=$!

stop_guest() {
  kill "${qemu_pid}" 2>/dev/null || true
  sleep 1
  kill -9 "${qemu_pid}" 2>/dev/null || true
  wait "${qemu_pid}" 2>/dev/null || true
  kill "${tail_pid}" 2>/dev/null || true
}
guest_failed() {
  stop_guest
  {
    echo "rig: FAILED: $*"
    echo "rig: last console lines (${console}):"
    tail -n 40 "${console}" | sed 's/^/  | /'
    [[ -s "${out}/qemu.log" ]] && { echo "rig: qemu said:"; sed 's/^/  | /' "${out}/qemu.log"; }
  } >&2
  exit 2
}
trap 'stop_guest; exit 130' INT TERM

start=${SECONDS}
while kill -0 "${qemu_pid}" 2>/dev/null; do
  elapsed=$((SECONDS - start))
  if ! grep -q 'rdmacm4j-guest: ready' "${console}" && ! grep -q 'rdmacm4j-guest: SETUP FAILED' "${console}"; then
    (( elapsed < boot_timeout )) || guest_failed "the guest did not come up within ${boot_timeout} s"
  fi
  (( elapsed < boot_timeout + timeout_s + 60 )) || guest_failed "the guest did not finish within $((boot_timeout + timeout_s + 60)) s"
  sleep 1
done
wait "${qemu_pid}" 2>/dev/null || true
sleep 0.2
kill "${tail_pid}" 2>/dev/null || true
wait "${tail_pid}" 2>/dev/null || true

[[ -f "${out}/exit-status" ]] || guest_failed "the guest powered off without an exit status"
status=$(cat "${out}/exit-status")
case "${status}" in
  setup-failed*) echo "rig: FAILED: soft-RoCE setup in the guest: ${status#setup-failed: }" >&2; exit 2 ;;
  ''|*[!0-9]*) echo "rig: FAILED: unreadable exit status '${status}'" >&2; exit 2 ;;
esac
if (( status == 124 || status == 137 )); then
  echo "rig: FAILED: the job passed its deadline of ${timeout_s} s and was killed (console: ${console})" >&2
else
  echo "rig: guest job exited with ${status} after $((SECONDS - start)) s" >&2
fi
exit "${status}"
