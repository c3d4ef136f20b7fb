#!/bin/bash
# Runs inside the guest, chrooted into the host's read-only root, as the last step of the
# initramfs's /init. Brings up soft-RoCE exactly as ../../shared/softroce.md found to work,
# records the resting resource counts, runs the job under its deadline and leaves the job's
# exit status in the results share. Every command that could hang has its own timeout.
set -u
OUT="$1"
# shellcheck source=/dev/null
source "${OUT}/job.env"
# Tests that load a module of their own (BondFailoverIT: bonding) need the rig's module tree.
export RIG_KTREE RIG_KVER
# shellcheck source=resources.sh
source "$(dirname "${BASH_SOURCE[0]}")/resources.sh"
# COLUMNS: the console launcher otherwise asks stty for a width the serial console lacks.
export COLUMNS=120 HOME=/tmp/home PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
mkdir -p "${HOME}"
[[ -n "${JAVA_HOME:-}" ]] && export JAVA_HOME PATH="${JAVA_HOME}/bin:${PATH}"

say() { echo "rdmacm4j-guest: $*"; }
setup_failed() {
  say "SETUP FAILED: $*"
  echo "setup-failed: $*" > "${OUT}/exit-status"
  exit 1
}
run() { timeout -k 5 60 "$@" || setup_failed "'$*' exited with $?"; }

say "kernel $(uname -r), $(nproc) vCPU, $(awk '/MemTotal/ {print int($2/1024) " MiB"}' /proc/meminfo), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
# crc32_generic first: without it 'rdma link add' fails with "failed to init crc32 algorithm
# err:-2", because the kernel's own module autoload cannot see the unpacked module tree.
# Two-host fabric (two-hosts.sh): this guest's address and role are on the kernel command line,
# and rxe0 sits on the virtio NIC that a QEMU socket netdev joins to the other guest.
role="" addr=""
for arg in $(cat /proc/cmdline); do
  case "${arg}" in
    rdmacm4j.role=*) role="${arg#rdmacm4j.role=}" ;;
    rdmacm4j.addr=*) addr="${arg#rdmacm4j.addr=}" ;;
  esac
done
if [[ -n "${addr}" ]]; then
  run modprobe -d "${RIG_KTREE}" -S "${RIG_KVER}" -a crc32_generic rdma_rxe rdma_ucm ib_uverbs virtio_net
  run ip link set lo up
  netdev=eth0
  for _ in $(seq 1 50); do [[ -e /sys/class/net/eth0 ]] && break; sleep 0.2; done
  [[ -e /sys/class/net/eth0 ]] || setup_failed "no eth0 (virtio_net): $(ls /sys/class/net)"
  run ip addr add "${addr}/24" dev eth0
  run ip link set eth0 up
  run rdma link add rxe0 type rxe netdev eth0
  export RDMACM4J_ROLE="${role}" RDMACM4J_ADDR="${addr}"
else
  run modprobe -d "${RIG_KTREE}" -S "${RIG_KVER}" -a crc32_generic rdma_rxe rdma_ucm ib_uverbs veth
  run ip link set lo up
  netdev=veth0
  run ip link add veth0 type veth peer name veth1
  run ip addr add 192.0.2.1/24 dev veth0
  run ip addr add 192.0.2.3/24 dev veth0
  run ip link set veth0 up
  run ip link set veth1 up
  run rdma link add rxe0 type rxe netdev veth0
fi

deadline=$((SECONDS + 60))
until timeout 10 rdma link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE'; do
  (( SECONDS < deadline )) || setup_failed "rxe0 port 1 not ACTIVE after 60 s: $(timeout 10 rdma link show 2>&1)"
  sleep 0.5
done
[[ -e /dev/infiniband/rdma_cm ]] || setup_failed "/dev/infiniband/rdma_cm missing: $(ls -l /dev/infiniband 2>&1)"
rig_snapshot_resting "${OUT}" || setup_failed "rdma resource show failed"
say "ready${role:+ (role ${role}, ${addr})}: rxe0 on ${netdev} ($(timeout 10 rdma link show rxe0/1)); resting: $(tr '\n' ' ' < "${OUT}/rdma-resting.txt")"

cd "${JOB_CWD}" || setup_failed "cannot cd to ${JOB_CWD}"
export RDMACM4J_RESTING_FILE="${OUT}/rdma-resting.txt" RDMACM4J_OUT="${OUT}"
# 150 s before the job's deadline (30 s for a job of 5 minutes or less) every JVM prints its
# threads (SIGQUIT: the JVM writes them to its stdout, this console), the kernel its blocked tasks (a
# thread stuck in the kernel, in D state, stops every JVM thread that needs the same lock), and gdb
# the native stacks of the JVMs' threads inside librdmacm or libibverbs (a JVM dump shows those as a
# downcall frame), so a job killed at its deadline still says where it was stuck.
( sleep $(( JOB_TIMEOUT > 300 ? JOB_TIMEOUT - 150 : JOB_TIMEOUT > 60 ? JOB_TIMEOUT - 30 : JOB_TIMEOUT )) \
    || exit 0   # killed: the job ended
  say "the job's deadline is near: every JVM prints its threads, the kernel its blocked tasks"
  pkill -QUIT -x java
  sleep 5
  ps -eo pid,stat,wchan:32,etime,args | awk 'NR == 1 || $2 ~ /D/' | sed 's/^/rdmacm4j-guest: D | /'
  echo w > /proc/sysrq-trigger 2>/dev/null && dmesg | tail -n 60 | sed 's/^/rdmacm4j-guest: dmesg | /'
  for p in $(pgrep -x java); do
    say "native stacks in librdmacm/libibverbs of java pid ${p}:"
    timeout 90 gdb -p "${p}" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 16' 2>/dev/null \
      | awk '/^Thread /{if (keep) printf "%s", blk; blk=""; keep=0} {blk=blk $0 "\n"} /librdmacm|libibverbs|rdma_|ucma_|ibv_/{keep=1} END{if (keep) printf "%s", blk}'
  done ) &
watchdog=$!
disown "${watchdog}"
timeout -k 10 "${JOB_TIMEOUT}" bash "${OUT}/job.sh"
status=$?
pkill -P "${watchdog}" 2>/dev/null; kill "${watchdog}" 2>/dev/null
(( status == 124 || status == 137 )) && say "job killed at its deadline of ${JOB_TIMEOUT} s"
rig_snapshot_after "${OUT}"
say "job exited with ${status}"
echo "${status}" > "${OUT}/exit-status"
