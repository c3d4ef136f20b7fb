# Reproduces, with librdmacm alone, what docs/architecture.md ("When the last device goes") says
# of rdma-core 44 and rxe when the only device is deleted, and shows the /dev/null replacement
# that rdmacm4j's DeviceLoss uses. In the guest (under /work/tools/guest-slot on the shared box):
#   it/rig/guest.sh --timeout 300 --out it/target/diag-ldl -- bash it/rig/diag/last-device-loss.sh it/target/diag-ldl
# Writes OUT/last-device-loss-{plain,fdtrick}.log; a run stuck past 120 s gets every thread's stack (gdb).
out=${1:?usage: last-device-loss.sh OUTDIR}
src=$(cd "$(dirname "$0")" && pwd)/last-device-loss.c
gcc -O1 -g -Wall -o "$out/last-device-loss" "$src" -lrdmacm -libverbs || exit 2
restore() {
  timeout 10 rdma link show rxe0/1 >/dev/null 2>&1 || timeout 20 rdma link add rxe0 type rxe netdev veth0
  for _ in $(seq 1 100); do timeout 5 rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE && break; sleep 0.3; done
}
for mode in plain fdtrick; do
  log="$out/last-device-loss-$mode.log"
  "$out/last-device-loss" "$mode" > "$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do kill -0 $pid 2>/dev/null || break; sleep 1; done
  if kill -0 $pid 2>/dev/null; then
    echo "stuck after 120 s" >> "$log"
    timeout 60 gdb -p $pid -batch -ex "thread apply all bt" >> "$log" 2>&1
    kill -9 $pid
  fi
  wait $pid; echo "exit $?" >> "$log"
  sleep 2; restore
  echo "== $mode"; cat "$log"
done
