#!/usr/bin/env bash
# On demand (not in CI): LiveConnectionsIT stepped up to N pairs on one RdmaCm in the guest
# (it/rig/run-it.sh), with the guest JVM's open-file limit raised first. Every connection holds one
# completion-channel fd, and the guest's default hard limit (4096) stops a run at 2,000 pairs with
# EMFILE from rdma_create_qp, as a server with its default limit would. Needs a prior package.
#
#   it/rig/run-live-connections.sh [PAIRS (default 10000)] [raw|small|default (default raw)]
set -euo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pairs="${1:-10000}"
channel="${2:-raw}"
[[ "${pairs}" =~ ^[0-9]+$ ]] || { echo "run-live-connections: PAIRS must be a number, not '${pairs}'" >&2; exit 2; }
[[ "${channel}" =~ ^(raw|small|default)$ ]] || { echo "run-live-connections: channel must be raw, small or default" >&2; exit 2; }
RDMACM4J_IT_OPEN_FILES=1048576 \
RDMACM4J_IT_JAVA_OPTS="-Drdmacm4j.it.liveConnections=${pairs} -Drdmacm4j.it.liveChannel=${channel}" \
RDMACM4J_IT_SELECT="--select-class=org.rdmacm4j.it.core.LiveConnectionsIT" \
  exec "${rigdir}/run-it.sh"
