# Reproduces the 6.1 rxe limitation documented in docs/reliability.md (hand-written part), with
# rdma-core tools only:  it/rig/two-hosts.sh --timeout 240 --a "bash it/rig/diag/link-down-mad-a.sh" \
#   --b "bash it/rig/diag/link-down-mad-b.sh"   (run under flock /tmp/rdmacm4j-guest.lock)
# role b: is b's GSI QP (QP1) left dead when b sends a CM MAD (DREQ) while its eth0 is down?
G=/sys/class/infiniband/rxe0/ports/1
ts() { date +%s.%N; }
snap() { echo "SNAP $1 t=$(ts) port=$(cat $G/state 2>&1)"; ip -br addr show eth0; ip route; rdma res show qp | grep -v '^$'; printf 'counters: '; for f in $G/hw_counters/*; do printf "%s=%s " $(basename $f) $(cat $f); done; echo; }
waitactive() { for i in $(seq 1 100); do rdma link show rxe0/1 2>/dev/null | grep -q 'state ACTIVE' && break; sleep 0.1; done; }
rping -s -a 192.0.2.2 -P >/dev/null 2>&1 & srv=$!
touch $RDMACM4J_OUT/ready
for i in $(seq 1 400); do [ -e $RDMACM4J_OUT/peer-ready ] && break; sleep 0.5; done
sleep 3
# an established RC connection from b to a, idle-ish between iterations (-d: 1 s delay)
rping -c -a 192.0.2.1 -C 100000 -S 64 -v > /tmp/bclient.log 2>&1 & cli=$!
sleep 6
echo "b client so far: $(grep -c ping /tmp/bclient.log) lines"; rdma res show cm_id | grep -v LISTEN
snap before
dmesg -c > /dev/null
ip link set eth0 down; echo "B DOWN t=$(ts)"
sleep 1
echo "B KILL rping client (its cm_id is destroyed in ESTABLISHED: the kernel sends a DREQ) t=$(ts)"
kill -9 $cli; wait $cli 2>/dev/null; echo "rping client gone: $(kill -0 $cli 2>&1)"; rdma res show cm_id | grep -v LISTEN
sleep 2
snap whiledown; echo "dmesg while down:"; dmesg | tail -n 20
ip link set eth0 up; waitactive; echo "B UP t=$(ts)"
for k in 1 2 3 4 5; do sleep 2.5; snap after$k; done
echo "dmesg after up:"; dmesg | tail -n 20
echo "B: new connect from b to a (REQ from b, is a's REP received?) t=$(ts)"
timeout 8 rping -c -a 192.0.2.1 -C 1 -S 64 -v 2>&1 | tail -2; echo "rc=${PIPESTATUS[0]} t=$(ts)"
snap afterconnect
echo "RECOVERY: kill server, rdma link delete/add rxe0 t=$(ts)"
kill -9 $srv; wait $srv 2>/dev/null
t0=$(date +%s%N); timeout 30 rdma link delete rxe0; rc1=$?; t1=$(date +%s%N)
timeout 30 rdma link add rxe0 type rxe netdev eth0; rc2=$?; t2=$(date +%s%N); waitactive; t3=$(date +%s%N)
echo "RECOVERY: delete rc=$rc1 $(( (t1-t0)/1000000 )) ms, add rc=$rc2 $(( (t2-t1)/1000000 )) ms, ACTIVE after $(( (t3-t2)/1000000 )) ms; $(rdma link show rxe0/1)"
rping -s -a 192.0.2.2 -P >/dev/null 2>&1 & srv=$!
echo "B RECOVERED t=$(ts)"
for k in 1 2 3 4; do sleep 3; snap rec$k; done
timeout 8 rping -c -a 192.0.2.1 -C 1 -S 64 -v 2>&1 | tail -1; echo "b->a after recovery rc=${PIPESTATUS[0]}"
dmesg | tail -n 10
kill -9 $srv; wait $srv 2>/dev/null
for i in $(seq 1 200); do [ -e $RDMACM4J_OUT/stop ] && break; sleep 0.5; done
