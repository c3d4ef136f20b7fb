#!/usr/bin/env bash
# On demand (not in CI): ConnectCloseLeakIT with many connect/close cycles per configuration in the
# guest (it/rig/run-it.sh), sampled (heap after GC, RSS, fds, rdma resource show) every
# SAMPLE_EVERY cycles and checked flat (see the class). The CI runs the same class at its default,
# 1,000 cycles per configuration. Needs a prior package. Figures: docs/leak.md.
#
#   it/rig/run-leak.sh [CYCLES (default 100000)] [CONFIGS (default raw-1,raw-50,channel-1,channel-50)]
#                      [SAMPLE_EVERY (default 10000 for 100000 cycles or more, else CYCLES/5)]
#
# At ~4-25 ms per cycle under TCG a 100,000-cycle configuration takes 7-45 minutes; the guest job's
# deadline is raised to match (RDMACM4J_IT_TIMEOUT, default here 14400 s).
set -euo pipefail
rigdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cycles="${1:-100000}"
configs="${2:-raw-1,raw-50,channel-1,channel-50}"
[[ "${cycles}" =~ ^[0-9]+$ ]] || { echo "run-leak: CYCLES must be a number, not '${cycles}'" >&2; exit 2; }
[[ "${configs}" =~ ^((raw|channel)-[0-9]+,)*(raw|channel)-[0-9]+$ ]] \
  || { echo "run-leak: CONFIGS is a comma list of raw-N and channel-N, not '${configs}'" >&2; exit 2; }
opts="-Drdmacm4j.it.leakCycles=${cycles} -Drdmacm4j.it.leakConfigs=${configs}"
if [[ -n "${3:-}" ]]; then
  [[ "$3" =~ ^[0-9]+$ ]] || { echo "run-leak: SAMPLE_EVERY must be a number, not '$3'" >&2; exit 2; }
  opts+=" -Drdmacm4j.it.leakSampleEvery=$3"
fi
RDMACM4J_IT_TIMEOUT="${RDMACM4J_IT_TIMEOUT:-14400}" \
RDMACM4J_IT_OUTSIDE=off \
RDMACM4J_IT_JAVA_OPTS="${opts} ${RDMACM4J_IT_JAVA_OPTS:-}" \
RDMACM4J_IT_SELECT="--select-class=org.rdmacm4j.it.core.ConnectCloseLeakIT" \
  exec "${rigdir}/run-it.sh"
