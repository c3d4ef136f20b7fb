#!/usr/bin/env bash
# The benchmarks' build-time AOT cache (JEP 483/514/515), for the CmBench commands that
# benchmarks/guest-driver.sh runs with the launchers' JVM flags (scripts/jvm-flags.sh):
#
#   benchmarks/aot-cache.sh train JAR   (benchmarks/pom.xml, package phase) makes
#       DIR(JAR)/aot/benchmarks-KEY.aot from `CmBench train` (cm-core's ColdStart: downcall linking,
#       class loading, connections over an in-memory port; no RDMA device), checked with
#       -XX:AOTMode=on, with exactly the JVM flags and class path below;
#   source benchmarks/aot-cache.sh; bench_aot_cache JAR AOT_DIR   prints the cache made for JAR (a
#       copy of it with its times kept, `cp -p`, has the same key) if AOT_DIR holds it, else nothing.
# KEY: scripts/aot-lib.sh (the JDK, the flags, the jar's name, size and time).
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/jvm-flags.sh"
bench_aot_flags=("${rdmacm4j_launcher_flags[@]}" --enable-native-access=ALL-UNNAMED)

# bench_cache_in AOT_DIR NAME FLAGS PATH: AOT_DIR/NAME-KEY.aot if it exists (KEY: scripts/aot-lib.sh
# for FLAGS and the class or module PATH), else nothing.
bench_cache_in() {
  local f
  f="$1/$2-$(rdmacm4j_aot_key "$3" "$4").aot"
  [[ -f ${f} ]] && echo "${f}"
  return 0
}

bench_aot_cache() {   # bench_aot_cache JAR AOT_DIR
  bench_cache_in "$2" benchmarks "${bench_aot_flags[*]}" "$1"
}

# bench_twin_aot_cache AOT_DIR MODULE_PATH: the examples' build cache (examples/launch.sh's, keyed on
# the launchers' flags) for a copy of the examples' module path (snapshot.sh: same base names, sizes
# and times as the build's, so the same key), if AOT_DIR holds it.
bench_twin_aot_cache() {
  bench_cache_in "$1" examples "${rdmacm4j_launcher_flags[*]}" "$2"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  [[ ${1:-} == train && -f ${2:-} ]] || { echo "usage: benchmarks/aot-cache.sh train JAR" >&2; exit 2; }
  source "${here}/../scripts/find-jdk.sh"
  rdmacm4j_find_jdk >/dev/null
  source "${here}/../scripts/aot-lib.sh"
  jar=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
  dir="$(dirname "${jar}")/aot"
  cache="${dir}/benchmarks-$(rdmacm4j_aot_key "${bench_aot_flags[*]}" "${jar}").aot"
  rm -f "${dir}"/benchmarks-*.aot "${dir}"/benchmarks-*.aot.build.log
  if rdmacm4j_aot_build "${cache}" -- "${JAVA_HOME}/bin/java" "${bench_aot_flags[@]}" -cp "${jar}" \
      -- org.rdmacm4j.benchmarks.CmBench train; then
    echo "benchmarks: AOT cache ${cache} ($(stat -c %s "${cache}") bytes); $(grep -m1 '^cold-start training' "${cache}.build.log")"
  else
    echo "benchmarks: no AOT cache made: see ${cache}.build.log" >&2; exit 1
  fi
fi
