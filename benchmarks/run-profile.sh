#!/usr/bin/env bash
# Boots the soft-RoCE guest once for benchmarks/profile-setup.sh (the setup path under C1, C2,
# an AOT cache and JFR; see its header), or the PROFILE_SCRIPT given, on a copy of the current
# build; prints its summary.
#   benchmarks/run-profile.sh [RESULTS_DIR]     (after ./mvnw -q package -DskipTests)
# Env: PROFILE_N (500), PROFILE_REPS (2), PROFILE_SCRIPT (the guest-side script in benchmarks/,
#      default profile-setup.sh; profile-pingpong.sh profiles the message round trip, with
#      PROFILE_WARMUP and PROFILE_COUNT; profile-timeline.sh records issue 21's timeline, with
#      TIMELINE_WARMUP, TIMELINE_MARKS and TIMELINE_STORM_N).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${here}/.." && pwd)
[[ -n "${JAVA_HOME:-}" ]] || { source "${repo}/scripts/find-jdk.sh"; rdmacm4j_find_jdk >/dev/null; }
source "${here}/snapshot.sh"
out="${1:-${here}/target/profile-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "${out}"
out=$(cd "${out}" && pwd)
script=${PROFILE_SCRIPT:-profile-setup.sh}
[[ -f "${here}/${script}" ]] || { echo "run-profile: no benchmarks/${script}" >&2; exit 2; }
bench_snapshot "${out}" "${here}/${script}"
gcc -O2 -Wall -o "${out}/msg_pingpong" "${here}/src/main/c/msg_pingpong.c" -lrdmacm -libverbs
gcc -O2 -Wall -o "${out}/cm_event_loop" "${here}/src/main/c/cm_event_loop.c" -lrdmacm -libverbs
status=0
(cd "${repo}" && flock /tmp/rdmacm4j-guest.lock it/rig/guest.sh --timeout "${PROFILE_TIMEOUT:-1500}" --out "${out}" -- \
    env OUT="${out}" BENCH_JAR="${out}/benchmarks.jar" EXAMPLES_MODULE_PATH="${BENCH_MODULE_PATH}" \
    PROFILE_N="${PROFILE_N:-500}" PROFILE_REPS="${PROFILE_REPS:-2}" PROFILE_WARMUP="${PROFILE_WARMUP:-1000}" \
    PROFILE_COUNT="${PROFILE_COUNT:-5000}" MSG_PINGPONG="${out}/msg_pingpong" CM_LOOP="${out}/cm_event_loop" \
    TIMELINE_WARMUP="${TIMELINE_WARMUP:-1000}" TIMELINE_MARKS="${TIMELINE_MARKS:-3}" TIMELINE_STORM_N="${TIMELINE_STORM_N:-500}" REPO="${repo}" bash "${out}/${script}") || status=$?
cat "${out}/summary.txt" 2>/dev/null
exit "${status}"
