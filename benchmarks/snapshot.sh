# Sourced by run-all.sh and run-profile.sh. bench_snapshot DIR: copies what the guest will run
# (benchmarks.jar, the examples' classes and jars, the guest-side script given as $2) into DIR, so
# a rebuild during a run cannot change what is measured (bash reads a script as it runs it), and
# sets BENCH_MODULE_PATH to the examples' module path inside DIR.
bench_snapshot() {
  local dir=$1 script=$2 repo
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  cp "${repo}/benchmarks/target/benchmarks.jar" "${dir}/benchmarks.jar"
  cp "${script}" "${dir}/$(basename "${script}")"
  cp "${repo}/benchmarks/guest-lib.sh" "${dir}/guest-lib.sh"
  rm -rf "${dir}/examples"
  mkdir -p "${dir}/examples"
  cp -r "${repo}/examples/target/classes" "${dir}/examples/classes"
  BENCH_MODULE_PATH="${dir}/examples/classes"
  local deps d
  IFS=: read -r -a deps < <(tr -d "\n" < "${repo}/examples/target/classpath.txt"; echo)   # no final newline in the file
  for d in "${deps[@]}"; do
    cp "${d}" "${dir}/examples/"
    BENCH_MODULE_PATH+=":${dir}/examples/$(basename "${d}")"
  done
}
