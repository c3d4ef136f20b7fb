#!/usr/bin/env bash
# Runs one role command in each of two QEMU/TCG guests joined by a QEMU socket netdev on
# 127.0.0.1: guest a has 192.0.2.1/24 on eth0, guest b 192.0.2.2/24, one rxe0 on eth0 in each
# (../../shared/softroce.md). Both roles' outputs stream live (prefixed a| and b|).
#
#   it/rig/two-hosts.sh [--timeout SECONDS] [--out DIR] --a 'COMMAND' --b 'COMMAND'
#
# In each guest the role's command runs (bash) with RDMACM4J_ROLE (a or b), RDMACM4J_ADDR (its
# own address), RDMACM4J_OUT (its writable results dir: DIR/a or DIR/b) and the usual resting
# snapshot. Faults on request: a role appends one line to $RDMACM4J_OUT/requests and waits for
# the same line in $RDMACM4J_OUT/done:
#   kill-a | kill-b          kill that guest's QEMU (the host dies: no FIN, no DREQ, nothing)
#   link-down-a | link-up-a  QEMU monitor set_link on that guest's NIC (the cable is pulled or
#   link-down-b | link-up-b  put back: that guest sees its carrier go, the other sees silence)
# A role that is ready for its peer (e.g. listening) creates $RDMACM4J_OUT/ready; the host then
# creates peer-ready in the other role's results dir, so neither side has to guess how long the
# other's cold JVM takes to start under TCG.
# When role a's job has ended, the host writes DIR/b/stop: role b should then finish.
#
# Exit status: 2 if a guest does not come up or the run passes its deadline (both guests are
# killed, the console tails printed); else 0 if both roles exited 0 (or b was killed on request
# after a passed), else 1. Each guest's resources are compared with its resting snapshot
# (rdma-resting.txt / rdma-after.txt in DIR/a and DIR/b) unless it was killed.
# Env: RDMACM4J_BOOT_TIMEOUT (default 300 s: two TCG guests share the cores),
#      RDMACM4J_TWO_HOST_MEM (MiB per guest, default 2048).
set -euo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${rigdir}/../.." && pwd)
# shellcheck source=kernel.sh
source "${rigdir}/kernel.sh"
# shellcheck source=resources.sh
source "${rigdir}/resources.sh"
# shellcheck source=rig-lib.sh
source "${rigdir}/rig-lib.sh"

timeout_s=600
out=""
cmd_a=""
cmd_b=""
usage="usage: two-hosts.sh [--timeout SECONDS] [--out DIR] --a 'COMMAND' --b 'COMMAND'"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --timeout) timeout_s="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --a) cmd_a="$2"; shift 2 ;;
    --b) cmd_b="$2"; shift 2 ;;
    *) rig_die "${usage}" ;;
  esac
done
[[ -n "${cmd_a}" && -n "${cmd_b}" ]] || rig_die "${usage}"
[[ "${RDMACM4J_IT_MODE:-guest}" != host ]] || rig_die "the two-host fabric needs the guests (RDMACM4J_IT_MODE=host has one host)"
[[ -n "${out}" ]] || out="${repo}/it/target/guest/two-hosts-$(date +%Y%m%d-%H%M%S)-$$"
out=$(rig_results_dir "${out}" "${repo}")
mkdir -p "${out}/a" "${out}/b"

"${repo}/scripts/ensure-host-packages.sh"
rig_prepare_kernel
clock_words=$(rig_clock_cmdline)   # dies here on a bad RDMACM4J_GUEST_CLOCK
ctl=$(mktemp -d)   # host-only: the monitors' FIFOs
boot_timeout="${RDMACM4J_BOOT_TIMEOUT:-300}"
port=$(( 20000 + (RANDOM % 20000) ))

declare -A qpid=() killed=() addr=([a]=192.0.2.1 [b]=192.0.2.2) mac=([a]=52:54:00:0f:00:01 [b]=52:54:00:0f:00:02)
declare -A cmd=([a]="${cmd_a}" [b]="${cmd_b}") tails=()

