#!/usr/bin/env bash
# The demo, run inside the guest by ./run-demo: rdma-core's rping server and client exchange
# ten verified pings over rdma_cm on rxe0, then the kernel's resource counts are shown back at
# rest. Each step has its own deadline.
set -euo pipefail
addr=${RDMACM4J_SERVER_ADDR:-192.0.2.1} client=${RDMACM4J_CLIENT_ADDR:-192.0.2.3} port=7471 pings=10
echo "demo: rping server on ${addr}:${port}, client from ${client}, ${pings} pings"
timeout 120 rping -s -v -V -C "${pings}" -a "${addr}" -p "${port}" > /tmp/rping-server.log 2>&1 &
server=$!
for _ in $(seq 1 300); do
  rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*${addr}:${port}" && break
  sleep 0.1
done
timeout 120 rping -c -v -V -C "${pings}" -I "${client}" -a "${addr}" -p "${port}"
wait "${server}"
sed 's/^/demo: server: /' /tmp/rping-server.log
echo "demo: resources after: $(rdma resource show | tr '\n' ' ')"
