#!/usr/bin/env bash
# A/B of the RDMA WRITE row only, in one guest boot: CmBench writebw at WINDOW 64 (the depth the
# row asks), CmBench at WINDOW 16 (the depth OneSided allowed before QpCapabilities.oneSidedDepth),
# and ib_write_bw -R -t 64, interleaved A B C A B C, BENCH_REPS times (default 3). Prints one line
# per run: "impl rep MB/s". Package first (./mvnw -q -o package -DskipTests); runs under the guest lock.
#
#   benchmarks/ab-writebw.sh [OUT_DIR inside the checkout]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "${repo}/scripts/find-jdk.sh"
rdmacm4j_find_jdk >/dev/null   # JAVA_HOME: guest.sh puts it on the guest's PATH
mkdir -p "${repo}/benchmarks/target"
out=${1:-$(mktemp -d "${repo}/benchmarks/target/ab-writebw.XXXXXX")}   # guest.sh: inside the checkout
mkdir -p "${out}"
cp "${repo}/benchmarks/target/benchmarks.jar" "${out}/benchmarks.jar"   # later rebuilds do not touch this run
cat > "${out}/ab.sh" <<'GUEST'
set -uo pipefail
s=192.0.2.1 c=192.0.2.3 size=65536 count=2000 port=21000
java_cmd=(java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -cp "${OUT}/benchmarks.jar")
for rep in $(seq 1 "${BENCH_REPS}"); do
  for w in 64 16; do
    port=$((port + 1))
    timeout -k 5 120 "${java_cmd[@]}" org.rdmacm4j.benchmarks.CmBench writebw "$s" "$c" "$port" "$size" "$count" "$w" \
      > "${OUT}/java-w${w}-r${rep}.txt" 2>&1
    mb=$(awk '/^MB\/s/ {print $2}' "${OUT}/java-w${w}-r${rep}.txt")
    echo "rdmacm4j-window${w} ${rep} ${mb:-FAILED}"
  done
  port=$((port + 1))
  timeout -k 5 120 ib_write_bw -R -s "$size" -n "$count" -t 64 -p "$port" > "${OUT}/srv.txt" 2>&1 &
  spid=$!
  # wait for the server's listener (its CM id) instead of a fixed sleep
  for _ in $(seq 1 100); do rdma resource show cm_id 2>/dev/null | grep -q LISTEN && break; sleep 0.1; done
  mb=$(timeout -k 5 120 ib_write_bw -R -s "$size" -n "$count" -t 64 -p "$port" "$s" | awk -v s="$size" '$1 == s && NF >= 5 {print $4}' | tail -1)
  wait "$spid" 2>/dev/null
  echo "ib_write_bw-t64 ${rep} ${mb:-FAILED}"
done
GUEST
cd "${repo}"
flock /tmp/rdmacm4j-guest.lock it/rig/guest.sh --timeout 900 --out "${out}" -- \
  env OUT="${out}" BENCH_REPS="${BENCH_REPS:-3}" bash "${out}/ab.sh" | tee "${out}/ab.txt"
