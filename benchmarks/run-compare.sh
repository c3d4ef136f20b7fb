#!/usr/bin/env bash
# Before/after of builds in one guest boot: benchmarks/run-compare.sh OUT NAME=SNAPSHOT_DIR ...
# (snapshot dirs made by snapshot.sh's bench_snapshot, e.g. by run-profile.sh). See compare-builds.sh.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${here}/.." && pwd)
[[ -n "${JAVA_HOME:-}" ]] || { source "${repo}/scripts/find-jdk.sh"; rdmacm4j_find_jdk >/dev/null; }
out=$1; shift
mkdir -p "${out}"
out=$(cd "${out}" && pwd)
cp "${here}/compare-builds.sh" "${here}/guest-lib.sh" "${out}/"
builds=()
for b in "$@"; do builds+=("${b%%=*}=$(cd "${b#*=}" && pwd)"); done
(cd "${repo}" && flock /tmp/rdmacm4j-guest.lock it/rig/guest.sh --timeout "${COMPARE_TIMEOUT:-1200}" --out "${out}" -- \
    env OUT="${out}" COMPARE_K="${COMPARE_K:-60}" COMPARE_N="${COMPARE_N:-500}" COMPARE_REPS="${COMPARE_REPS:-2}" \
    bash "${out}/compare-builds.sh" "${builds[@]}")
