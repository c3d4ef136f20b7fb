#!/usr/bin/env bash
# A/B of the guest's clocksource (it/rig/rig-lib.sh, rig_clock_cmdline): boots the guest once with
# the kernel's own choice (HPET under TCG) and once with the rig's default (TSC), BENCH_PAIRS times
# (default 1), and runs in each boot: the cost of one clock_gettime (C) and one System.nanoTime
# (Java, C1), then BENCH_REPS times (default 2) ib_write_bw -R -t 64, CmBench writebw, CmBench
# latency (60 connections) and cm_event_loop latency (60). Prints one line per figure:
# "clock figure rep value". Package first (./mvnw -q -o package -DskipTests); takes the guest lock.
#
#   benchmarks/ab-clock.sh [OUT_DIR inside the checkout]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "${repo}/scripts/find-jdk.sh"
rdmacm4j_find_jdk >/dev/null   # JAVA_HOME: guest.sh puts it on the guest's PATH
mkdir -p "${repo}/benchmarks/target"
out=${1:-$(mktemp -d "${repo}/benchmarks/target/ab-clock.XXXXXX")}   # guest.sh: inside the checkout
mkdir -p "${out}"
out=$(cd "${out}" && pwd)
cp "${repo}/benchmarks/target/benchmarks.jar" "${out}/benchmarks.jar"   # later rebuilds do not touch this run
gcc -O2 -Wall -o "${out}/cm_event_loop" "${repo}/benchmarks/src/main/c/cm_event_loop.c" -lrdmacm -libverbs
cat > "${out}/clockcost.c" <<'C'
#include <stdio.h>
#include <time.h>
int main(void)
{
	struct timespec a, b, t;
	long n = 200000;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		clock_gettime(CLOCK_MONOTONIC, &t);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
C
gcc -O2 -o "${out}/clockcost" "${out}/clockcost.c"
cat > "${out}/ClockCost.java" <<'JAVA'
public class ClockCost {
    public static void main(String[] args) {
        long sink = 0;
        for (int round = 0; round < 3; round++) {   // the last round is the warm one
            long t0 = System.nanoTime();
            for (int i = 0; i < 200_000; i++) sink += System.nanoTime();
            long t1 = System.nanoTime();
            if (round == 2) System.out.printf("%.1f%n", (t1 - t0) / 200_000.0);
        }
        if (sink == 42) System.out.println();
    }
}
JAVA
cat > "${out}/job.sh" <<'GUEST'
set -uo pipefail
s=192.0.2.1 c=192.0.2.3 port=22000 clock=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
jc=(java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -cp "${DIR}/benchmarks.jar")
p50() { awk '/^latency_us/ && $2 > 0 {print $3}' "$1" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "${clock} clock_gettime_ns 1 $("${DIR}/clockcost")"
echo "${clock} nanoTime_ns 1 $(java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC "${DIR}/ClockCost.java")"
for rep in $(seq 1 "${BENCH_REPS}"); do
  port=$((port + 1))
  timeout -k 5 120 ib_write_bw -R -s 65536 -n 2000 -t 64 -p "${port}" > "${OUT}/srv.txt" 2>&1 &
  spid=$!
  for _ in $(seq 1 100); do rdma resource show cm_id 2>/dev/null | grep -q LISTEN && break; sleep 0.1; done
  mb=$(timeout -k 5 120 ib_write_bw -R -s 65536 -n 2000 -t 64 -p "${port}" "${s}" | awk '$1 == 65536 && NF >= 5 {print $4}' | tail -1)
  wait "${spid}" 2>/dev/null
  echo "${clock} ib_write_bw_MB/s ${rep} ${mb:-FAILED}"
  port=$((port + 1))
  timeout -k 5 120 "${jc[@]}" org.rdmacm4j.benchmarks.CmBench writebw "${s}" "${c}" "${port}" 65536 2000 64 > "${OUT}/wb-${rep}.txt" 2>&1
  echo "${clock} rdmacm4j_writebw_MB/s ${rep} $(awk '/^MB\/s/ {print $2}' "${OUT}/wb-${rep}.txt")"
  port=$((port + 1))
  timeout -k 5 300 "${jc[@]}" org.rdmacm4j.benchmarks.CmBench latency "${s}" "${c}" "${port}" 60 > "${OUT}/lat-${rep}.txt" 2>&1
  echo "${clock} rdmacm4j_setup_p50_us ${rep} $(p50 "${OUT}/lat-${rep}.txt")"
  port=$((port + 1))
  timeout -k 5 300 "${DIR}/cm_event_loop" latency "${s}" "${c}" "${port}" 60 > "${OUT}/clat-${rep}.txt" 2>&1
  echo "${clock} C_setup_p50_us ${rep} $(p50 "${OUT}/clat-${rep}.txt")"
done
GUEST
cd "${repo}"
for pair in $(seq 1 "${BENCH_PAIRS:-1}"); do
  for clock in kernel tsc; do
    o="${out}/${clock}-${pair}"
    mkdir -p "${o}"
    flock /tmp/rdmacm4j-guest.lock env RDMACM4J_GUEST_CLOCK="${clock}" it/rig/guest.sh --timeout 1200 --out "${o}" -- \
      env DIR="${out}" OUT="${o}" BENCH_REPS="${BENCH_REPS:-2}" bash "${out}/job.sh" > "${o}/guest.log" 2>&1
    grep -E '^(hpet|tsc|acpi_pm)[^:]* ' "${o}/guest.log" | tee -a "${out}/ab.txt"
  done
done
