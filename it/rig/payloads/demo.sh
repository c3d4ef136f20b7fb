#!/usr/bin/env bash
# The demo, run inside the guest by ./run-demo: first rdma-core's rping server and client
# exchange ten verified pings over rdma_cm on rxe0 (the rig works); then rdmacm4j's connection
# demo (examples/bin/connect-demo) connects, checks private data both ways, is rejected, closes;
# then the kernel's resource counts are shown back at rest. Each step has its own deadline.
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
echo "demo: resources after rping: $(rdma resource show | tr '\n' ' ')"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
echo "demo: rdmacm4j connection demo (examples/bin/connect-demo)"
timeout 300 "${here}/examples/bin/connect-demo" -a "${addr}" -b "${client}" -n "${RDMACM4J_DEMO_CONNECTIONS:-20}"
echo "demo: resources after rdmacm4j: $(rdma resource show | tr '\n' ' ')"
