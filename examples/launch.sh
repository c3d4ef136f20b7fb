#!/usr/bin/env bash
# The one launcher behind examples/bin/*: launch.sh NAME CLASS ARGS... runs
# org.rdmacm4j.examples.CLASS on the module path of `./mvnw package`, with the same JVM flags
# for every example (C1 only and the serial GC: they start fast and mostly wait). Finds a
# JDK 25+ like the README commands do. Needs RDMA (run the examples inside the guest:
# it/rig/guest.sh -- examples/bin/NAME -h).
set -euo pipefail
name=$1 main=$2; shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "${here}/../scripts/find-jdk.sh"
rdmacm4j_find_jdk >/dev/null || exit 1
cp_file="${here}/target/classpath.txt"
[[ -f "${cp_file}" && -d "${here}/target/classes" ]] || {
  echo "${name}: build first: ./mvnw package -DskipTests" >&2; exit 1; }
exec "${JAVA_HOME}/bin/java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
  --module-path "${here}/target/classes:$(cat "${cp_file}")" \
  --enable-native-access=org.rdmacm4j.verbs \
  -m "org.rdmacm4j.examples/org.rdmacm4j.examples.${main}" "$@"
