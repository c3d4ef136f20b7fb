#!/usr/bin/env bash
# A/B of the launchers' AOT cache, in one guest boot: the echo demo's first connection ("echo:
# connected ... in X ms", a cold JVM's first connect) and the process wall time, then the cmtime twin
# against itself at N = 100 (client wall time), each with RDMACM4J_AOT=off and with a cache trained
# by one earlier run of the same program (what a user has from the second run on), interleaved
# off/record (RDMACM4J_AOT=record: the example's own cache, not the build's), BENCH_REPS times
# (default 3). Package first; runs under the guest lock.
#
#   benchmarks/ab-aot.sh [OUT_DIR inside the checkout]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "${repo}/scripts/find-jdk.sh"
rdmacm4j_find_jdk >/dev/null
mkdir -p "${repo}/benchmarks/target"
out=${1:-$(mktemp -d "${repo}/benchmarks/target/ab-aot.XXXXXX")}
cat > "${out}/ab.sh" <<'GUEST'
set -uo pipefail
s=192.0.2.1 c=192.0.2.3 port=22000
export RDMACM4J_AOT_DIR="${OUT}/aot"
wall() { local t0 t1; t0=$(date +%s.%N); "$@"; t1=$(date +%s.%N); echo "wall $(echo "$t1 - $t0" | bc -l)"; }
cmtime_pair() {   # cmtime_pair PORT: twin server and client, N = 100; prints the client's wall time
  examples/bin/cmtime -b "$s" -p "$1" -c 100 > "${OUT}/srv-$1.txt" 2>&1 &
  local spid=$!
  for _ in $(seq 1 600); do rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q "$s:$1 " && break; sleep 0.1; done
  wall timeout -k 5 300 examples/bin/cmtime -s "$s" -b "$c" -p "$1" -c 100 > "${OUT}/cli-$1.txt" 2>&1
  tail -1 "${OUT}/cli-$1.txt"
  wait "$spid"
}
# Train: one run of each program records the cache (not measured).
RDMACM4J_AOT=record examples/bin/echo -a "$s" -b "$c" -p $((port++)) -n 20 -S 64 -t 60 > "${OUT}/train-echo.txt" 2>&1
RDMACM4J_AOT=record cmtime_pair $((port++)) > /dev/null
ls -la "${OUT}/aot"
for rep in $(seq 1 "${BENCH_REPS}"); do
  for mode in off record; do
    r=$(RDMACM4J_AOT=$mode wall examples/bin/echo -a "$s" -b "$c" -p $((port++)) -n 20 -S 64 -t 60 2>&1)
    echo "echo-first-connect-ms $mode $rep $(sed -n 's/^echo: connected .* in \([0-9.]*\) ms.*/\1/p' <<< "$r") wall $(awk '/^wall/ {print $2}' <<< "$r")"
    echo "cmtime100-client-wall-s $mode $rep $(RDMACM4J_AOT=$mode cmtime_pair $((port++)) | awk '/^wall/ {print $2}')"
  done
done
grep -h "Opened AOT cache\|\[error" "${OUT}"/aot/*.log | sort | uniq -c
GUEST
cd "${repo}"
flock /tmp/rdmacm4j-guest.lock it/rig/guest.sh --timeout 1200 --out "${out}" -- \
  env OUT="${out}" BENCH_REPS="${BENCH_REPS:-3}" bash "${out}/ab.sh" | tee "${out}/ab.txt"
