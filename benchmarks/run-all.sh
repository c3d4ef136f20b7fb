#!/usr/bin/env bash
# rdmacm4j against rdma-core's C tools, side by side in ONE soft-RoCE guest boot, then
# docs/benchmarks.md and docs/connect-rate.png regenerated from that run.
#
#   benchmarks/run-all.sh            (after ./mvnw -q package -DskipTests)
#
# Takes the guest lock (/tmp/rdmacm4j-guest.lock: one guest at a time on a machine), builds the C
# event loop (benchmarks/src/main/c/cm_event_loop.c) and the C message round trip
# (benchmarks/src/main/c/msg_pingpong.c) into the results dir, boots the guest with
# benchmarks/guest-driver.sh as its job (pairs interleaved A B A B, BENCH_REPS times) and runs
# org.rdmacm4j.benchmarks.BenchReport on the results. The downcall section of docs/benchmarks.md
# comes from docs/benchmarks-downcall.md (benchmarks/run-downcall-bench.sh, a host benchmark).
#
# (The guest gets the settings as arguments: guest.sh carries no environment into it.)
# Env: BENCH_REPS (default 3), BENCH_NS (cmtime's N, default "100 500": N = 1 is a cold JVM's first
#      connection, which the warm group reports as such), BENCH_TIMEOUT (guest job deadline,
#      default 3600 s: a full run took 1910 s on 2026-11-23), BENCH_MEMORY (default 1000,10000), BENCH_MEMORY_SECONDS (default 150),
#      BENCH_OUT (results dir, default benchmarks/target/bench-<time>), BENCH_LATENCY_K (100),
#      BENCH_STORM_N (200), BENCH_RPING_COUNT (2000), BENCH_UCMATOSE_COUNT (8000),
#      BENCH_PINGPONG_WARMUP (1000) and BENCH_PINGPONG_COUNT (5000): untimed and timed round trips,
#      BENCH_WARM_K (2000), BENCH_WARM_FROM (1001), BENCH_WARM_STORM_N (500), BENCH_JITS ("c1 c1cb jdk":
#      c1cb is not a JIT setting but the program in C's loop's shape, driven from callbacks on the
#      dispatcher, run in every repetition beside c1, the blocking caller; also c1hot: c1 with -XX:CompileThresholdScaling=0.05, c1inl: c1 with BENCH_C1INL_FLAGS, passed on
#      to the guest, default C1's inlining limits raised, c1mhc: the launchers' flags before s40, c1aot:
#      c1 with the build's AOT cache as examples/launch.sh runs it; see guest-driver.sh), BENCH_FLOORS ("floor
#      vfloor": the warm group also runs FfmFloor, C's loop in Java over raw FFM with no framework, as
#      floor-c1, and VerbsFloor, the same loop over the verbs module, as vfloor-c1; "" for neither),
#      BENCH_JDK_REPS (1: the repetitions that also run the JITs other than c1; ~8 min each):
#      the warm group (issue 21: cold first connection, lone-connection p50/p99 over connections
#      FROM..K of one process, a storm of N after them in the same process and one in a fresh
#      process, CPU time and syscalls per warm connection; rdmacm4j under each JIT setting),
#      the cold group (issue 21 part 3: a fresh process's first connection, C against rdmacm4j
#      without and with the build's AOT cache, benchmarks/aot-cache.sh, and the JVM's start-to-first-
#      connection split), BENCH_COLD_AOT ("off on": which rdmacm4j variants it runs),
#      BENCH_COLD_ECHO (0; 1 adds the echo demo through examples/bin/echo with RDMACM4J_AOT=off/build),
#      BENCH_TWIN_AOT (on: the twins, cmtime rping ucmatose, map the examples' build AOT cache as
#      examples/bin runs them; off: no cache, every twin starts cold, as the rows before 2026-11-29),
#      BENCH_ONLY (default "all": every group but latency, which the warm group supersedes): only
#      these figure groups, space-separated, of cmtime latency warm cold storm pingpong rping
#      ucmatose writebw memory, for a short run, e.g.
#        BENCH_REPS=1 BENCH_ONLY=pingpong BENCH_OUT=benchmarks/target/pp benchmarks/run-all.sh
#      A partial run writes its regenerated benchmarks.md and connect-rate.png to BENCH_OUT/docs, not
#      over docs/ (the other figures are reported missing there).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${here}/.." && pwd)
[[ -n "${JAVA_HOME:-}" ]] || { source "${repo}/scripts/find-jdk.sh"; rdmacm4j_find_jdk >/dev/null; }
export JAVA_HOME PATH="${JAVA_HOME}/bin:${PATH}"
jar="${here}/target/benchmarks.jar"
for f in "${jar}" "${repo}/examples/target/classpath.txt" "${repo}/examples/target/classes"; do
  [[ -e "${f}" ]] || { echo "run-all: ${f} is missing: build first (./mvnw -q package -DskipTests)" >&2; exit 2; }
done
out="${BENCH_OUT:-${here}/target/bench-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "${out}"
out=$(cd "${out}" && pwd)

