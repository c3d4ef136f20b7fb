#!/usr/bin/env bash
# On demand: does a tiered JVM (the JDK's default flags) crash in the soft-RoCE guest, and under
# which QEMU setting? Boots one guest with SETTING, runs each WORKLOAD RUNS times in it (a fresh JVM
# each time, -XX:ErrorFile into the results dir, see payloads/jit-stress.sh), and appends one row
# per run to it/target/jit-stress/runs.tsv; then prints the table of every row there:
#   setting | workload | JVM options | runs | crashes | crash kinds | seconds per run (min-max)
# The measured table and what it means: docs/jit-stress.md.
#
#   it/rig/jit-stress.sh [--setting S] [--runs N] [--timeout SECONDS] [--out DIR] WORKLOADS [JVM_OPTION...]
#   WORKLOADS: javac, churn or storm, each optionally :RUNS (else --runs, default 4), comma-joined
#   (churn:3,storm:3 runs both in one guest boot)
#   it/rig/jit-stress.sh --table          (the table of the rows recorded so far, nothing run)
#
# SETTING: default (MTTCG, 2 vCPUs, -cpu max: the rig's guest), single (-accel tcg,thread=single),
#          smp1 (one vCPU), cpu=MODEL (e.g. cpu=qemu64), pin (the rig's guest, each JVM run under
#          `taskset -c 0`: all its threads on one vCPU), or a comma-joined mix (single,cpu=qemu64).
# Holds /tmp/rdmacm4j-guest.lock for the guest run; a run takes 40-160 s (javac) in the guest,
# so keep RUNS x that under ~10 minutes per call, and call again for more runs.
# Needs `./mvnw package -DskipTests` first (storm runs examples/target's Cmtime).
set -euo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${rigdir}/../.." && pwd)
base="${repo}/it/target/jit-stress"
rows="${base}/runs.tsv"

table() {
  [[ -f "${rows}" ]] || { echo "jit-stress: no runs recorded yet in ${rows}" >&2; return 0; }
  echo "| setting | workload | JVM options | runs | crashes | crash kinds | s per run (min-max) |"
  echo "|---|---|---|---:|---:|---|---|"
  awk -F'\t' '
    { k = $1 "\t" $2 "\t" $3
      if (!(k in runs)) order[n++] = k
      runs[k]++
      if ($7 ~ /^crash/) { crashes[k]++; sub(/^crash /, "", $7); kinds[k] = kinds[k] (kinds[k] ? "; " : "") $7 }
      else if ($7 != "ok") { kinds[k] = kinds[k] (kinds[k] ? "; " : "") $7 }
      if ($7 == "ok") { if (!(k in lo) || $6 < lo[k]) lo[k] = $6; if ($6 > hi[k]) hi[k] = $6 } }
    END { for (i = 0; i < n; i++) { k = order[i]; split(k, f, "\t")
            printf "| %s | %s | %s | %d | %d | %s | %s |\n", f[1], f[2], (f[3] == "" ? "(JDK defaults)" : "`" f[3] "`"),
              runs[k], crashes[k], (kinds[k] == "" ? "-" : kinds[k]), (k in lo ? lo[k] "-" hi[k] : "-") } }' "${rows}"
}

setting=default runs=4 timeout_s=660 out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --setting) setting="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --table) table; exit 0 ;;
    --) shift; break ;;
    -*) echo "jit-stress: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || { sed -n '2,20p' "${BASH_SOURCE[0]}" >&2; exit 2; }
[[ "${runs}" =~ ^[1-9][0-9]*$ ]] || { echo "jit-stress: --runs must be a count" >&2; exit 2; }
workload=$1; shift
spec=""
IFS=, read -r -a items <<< "${workload}"
for item in "${items[@]}"; do
  [[ "${item}" == *:* ]] || item="${item}:${runs}"
  [[ "${item}" =~ ^(javac|churn|storm):[1-9][0-9]*$ ]] \
    || { echo "jit-stress: '${item}': a workload is javac, churn or storm, optionally :RUNS" >&2; exit 2; }
  spec+="${spec:+,}${item}"
done

export RDMACM4J_GUEST_TCG=multi RDMACM4J_GUEST_SMP=2 RDMACM4J_GUEST_CPU=max
pin_cpus=""
IFS=, read -r -a parts <<< "${setting}"
for p in "${parts[@]}"; do
  case "${p}" in
    default) ;;
    single) RDMACM4J_GUEST_TCG=single ;;
    smp1) RDMACM4J_GUEST_SMP=1 ;;
    cpu=*) RDMACM4J_GUEST_CPU="${p#cpu=}" ;;
    pin) pin_cpus=0 ;;
    *) echo "jit-stress: unknown setting part '${p}'" >&2; exit 2 ;;
  esac
done
[[ -n "${JAVA_HOME:-}" ]] || { source "${repo}/scripts/find-jdk.sh"; rdmacm4j_find_jdk >/dev/null; export JAVA_HOME; }

mkdir -p "${base}"
[[ -n "${out}" ]] || out="${base}/${spec//[:,]/_}-${setting//[=,]/_}-$(date -u +%Y%m%d-%H%M%S)-$$"
mkdir -p "${out}"
out=$(cd "${out}" && pwd)
if [[ "${spec}" == *churn* ]]; then
  "${JAVA_HOME}/bin/javac" -d "${out}/churn-classes" "${rigdir}/payloads/JitChurn.java"
fi
status=0
(cd "${repo}" && flock /tmp/rdmacm4j-guest.lock "${rigdir}/guest.sh" --timeout "${timeout_s}" --out "${out}" -- \
  env OUT="${out}" PIN_CPUS="${pin_cpus}" bash "${rigdir}/payloads/jit-stress.sh" "${spec}" "$@") || status=$?
opts="$*"
if [[ -f "${out}/runs.tsv" ]]; then
  awk -F'\t' -v s="${setting}" -v o="${opts}" -v d="$(basename "${out}")" 'BEGIN { OFS = "\t" }
    { print s, $1, o, $2, $3, $4, $5, d }' "${out}/runs.tsv" >> "${rows}"
fi
echo "jit-stress: ${setting} ${spec} ${opts:+(${opts}) }done (guest exit ${status}); results in ${out}" >&2
table
