#!/usr/bin/env bash
# The one launcher behind examples/bin/*: launch.sh NAME CLASS ARGS... runs
# org.rdmacm4j.examples.CLASS on the module path of `./mvnw package`, with the same JVM flags
# for every example (C1 only and the serial GC: they start fast and mostly wait; RDMACM4J_JAVA_FLAGS
# replaces them, see below). Finds a
# JDK 25+ like the README commands do. Needs RDMA (run the examples inside the guest:
# it/rig/guest.sh -- examples/bin/NAME -h).
#
# AOT cache (JEP 483/514/515): the first run of each example records one (-XX:AOTMode=record, then
# -XX:AOTMode=create when the program has exited, which makes that exit a few seconds slower) and
# later runs start from it (-XX:AOTCache), which cuts the cold first connection (docs/benchmarks.md).
#   - where: ${RDMACM4J_AOT_DIR:-${XDG_CACHE_HOME:-~/.cache}/rdmacm4j/aot}/NAME-KEY.aot, KEY a hash
#     of the JDK, the JVM flags and every jar and class file on the module path (sizes and times), so a rebuild
#     or another JDK picks a new file instead of a stale one;
#   - the JVM's own validation: every run that uses a cache logs -Xlog:aot to NAME-KEY.aot.log; a
#     log that says the cache was rejected (an [error] line, or no "Opened AOT cache") makes the
#     next run delete it and record a new one, so a bad cache costs one slow run, never a failure;
#   - concurrent first runs (a server and a client started at once) each record to their own
#     temporary name and rename it into place (atomic on one file system): the last one wins whole;
#   - only a run that exits 0 installs its cache, and -h/--help runs record none (too little to train);
#   - RDMACM4J_AOT=off runs without any cache; a cache directory that cannot be written runs
#     without one and says so on stderr.
set -euo pipefail
name=$1 main=$2; shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/../scripts/find-jdk.sh"
rdmacm4j_find_jdk >/dev/null || exit 1
cp_file="${here}/target/classpath.txt"
[[ -f "${cp_file}" && -d "${here}/target/classes" ]] || {
  echo "${name}: build first: ./mvnw package -DskipTests" >&2; exit 1; }
module_path="${here}/target/classes:$(cat "${cp_file}")"
# JVM flags: C1 only and the serial GC unless RDMACM4J_JAVA_FLAGS says otherwise (word-split; set
# and empty: the JDK's defaults). The it suite runs the twins with its own JVM's flags (run-it.sh).
read -r -a jvm_flags <<< "${RDMACM4J_JAVA_FLAGS-"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}"
java_cmd=("${JAVA_HOME}/bin/java" "${jvm_flags[@]}")
# Every example starts through Launch, which turns RdmaUnavailableException (no RDMA here) into its
# one-line message naming examples/bin/doctor, and exit status 1.
modules=(--module-path "${module_path}" --enable-native-access=org.rdmacm4j.verbs
  -m "org.rdmacm4j.examples/org.rdmacm4j.examples.Launch" "${name}" "${main}")
app=("${modules[@]}" "$@")

case "${RDMACM4J_AOT:-on}" in
  off) exec "${java_cmd[@]}" "${app[@]}" ;;
  on) ;;
  *) echo "${name}: RDMACM4J_AOT must be on or off, was '${RDMACM4J_AOT}'" >&2; exit 2 ;;
esac

aot_dir=${RDMACM4J_AOT_DIR:-${XDG_CACHE_HOME:-${HOME}/.cache}/rdmacm4j/aot}
if ! mkdir -p "${aot_dir}" 2>/dev/null || [[ ! -w "${aot_dir}" ]]; then
  echo "${name}: AOT cache directory ${aot_dir} is not writable: running without a cache (RDMACM4J_AOT_DIR)" >&2
  exec "${java_cmd[@]}" "${app[@]}"
fi
# The key: what the cache depends on. Class files and jars by size and modification time; the
# JDK by its path and its modules image.
key=$( {
  echo "${JAVA_HOME}"; stat -L -c '%s %Y' "${JAVA_HOME}/lib/modules"; echo "${jvm_flags[*]}"
  IFS=: read -r -a entries <<< "${module_path}"
  for e in "${entries[@]}"; do
    if [[ -d ${e} ]]; then (cd "${e}" && find . -type f -printf '%P %s %T@\n' | LC_ALL=C sort); else stat -L -c '%n %s %Y' "${e}"; fi
  done
} | sha256sum | cut -c1-16)
cache="${aot_dir}/${name}-${key}.aot"
log="${cache}.log"

# The previous run's verdict on the cache: rejected by the JVM -> record a new one.
if [[ -f ${cache} && -f ${log} ]] && { grep -q '\[error' "${log}" || ! grep -q 'Opened AOT cache' "${log}"; }; then
  echo "${name}: the JVM rejected the AOT cache ${cache} last time (see ${log}): recording a new one" >&2
  rm -f "${cache}" "${log}"
fi

if [[ -f ${cache} ]]; then
  # -Xlog:aot=off first: the JVM's aot messages go to the log file only, never to the program's output.
  exec "${java_cmd[@]}" -XX:AOTCache="${cache}" -Xlog:aot=off -Xlog:aot=info:file="${log}" "${app[@]}"
fi

for a in "$@"; do
  if [[ ${a} == -h || ${a} == --help ]]; then exec "${java_cmd[@]}" "${app[@]}"; fi
done
# No rdma_cm device file: the program can only say that RDMA is unavailable (and names the doctor);
# recording a cache then trains nothing and adds the JVM's "AOTConfiguration recorded" line.
if [[ ! -e /dev/infiniband/rdma_cm ]]; then exec "${java_cmd[@]}" "${app[@]}"; fi
# Record (-XX:AOTMode=record) as a child, not exec, so that the cache can be created (AOTMode=create,
# with the recording run's module options, its output discarded) and renamed into place after the program exits. The JVM ends a recording
# run with one line on stderr: " AOTConfiguration recorded: FILE".
tmp="${cache}.tmp.$$"
trap 'rm -f "${tmp}" "${tmp}.conf"' EXIT
"${java_cmd[@]}" -XX:AOTMode=record -XX:AOTConfiguration="${tmp}.conf" -Xlog:aot=off "${app[@]}" &
pid=$!
trap 'kill -TERM "${pid}" 2>/dev/null' TERM INT HUP
status=0
wait "${pid}" || status=$?
while kill -0 "${pid}" 2>/dev/null; do status=0; wait "${pid}" || status=$?; done   # a trapped signal ends a wait early
if (( status == 0 )) && [[ -s ${tmp}.conf ]] \
    && "${java_cmd[@]}" -XX:AOTMode=create -XX:AOTConfiguration="${tmp}.conf" -XX:AOTCache="${tmp}" \
         "${modules[@]}" > /dev/null 2>&1 && [[ -s ${tmp} ]]; then
  mv -f "${tmp}" "${cache}"
fi
exit "${status}"