start_guest() {
  local r="$1" sock="$2" o="${out}/$1"
  rm -f "${o}/exit-status" "${o}/requests" "${o}/done" "${o}/stop" "${o}/ready" "${o}/peer-ready"
  : > "${o}/requests"; : > "${o}/done"; : > "${o}/console.log"
  printf '%s\n' "${cmd[${r}]}" > "${o}/job.sh"
  cat > "${o}/job.env" <<ENV
RIG_KTREE=$(printf '%q' "${RIG_KTREE}")
RIG_KVER=$(printf '%q' "${RIG_KVER}")
JOB_CWD=$(printf '%q' "${PWD}")
JOB_TIMEOUT=${timeout_s}
JAVA_HOME=$(printf '%q' "${JAVA_HOME:-}")
ENV
  mkfifo "${ctl}/mon-${r}.in" "${ctl}/mon-${r}.out"
  qemu-system-x86_64 -accel tcg -cpu max -smp 1 -m "${RDMACM4J_TWO_HOST_MEM:-2048}" \
    -nographic -no-reboot -serial "file:${o}/console.log" -display none -monitor none \
    -chardev "pipe,id=mon0,path=${ctl}/mon-${r}" -mon chardev=mon0,mode=readline \
    -netdev "socket,id=n0,${sock}" -device "virtio-net-pci,netdev=n0,mac=${mac[${r}]}" \
    -kernel "${RIG_VMLINUZ}" -initrd "${RIG_INITRAMFS}" \
    -append "console=ttyS0 quiet loglevel=3 panic=-1 rdmacm4j.out=${o} rdmacm4j.setup=${rigdir}/guest-setup.sh rdmacm4j.repo=${repo} rdmacm4j.role=${r} rdmacm4j.addr=${addr[${r}]} ${clock_words}" \
    -virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=${repo},mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=${o},mount_tag=results,security_model=none,multidevs=remap" \
    > "${o}/qemu.log" 2>&1 < /dev/null &
  qpid[${r}]=$!
  cat "${ctl}/mon-${r}.out" > "${o}/monitor.log" 2>/dev/null &
  tail -n +1 -f --pid="${qpid[${r}]}" "${o}/console.log" 2>/dev/null \
    | sed -u "s/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g; s/^/${r}| /" &
  tails[${r}]=$!
}

stop_all() {
  local r
  for r in a b; do
    [[ -n "${qpid[${r}]:-}" ]] && kill -9 "${qpid[${r}]}" 2>/dev/null || true
  done
  for r in a b; do
    [[ -n "${qpid[${r}]:-}" ]] && wait "${qpid[${r}]}" 2>/dev/null || true
    [[ -n "${tails[${r}]:-}" ]] && kill "${tails[${r}]}" 2>/dev/null || true
  done
  rm -rf "${ctl}"
}
fail_run() {
  stop_all
  {
    echo "two-hosts: FAILED: $*"
    for r in a b; do
      echo "two-hosts: guest ${r}'s last console lines:"
      tail -n 30 "${out}/${r}/console.log" | sed "s/^/  ${r}| /"
      [[ -s "${out}/${r}/qemu.log" ]] && sed "s/^/  ${r} qemu| /" "${out}/${r}/qemu.log"
    done
  } >&2
  exit 2
}
trap 'stop_all; exit 130' INT TERM

alive() { [[ -n "${qpid[$1]:-}" ]] && kill -0 "${qpid[$1]}" 2>/dev/null; }

