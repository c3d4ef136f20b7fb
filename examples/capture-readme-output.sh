#!/usr/bin/env bash
# Prints the commands of examples/README.md with their real output, from one soft-RoCE guest boot:
#
#   ./mvnw -q package -DskipTests
#   flock /tmp/rdmacm4j-guest.lock examples/capture-readme-output.sh > /tmp/readme-output.txt
#
# Each pair runs its server (ours or rdma-core's) in the background, waits until it listens (a
# LISTEN cm_id on its address and port, or, for mckey, its "joined" line), runs the client, then
# prints the server's output; every command is followed by its exit status. A failing pair is
# reported and the others still run; the script then exits 1.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ "${1:-}" != "--in-guest" ]]; then
  exec "${here}/../it/rig/guest.sh" --timeout 1800 -- "${here}/capture-readme-output.sh" --in-guest
fi
cd "${here}/.."
S=192.0.2.1
C=192.0.2.3
failed=0
logs=$(mktemp -d)
server_pid=""
server_log=""

# serve WAIT_FOR CMD...: CMD in the background; WAIT_FOR is "PORT" (a listener on $S:PORT) or "~TEXT".
serve() {
  local wait_for="$1"; shift
  server_log="${logs}/server-$RANDOM.log"
  echo "\$ $* &"
  # Line-buffered: rdma-core's tools write to the file through stdio, which would hold their lines
  # (mckey's "joined") until they exit.
  stdbuf -oL -eL "$@" > "${server_log}" 2>&1 &
  server_pid=$!
  for _ in $(seq 600); do
    if [[ "${wait_for}" == "~"* ]]; then
      grep -q -- "${wait_for#\~}" "${server_log}" && return 0
    elif rdma resource show cm_id | grep LISTEN | grep -qE -- "${S}:${wait_for}( |$)"; then
      return 0
    fi
    kill -0 "${server_pid}" 2>/dev/null || break
    sleep 0.1
  done
  echo "(the server did not come up)"; cat "${server_log}"; failed=1
}

# client CMD...: runs CMD in front, prints its output and exit status.
client() {
  echo "\$ $*"
  timeout 300 "$@" 2>&1
  local rc=$?
  echo "[exit ${rc}]"
  [[ ${rc} -eq 0 ]] || failed=1
}

# served [kill]: waits for the background server (or stops it: rdma-core's cmtime server never
# exits), then prints its output and exit status.
served() {
  [[ "${1:-}" == kill ]] && kill "${server_pid}" 2>/dev/null
  local rc=0
  timeout 120 tail --pid="${server_pid}" -f /dev/null || { kill "${server_pid}"; failed=1; }
  wait "${server_pid}" || rc=$?
  echo "--- the server's output:"
  cat "${server_log}"
  echo "[exit ${rc}]"
  [[ "${1:-}" == kill || ${rc} -eq 0 ]] || failed=1
}

section() { printf '\n===== %s\n' "$*"; }

section "echo (both sides in one process)"
client examples/bin/echo -a "$S" -b "$C" -n 300
section "echo: nobody listening"
echo "\$ examples/bin/echo -c -a $S -p 7498 -t 3"
examples/bin/echo -c -a "$S" -p 7498 -t 3 2>&1; echo "[exit $?]"

section "ucmatose: our client, rdma-core's server"
serve 7472 ucmatose -b "$S" -p 7472 -c 2
client examples/bin/ucmatose -s "$S" -b "$C" -p 7472 -c 2
served
section "ucmatose: rdma-core's client, our server"
serve 7473 examples/bin/ucmatose -b "$S" -p 7473 -c 2
client ucmatose -s "$S" -b "$C" -p 7473 -c 2
served
section "ucmatose -t -a: our client, rdma-core's server"
serve 7474 ucmatose -b "$S" -p 7474 -a 12
client examples/bin/ucmatose -s "$S" -b "$C" -p 7474 -t 32 -a 14
served
section "ucmatose -t -a: rdma-core's client, our server"
serve 7475 examples/bin/ucmatose -b "$S" -p 7475 -a 12
client ucmatose -s "$S" -b "$C" -p 7475 -t 32 -a 14
served

section "udaddy: our client, rdma-core's server"
serve 7174 udaddy -b "$S"
client examples/bin/udaddy -s "$S" -b "$C"
served
section "udaddy: rdma-core's client, our server"
serve 7174 examples/bin/udaddy -b "$S"
client udaddy -s "$S" -b "$C"
served

section "mckey: rdma-core's sender, our receiver"
serve "~joined" examples/bin/mckey -m 239.1.2.6 -b "$S"
client mckey -m 239.1.2.6 -b "$C" -s
served
section "mckey: our sender, rdma-core's receiver"
serve "~joined" mckey -m 239.1.2.7 -b "$S"
client examples/bin/mckey -m 239.1.2.7 -b "$C" -s
served

section "rping: our client, rdma-core's server"
serve 7481 rping -s -v -V -C 10 -a "$S" -p 7481
client examples/bin/rping -c -v -V -C 10 -I "$C" -a "$S" -p 7481
served
section "rping: rdma-core's client, our server"
serve 7482 examples/bin/rping -s -v -V -C 10 -a "$S" -p 7482
client rping -c -v -V -C 10 -I "$C" -a "$S" -p 7482
served

section "cmtime (lockstep): our client, rdma-core's server"
serve 7581 cmtime -b "$S" -p 7581 -c 20
client examples/bin/cmtime -s "$S" -b "$C" -p 7581 -c 20
served kill
section "cmtime: rdma-core's client, our server"
serve 7582 examples/bin/cmtime -b "$S" -p 7582 -c 20
client cmtime -s "$S" -b "$C" -p 7582 -c 20
served
section "cmtime --pipelined: our client, our server"
serve 7583 examples/bin/cmtime -b "$S" -p 7583 -c 20
client examples/bin/cmtime -s "$S" -b "$C" -p 7583 -c 20 --pipelined
served

section "resources at rest"
rdma resource show
exit "${failed}"
