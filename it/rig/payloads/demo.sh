#!/usr/bin/env bash
# The demo, run inside the guest by ./run-demo: rdma-core's rping proves the rig (ten verified
# pings over rdma_cm on rxe0); then rdmacm4j's echo demo (examples/bin/echo) connects, echoes
# messages of 1 B to 4 KiB, checks every byte and prints connect time, round-trip latency and
# throughput; then the connection demo (examples/bin/connect-demo) shows private data, a reject
# and a closed listener; after each, the kernel's resource counts are shown back at rest.
# Each step has its own deadline.
set -euo pipefail
addr=${RDMACM4J_SERVER_ADDR:-192.0.2.1} client=${RDMACM4J_CLIENT_ADDR:-192.0.2.3} port=7471 pings=10
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
resting="$(rdma resource show | tr -s ' \n' ' ')"
at_rest() {
  local now; now="$(rdma resource show | tr -s ' \n' ' ')"
  if [[ "${now}" == "${resting}" ]]; then echo "demo: rdma resource show: ${now}(back at rest)"
  else echo "demo: rdma resource show: ${now}(NOT at rest; before: ${resting})"; return 1; fi
}
echo "demo: 1. rdma-core's rping, ${pings} verified pings ${client} -> ${addr}:${port}"
timeout 120 rping -s -V -C "${pings}" -a "${addr}" -p "${port}" > /tmp/rping-server.log 2>&1 &
server=$!
for _ in $(seq 1 300); do
  rdma resource show cm_id 2>/dev/null | grep -q "LISTEN.*${addr}:${port}" && break
  sleep 0.1
done
timeout 120 rping -c -V -C "${pings}" -I "${client}" -a "${addr}" -p "${port}"
wait "${server}"
echo "demo: rping: both sides exited 0"
at_rest
echo
echo "demo: 2. rdmacm4j echo (examples/bin/echo -a ${addr} -b ${client}): server and client in one JVM"
timeout 300 "${here}/examples/bin/echo" -a "${addr}" -b "${client}" -n "${RDMACM4J_DEMO_ECHOES:-1000}"
at_rest
echo
echo "demo: 3. rdmacm4j connection demo (examples/bin/connect-demo)"
timeout 300 "${here}/examples/bin/connect-demo" -a "${addr}" -b "${client}" -n "${RDMACM4J_DEMO_CONNECTIONS:-20}"
at_rest
