#!/usr/bin/env bash
# Instructions per connection, counted instead of timed (issue 21): boots the soft-RoCE guest with
# benchmarks/src/main/c/insn_count.c (a QEMU TCG plugin) loaded, runs benchmarks/insn-job.sh's
# windows, and prints guest instructions per connection, kernel and user, per program and jar.
# Under TCG the guest's CPU times carry the host's noise; the counts move only with the work.
#
#   benchmarks/insn-count.sh OUT [NAME=JAR ...]      (default: head=benchmarks/target/benchmarks.jar)
#
# Env for the job (see insn-job.sh): PROGS, REPS, K, FROM, N, CC_W, CC_K, PAUSE, JIT, JAVA_EXTRA,
# JAVA_EXTRA_<NAME> (JVM options for NAME's runs only: an A/B of an option in one boot, one jar twice), PROFILE (1: also
# count every translation block's executions in each window, for benchmarks/insn_profile.py OUT N,
# which names them: instructions per library and per symbol); TIMEOUT (guest job deadline, default
# 3000 s). The plugin slows the guest (a callback per translation block executed): its times are
# not figures, its counts are. Summary again: python3 benchmarks/insn_summary.py OUT.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${here}/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: benchmarks/insn-count.sh OUT [NAME=JAR ...]" >&2; exit 2; }
out=$1; shift
mkdir -p "${out}"
out=$(cd "${out}" && pwd)
[[ -n "${JAVA_HOME:-}" ]] || { source "${repo}/scripts/find-jdk.sh"; rdmacm4j_find_jdk >/dev/null; }
export JAVA_HOME PATH="${JAVA_HOME}/bin:${PATH}"
(( $# )) || set -- "head=${here}/target/benchmarks.jar"
jars=""
extras=()   # JAVA_EXTRA_<NAME> for the guest's env
for pair in "$@"; do   # the guest runs copies: a rebuild during the run changes nothing measured
  name=${pair%%=*}; jar=${pair#*=}
  [[ -f "${jar}" ]] || { echo "insn-count: ${jar} is missing (./mvnw -q package -DskipTests)" >&2; exit 2; }
  cp "${jar}" "${out}/${name}.jar"
  jars+="${name}=${out}/${name}.jar "
  [[ ${name} =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo "insn-count: ${name}: a NAME is a shell identifier" >&2; exit 2; }
  ve="JAVA_EXTRA_${name}"
  extras+=("${ve}=${!ve:-}")
done
cp "${here}/insn-job.sh" "${out}/insn-job.sh"
cp "${here}/../scripts/jvm-flags.sh" "${out}/jvm-flags.sh"   # the launchers' JVM flags, for insn-job.sh
gcc -O2 -Wall -shared -fPIC -o "${out}/insn_count.so" "${here}/src/main/c/insn_count.c"
gcc -O2 -Wall -o "${out}/cm_event_loop" "${here}/src/main/c/cm_event_loop.c" -lrdmacm -libverbs
rm -f "${out}/insn-marks.txt" "${out}"/prof-*.txt
plugin="${out}/insn_count.so,out=${out}/insn-marks.txt"
[[ ${PROFILE:-0} != 1 ]] || plugin+=",profile=${out}"
(cd "${repo}" && RDMACM4J_GUEST_PLUGIN="${plugin}" \
  it/rig/guest.sh --timeout "${TIMEOUT:-3000}" --out "${out}" -- \
  env OUT="${out}" CEL="${out}/cm_event_loop" JARS="${jars}" \
  PROGS="${PROGS:-c floor vfloor cm}" REPS="${REPS:-2}" K="${K:-2000}" FROM="${FROM:-1001}" N="${N:-500}" \
  CC_W="${CC_W:-1000}" CC_K="${CC_K:-1000}" PAUSE="${PAUSE:-0}" PROFILE="${PROFILE:-0}" JIT="${JIT:-c1}" JAVA_EXTRA="${JAVA_EXTRA:-}" "${extras[@]}" bash "${out}/insn-job.sh")
python3 "${here}/insn_summary.py" "${out}" | tee "${out}/insn-summary.txt"