# Fault requests from the roles: act, then acknowledge in the requester's done file.
declare -A seen=([a]=0 [b]=0)
serve_requests() {
  local r line n target state
  for r in a b; do
    n=$(wc -l < "${out}/${r}/requests" 2>/dev/null || echo 0)
    while (( seen[${r}] < n )); do
      seen[${r}]=$(( seen[${r}] + 1 ))
      line=$(sed -n "${seen[${r}]}p" "${out}/${r}/requests")
      target="${line##*-}"
      case "${line}" in
        kill-a|kill-b)
          echo "two-hosts: ${r} asked: ${line}" >&2
          killed[${target}]=1
          kill -9 "${qpid[${target}]}" 2>/dev/null || true ;;
        link-down-a|link-down-b|link-up-a|link-up-b)
          echo "two-hosts: ${r} asked: ${line}" >&2
          # A dead guest's monitor has no reader: writing to its FIFO would block for ever.
          if alive "${target}"; then
            if [[ "${line}" == link-down-* ]]; then state=off; else state=on; fi
            echo "set_link n0 ${state}" > "${ctl}/mon-${target}.in"
          else
            line="refused (guest ${target} is not running): ${line}"
          fi ;;
        *) echo "two-hosts: ${r} asked for '${line}', which is not a fault this rig knows" >&2; line="unknown: ${line}" ;;
      esac
      echo "${line}" >> "${out}/${r}/done"
    done
  done
}

# A role's "ready" becomes the other role's "peer-ready".
relay_readiness() {
  local r other
  for r in a b; do
    if [[ "${r}" == a ]]; then other=b; else other=a; fi
    if [[ -e "${out}/${r}/ready" && ! -e "${out}/${other}/peer-ready" ]]; then
      echo "two-hosts: role ${r} is ready after $((SECONDS - start)) s; telling role ${other}" >&2
      touch "${out}/${other}/peer-ready"
    fi
  done
}

echo "two-hosts: booting two ${RIG_KVER} guests under QEMU/TCG (socket netdev on 127.0.0.1:${port}); results in ${out}" >&2
start_guest a "listen=127.0.0.1:${port}"
sleep 1
start_guest b "connect=127.0.0.1:${port}"

start=${SECONDS}
told_b_to_stop=0
while alive a || alive b; do
  elapsed=$((SECONDS - start))
  for r in a b; do
    if [[ -z "${killed[${r}]:-}" ]] && ! grep -q 'rdmacm4j-guest: ready\|rdmacm4j-guest: SETUP FAILED' "${out}/${r}/console.log"; then
      (( elapsed < boot_timeout )) || fail_run "guest ${r} did not come up within ${boot_timeout} s"
      alive "${r}" || fail_run "guest ${r} exited before it came up"
    fi
  done
  (( elapsed < boot_timeout + timeout_s + 60 )) || fail_run "the run did not finish within $((boot_timeout + timeout_s + 60)) s"
  serve_requests
  relay_readiness
  if (( ! told_b_to_stop )) && ! alive a; then
    touch "${out}/b/stop"
    told_b_to_stop=1
  fi
  sleep 0.5
done
for r in a b; do kill "${tails[${r}]}" 2>/dev/null || true; done
rm -rf "${ctl}"

status=0
for r in a b; do
  if [[ -n "${killed[${r}]:-}" ]]; then
    echo "two-hosts: guest ${r} was killed on request" >&2
    continue
  fi
  s=$(cat "${out}/${r}/exit-status" 2>/dev/null || echo "none")
  case "${s}" in
    0) echo "two-hosts: role ${r} passed" >&2 ;;
    setup-failed*) echo "two-hosts: FAILED: soft-RoCE setup in guest ${r}: ${s#setup-failed: }" >&2; exit 2 ;;
    *) echo "two-hosts: FAILED: role ${r} exited with ${s}" >&2; status=1 ;;
  esac
  if [[ -f "${out}/${r}/rdma-after.txt" ]] && ! rig_same_resources "${out}/${r}/rdma-resting.txt" "${out}/${r}/rdma-after.txt"; then
    echo "two-hosts: FAILED: guest ${r}'s rdma resource show after its job differs from before it" >&2
    diff "${out}/${r}/rdma-resting.txt" "${out}/${r}/rdma-after.txt" >&2 || true
    status=1
  fi
done
[[ -n "${killed[a]:-}" ]] && { echo "two-hosts: FAILED: role a was killed, so nothing reported" >&2; status=1; }
exit "${status}"
