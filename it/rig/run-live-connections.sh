#!/usr/bin/env bash
# On demand (not in CI): LiveConnectionsIT stepped up to N pairs on one RdmaCm in the guest, with
# the job's open-file limit raised first. Every connection holds one completion-channel fd, and the
# guest's default hard limit (4096) stops a run at 2,000 pairs with EMFILE from rdma_create_qp, as
# a server with its default limit would. Needs a prior package (as run-it.sh).
#
#   it/rig/run-live-connections.sh [PAIRS (default 10000)] [raw|small|default (default raw)]
set -euo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "${rigdir}/../.." && pwd)
target="${repo}/it/target"
source "${rigdir}/rig-lib.sh"
rig_require_build "${target}" run-live-connections
[[ -n "${JAVA_HOME:-}" ]] || { source "${repo}/scripts/find-jdk.sh"; rdmacm4j_find_jdk >/dev/null; }
pairs="${1:-10000}"
channel="${2:-raw}"
[[ "${pairs}" =~ ^[0-9]+$ ]] || { echo "run-live-connections: PAIRS must be a number, not '${pairs}'" >&2; exit 2; }
[[ "${channel}" =~ ^(raw|small|default)$ ]] || { echo "run-live-connections: channel must be raw, small or default" >&2; exit 2; }
out="${target}/guest/live-${pairs}-${channel}-$(date +%Y%m%d-%H%M%S)"
mkdir -p "${out}/junit"
cp="${target}/test-classes:${target}/classes:$(cat "${target}/it-classpath.txt")"
inner="ulimit -n 1048576 && exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED \
 -Drdmacm4j.it.liveConnections=${pairs} -Drdmacm4j.it.liveChannel=${channel} -Drdmacm4j.it.resting=${out}/rdma-resting.txt \
 -Drdmacm4j.it.serverAddr=192.0.2.1 -Drdmacm4j.it.clientAddr=192.0.2.3 -Drdmacm4j.it.device=rxe0 \
 -jar ${target}/launcher/junit-console.jar execute --disable-banner --details=tree --fail-if-no-tests \
 --class-path ${cp} --reports-dir ${out}/junit --select-class=org.rdmacm4j.it.core.LiveConnectionsIT --include-classname '.*IT'"
cd "${repo}"
exec "${rigdir}/guest.sh" --timeout 1500 --out "${out}" -- bash -c "${inner}"
