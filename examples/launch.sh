#!/usr/bin/env bash
# The one launcher behind examples/bin/*: launch.sh NAME CLASS ARGS... runs
# org.rdmacm4j.examples.CLASS on the module path of `./mvnw package`, with the same JVM flags
# for every example (scripts/jvm-flags.sh: C1 only and the serial GC, they start fast and mostly
# wait; RDMACM4J_JAVA_FLAGS replaces them, see below). Finds a
# JDK 25+ like the README commands do. Needs RDMA (run the examples inside the guest:
# it/rig/guest.sh -- examples/bin/NAME -h).
#
# AOT cache (JEP 483/514/515), RDMACM4J_AOT:
#   on (default): the build's cache when the build made one for this JDK, these JVM flags and this
#     module path (examples/target/aot/examples-KEY.aot, made at `./mvnw package` by a training
#     run that needs no RDMA device: cm-core's ColdStart through ColdStartTraining, see
#     docs/architecture.md), else the example's own recorded cache (record below);
#   record: only the example's own cache: its first run records one (-XX:AOTMode=record, then
#     -XX:AOTMode=create when the program has exited, which makes that exit a few seconds slower)
#     and later runs start from it (-XX:AOTCache). Trained by the real program on RDMA, so it
#     also covers the real port's paths; the build's cache covers every example from the first run;
#   build: only the build's cache (none if the build made none: says so on stderr);
#   off: no cache;
#   train: what the build runs (examples/pom.xml, package phase): makes the build's cache.
# The key (scripts/aot-lib.sh): the JDK, the JVM flags and every jar and class file on the module
# path (base names, sizes and times), so a rebuild or another JDK picks a new file, never a stale one.
# The example's own cache:
#   - where: ${RDMACM4J_AOT_DIR:-${XDG_CACHE_HOME:-~/.cache}/rdmacm4j/aot}/NAME-KEY.aot;
#   - the JVM's own validation: every run that uses a cache logs -Xlog:aot to NAME-KEY.aot.log; a
#     log that says the cache was rejected (an [error] line, or no "Opened AOT cache") makes the
#     next run delete it and record a new one, so a bad cache costs one slow run, never a failure;
#   - concurrent first runs (a server and a client started at once) each record to their own
#     temporary name and rename it into place (atomic on one file system): the last one wins whole;
#   - only a run that exits 0 installs its cache, and -h/--help runs record none (too little to train);
#   - a cache directory that cannot be written runs without one and says so on stderr.
# A run with the build's cache logs -Xlog:aot to the same directory (examples-KEY.aot.log) when it
# can be written, else nowhere.
set -euo pipefail
name=$1 main=$2; shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/../scripts/find-jdk.sh"
rdmacm4j_find_jdk >/dev/null || exit 1
cp_file="${here}/target/classpath.txt"
[[ -f "${cp_file}" && -d "${here}/target/classes" ]] || {
  echo "${name}: build first: ./mvnw package -DskipTests" >&2; exit 1; }
module_path="${here}/target/classes:$(cat "${cp_file}")"
# JVM flags: scripts/jvm-flags.sh (C1 only, the serial GC, no method-handle customization; why, there)
# unless RDMACM4J_JAVA_FLAGS says otherwise (word-split; set and empty: the JDK's defaults). The it
# suite runs the twins with its own JVM's flags (run-it.sh).
source "${here}/../scripts/jvm-flags.sh"
rdmacm4j_jvm_flags
java_cmd=("${JAVA_HOME}/bin/java" "${jvm_flags[@]}")
# Every example starts through Launch, which turns RdmaUnavailableException (no RDMA here) into its
# one-line message naming examples/bin/doctor, and exit status 1.
modules=(--module-path "${module_path}" --enable-native-access=org.rdmacm4j.verbs
  -m "org.rdmacm4j.examples/org.rdmacm4j.examples.Launch" "${name}" "${main}")
app=("${modules[@]}" "$@")

mode=${RDMACM4J_AOT:-on}
case "${mode}" in
  off) exec "${java_cmd[@]}" "${app[@]}" ;;
  on|record|build|train) ;;
  *) echo "${name}: RDMACM4J_AOT must be on, record, build or off, was '${mode}'" >&2; exit 2 ;;
esac
source "${here}/../scripts/aot-lib.sh"
key=$(rdmacm4j_aot_key "${jvm_flags[*]}" "${module_path}")
build_cache="${here}/target/aot/examples-${key}.aot"
if [[ ${mode} == train ]]; then
  rm -f "${here}"/target/aot/examples-*.aot "${here}"/target/aot/examples-*.aot.build.log
  if rdmacm4j_aot_build "${build_cache}" -- "${java_cmd[@]}" -- "${app[@]}"; then
    echo "${name}: AOT cache ${build_cache} ($(stat -c %s "${build_cache}") bytes); $(grep -m1 '^cold-start training' "${build_cache}.build.log")"
    exit 0
  fi
  echo "${name}: no AOT cache made: see ${build_cache}.build.log" >&2; exit 1
fi

aot_dir=${RDMACM4J_AOT_DIR:-${XDG_CACHE_HOME:-${HOME}/.cache}/rdmacm4j/aot}
if [[ ${mode} != record && -f ${build_cache} ]]; then
  aot_log=(-Xlog:aot=off)
  if mkdir -p "${aot_dir}" 2>/dev/null && [[ -w ${aot_dir} ]]; then
    aot_log+=(-Xlog:aot=info:file="${aot_dir}/examples-${key}.aot.log")
  fi
  exec "${java_cmd[@]}" -XX:AOTCache="${build_cache}" "${aot_log[@]}" "${app[@]}"
fi
if [[ ${mode} == build ]]; then
  echo "${name}: RDMACM4J_AOT=build but the build made no AOT cache for this JDK, these flags and module path (${build_cache}): running without one" >&2
  exec "${java_cmd[@]}" "${app[@]}"
fi
if ! mkdir -p "${aot_dir}" 2>/dev/null || [[ ! -w "${aot_dir}" ]]; then
  echo "${name}: AOT cache directory ${aot_dir} is not writable: running without a cache (RDMACM4J_AOT_DIR)" >&2
  exec "${java_cmd[@]}" "${app[@]}"
fi
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
