# Sourced by run-all.sh and run-profile.sh. bench_snapshot DIR: copies what the guest will run
# (benchmarks.jar, the examples' classes and jars, the guest-side script given as $2) into DIR, so
# a rebuild during a run cannot change what is measured (bash reads a script as it runs it), and
# sets BENCH_MODULE_PATH to the examples' module path inside DIR. Copies keep their times (cp -p),
# which the JVM checks against an AOT cache; the build's cache for benchmarks.jar (aot-cache.sh)
# goes to DIR/aot, where bench_aot_cache finds it for the copy, and so does the examples' build cache
# (examples/launch.sh's), where aot-cache.sh's bench_twin_aot_cache finds it for the copied module path.
bench_snapshot() {
  local dir=$1 script=$2 repo
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  cp -p "${repo}/benchmarks/target/benchmarks.jar" "${dir}/benchmarks.jar"
  mkdir -p "${dir}/aot"
  cp -p "${repo}"/benchmarks/target/aot/benchmarks-*.aot "${dir}/aot/" 2>/dev/null || true
  cp -p "${repo}"/examples/target/aot/examples-*.aot "${dir}/aot/" 2>/dev/null || true
  cp "${script}" "${dir}/$(basename "${script}")"
  cp "${repo}/benchmarks/guest-lib.sh" "${dir}/guest-lib.sh"
  rm -rf "${dir}/examples"
  mkdir -p "${dir}/examples"
  cp -rp "${repo}/examples/target/classes" "${dir}/examples/classes"
  BENCH_MODULE_PATH="${dir}/examples/classes"
  local deps d
  IFS=: read -r -a deps < <(tr -d "\n" < "${repo}/examples/target/classpath.txt"; echo)   # no final newline in the file
  for d in "${deps[@]}"; do
    cp -p "${d}" "${dir}/examples/"
    BENCH_MODULE_PATH+=":${dir}/examples/$(basename "${d}")"
  done
}