# The guest runs copies of the build and of the driver (snapshot.sh): a rebuild during the run
# cannot change what is measured, and the next build need not wait for the run.
source "${here}/snapshot.sh"
bench_snapshot "${out}" "${here}/guest-driver.sh"
# The cold group's rdmacm4j-aot rows: the build's AOT cache for this jar (package time), if any.
source "${repo}/scripts/aot-lib.sh"
source "${here}/aot-cache.sh"
aot_cache=$(bench_aot_cache "${out}/benchmarks.jar" "${out}/aot")
[[ -n ${aot_cache} ]] || echo "run-all: no build AOT cache for ${out}/benchmarks.jar (./mvnw package makes it): the cold group's rdmacm4j-aot rows will be missing" >&2
twin_aot_cache=$(bench_twin_aot_cache "${out}/aot" "${BENCH_MODULE_PATH}")
[[ -n ${twin_aot_cache} || ${BENCH_TWIN_AOT:-on} == off ]] || echo "run-all: no examples AOT cache for the copied module path (./mvnw package makes it): the twins will run without one" >&2
gcc -O2 -Wall -o "${out}/cm_event_loop" "${here}/src/main/c/cm_event_loop.c" -lrdmacm -libverbs
gcc -O2 -Wall -o "${out}/msg_pingpong" "${here}/src/main/c/msg_pingpong.c" -lrdmacm -libverbs

# The lockstep rows exist only if the cmtime twin has the mode; never stand in for it.
lockstep=0
if "${repo}/examples/bin/cmtime" --help 2>&1 | grep -q -- '--lockstep'; then
  lockstep=1
else
  echo "run-all: examples/bin/cmtime has no --lockstep: the lockstep rows will be reported missing" >&2
fi

status=0
(cd "${repo}" && RDMACM4J_GUEST_MEM="${RDMACM4J_GUEST_MEM:-6144}" flock /tmp/rdmacm4j-guest.lock \
    it/rig/guest.sh --timeout "${BENCH_TIMEOUT:-3600}" --out "${out}" -- \
    env OUT="${out}" BENCH_JAR="${out}/benchmarks.jar" BENCH_AOT_CACHE="${aot_cache}" BENCH_TWIN_AOT="${BENCH_TWIN_AOT:-on}" BENCH_TWIN_AOT_CACHE="${twin_aot_cache}" BENCH_COLD_AOT="${BENCH_COLD_AOT:-off on}" BENCH_COLD_ECHO="${BENCH_COLD_ECHO:-0}" EXAMPLES_MODULE_PATH="${BENCH_MODULE_PATH}" CM_LOOP="${out}/cm_event_loop" MSG_PINGPONG="${out}/msg_pingpong" BENCH_REPS="${BENCH_REPS:-3}" BENCH_NS="${BENCH_NS:-100 500}" \
    BENCH_LOCKSTEP="${lockstep}" BENCH_MEMORY="${BENCH_MEMORY:-1000,10000}" \
    BENCH_MEMORY_SECONDS="${BENCH_MEMORY_SECONDS:-150}" BENCH_LATENCY_K="${BENCH_LATENCY_K:-100}" \
    BENCH_STORM_N="${BENCH_STORM_N:-200}" BENCH_RPING_COUNT="${BENCH_RPING_COUNT:-2000}" \
    BENCH_UCMATOSE_COUNT="${BENCH_UCMATOSE_COUNT:-8000}" BENCH_PINGPONG_WARMUP="${BENCH_PINGPONG_WARMUP:-1000}" \
    BENCH_PINGPONG_COUNT="${BENCH_PINGPONG_COUNT:-5000}" BENCH_ONLY="${BENCH_ONLY:-all}" \
    BENCH_JITS="${BENCH_JITS:-c1 c1cb jdk}" BENCH_FLOORS="${BENCH_FLOORS-floor vfloor}" BENCH_WARM_K="${BENCH_WARM_K:-2000}" BENCH_WARM_FROM="${BENCH_WARM_FROM:-1001}" \
    BENCH_WARM_STORM_N="${BENCH_WARM_STORM_N:-500}" BENCH_JDK_REPS="${BENCH_JDK_REPS:-1}" BENCH_C1INL_FLAGS="${BENCH_C1INL_FLAGS:-}" REPO="${repo}" bash "${out}/guest-driver.sh") || status=$?
[[ -s "${out}/results.tsv" ]] || { echo "run-all: the guest run produced no results (exit ${status}); see ${out}" >&2; exit 2; }

# A partial run (BENCH_ONLY) writes its report next to its results, not over docs/: a copy of
# docs/benchmarks.md (its hand-written part kept) regenerated in ${out}/docs.
docs="${repo}/docs"
if [[ ${BENCH_ONLY:-all} != all ]]; then
  docs="${out}/docs"; mkdir -p "${docs}"; cp "${repo}/docs/benchmarks.md" "${docs}/"
fi
java -Djava.awt.headless=true -cp "${jar}" org.rdmacm4j.benchmarks.BenchReport "${out}" "${docs}"
echo "run-all: wrote ${docs}/benchmarks.md and connect-rate.png from ${out} (guest exit ${status})" >&2
exit "${status}"
