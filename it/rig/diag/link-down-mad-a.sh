# Reproduces the 6.1 rxe limitation documented in docs/reliability.md (hand-written part), with
# rdma-core tools only:  it/rig/two-hosts.sh --timeout 240 --a "bash it/rig/diag/link-down-mad-a.sh" \
#   --b "bash it/rig/diag/link-down-mad-b.sh"   (run under flock /tmp/rdmacm4j-guest.lock)
# role a: rping server for b's client; rpings b every ~1 s for 130 s after b is ready (each bounded)
rping -s -a 192.0.2.1 -P >/dev/null 2>&1 &
touch $RDMACM4J_OUT/ready
for i in $(seq 1 400); do [ -e $RDMACM4J_OUT/peer-ready ] && break; sleep 0.5; done
end=$(( $(date +%s) + 130 ))
while [ $(date +%s) -lt $end ]; do
  timeout 4 rping -c -a 192.0.2.2 -C 1 -S 64 -v >/tmp/r.log 2>&1; rc=$?
  echo "A RPING->b rc=$rc t=$(date +%s.%N) $(tail -1 /tmp/r.log | cut -c1-60)"; sleep 0.5
done
rdma res show qp; dmesg | tail -n 15
G=/sys/class/infiniband/rxe0/ports/1; for f in $G/hw_counters/*; do printf "%s=%s " $(basename $f) $(cat $f); done; echo
