#!/usr/bin/env bash
# Installs the reactor into a fresh local repository and builds it/outside-project against it,
# offline: the artifacts an outside build gets are the ones `./mvnw install` makes, with nothing
# else to fall back on. Run by run-tests after `./mvnw verify`; then it/rig/run-it.sh runs the
# program in the soft-RoCE guest (it/outside-project/check.sh).
#
# The local repository is ${repo}/target/local-repo (fresh every run). ~/.m2/repository is only
# its read-only tail (Maven 3.9's maven.repo.local.tail) for the plugins and third-party jars
# already downloaded: nothing of org.rdmacm4j is read from it, and the shared ~/.m2 gets no
# SNAPSHOT of this checkout (other checkouts on the machine would silently resolve it).
#
# Env: RDMACM4J_M2_REPO  the tail (default ~/.m2/repository)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "${repo}"
source scripts/find-jdk.sh
rdmacm4j_find_jdk >/dev/null || exit 1
export JAVA_HOME

head="${repo}/target/local-repo"
tail="${RDMACM4J_M2_REPO:-${HOME}/.m2/repository}"
version=$(awk '/<artifactId>rdmacm4j-parent<\/artifactId>/ { f = 1; next }
               f && /<version>/ { gsub(/.*<version>|<\/version>.*/, ""); print; exit }' pom.xml)
[[ -n "${version}" ]] || { echo "outside-project: cannot read the version from pom.xml" >&2; exit 1; }
repos=(-Dmaven.repo.local="${head}" -Dmaven.repo.local.tail="${tail}")

rm -rf "${head}" it/outside-project/target   # nothing of an earlier run may be found
echo "outside-project: ./mvnw install (rdmacm4j ${version}) into ${head}"
# it and benchmarks are not installed anyway (maven.install.skip): leave them out.
./mvnw -B -ntp -q install -DskipTests -pl '!it,!benchmarks' "${repos[@]}"
for a in parent bom verbs cm-statemachine cm-core examples; do
  d="${head}/org/rdmacm4j/rdmacm4j-${a}/${version}"
  [[ -f "${d}/rdmacm4j-${a}-${version}.pom" ]] || { echo "outside-project: FAILED: install left no rdmacm4j-${a} pom in ${d}" >&2; exit 1; }
  case "${a}" in parent|bom) continue ;; esac
  for c in "" -sources -javadoc; do
    [[ -s "${d}/rdmacm4j-${a}-${version}${c}.jar" ]] \
      || { echo "outside-project: FAILED: install left no rdmacm4j-${a}-${version}${c}.jar" >&2; exit 1; }
  done
done

echo "outside-project: ./mvnw -o -f it/outside-project/pom.xml package (imports rdmacm4j-bom ${version})"
./mvnw -B -ntp -q -o -f it/outside-project/pom.xml "${repos[@]}" -Drdmacm4j.version="${version}" clean package

# The module path the guest gets holds exactly this build's jars, as installed.
for m in verbs cm-statemachine cm-core; do
  cmp "${m}/target/rdmacm4j-${m}-${version}.jar" "it/outside-project/target/lib/rdmacm4j-${m}-${version}.jar" \
    || { echo "outside-project: FAILED: target/lib/rdmacm4j-${m}-${version}.jar is not the reactor's" >&2; exit 1; }
done
echo "outside-project: built it/outside-project/target/outside.jar; module path: $(cd it/outside-project/target/lib && echo *)"
