#!/usr/bin/env bash
# On-demand fuzz campaign of the parsers of peer bytes (the *FuzzTest jqwik properties in
# cm-statemachine, verbs and cm-core; docs/reliability.md has the list and the last figures).
# The normal build runs each property with jqwik.tries.default=10000 (junit-platform.properties);
# this runs every property alone, with TRIES inputs (default 1,000,000), one Maven run each (the
# pom's 600 s fork timeout applies per run), and prints the "fuzz <parser>: <n> inputs" lines.
#
#   scripts/fuzz-campaign.sh [TRIES]        logs: target/fuzz-campaign/<property>.log
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/find-jdk.sh
rdmacm4j_find_jdk
export JAVA_HOME
TRIES="${1:-1000000}"
OUT=target/fuzz-campaign
mkdir -p "${OUT}"
PROPERTIES=(
  PrivateDataFuzzTest#decodeYieldsExactlyTheFramedPayloadOrTheWholeBuffer
  PrivateDataFuzzTest#decodeSystemRejectRecognisesExactlyTheKnownCodes
  RejectReasonFuzzTest#decodeIsTotalAndFollowsItsRules
  CmEventDecodeFuzzTest#connParamCopiesExactlyTheAdvertisedBytes
  CmEventDecodeFuzzTest#udParamCopiesExactlyTheAdvertisedBytes
  ChannelOfferFuzzTest#parseFindsExactlyAValidOfferAndTheRestDecodes
  PeerConductFuzzTest#violationFlagsExactlyTheBrokenRules
  PeerConductFuzzTest#lengthViolationFlagsExactlyWhatExceedsTheOffer
  PeerConductFuzzTest#anHonestPeerIsNeverFlaggedAndOneBadMessageIs
  DatagramHeaderFuzzTest#grhAddressReadsTheRightFieldsForAnyHeader
  DatagramHeaderFuzzTest#payloadLengthIsInsideThePostedBufferOrRejected
  RemoteRegionFuzzTest#fromBytesReadsTheFieldsOrThrowsIllegalArgument
  RemoteRegionFuzzTest#anOperationThatPassesTheCheckLiesInsideTheRegion
)
./mvnw -o -q -pl cm-statemachine,verbs,cm-core test-compile
failed=0
for p in "${PROPERTIES[@]}"; do
  log="${OUT}/${p/\#/.}.log"
  start=$(date +%s)
  if ./mvnw -o -pl cm-statemachine,verbs,cm-core test -Dtest="${p}" -Dsurefire.failIfNoSpecifiedTests=false \
      -Djqwik.tries.default="${TRIES}" > "${log}" 2>&1; then
    verdict=passed
  else
    verdict=FAILED
    failed=1
  fi
  # The class prints one line per parser; only the property that ran has a non-zero count.
  grep '^fuzz ' "${log}" | grep -v ' 0 inputs$' | sed "s/\$/   ${verdict}, $(( $(date +%s) - start )) s/" || \
    echo "fuzz ${p}: no count (${verdict}, see ${log})"
done
exit "${failed}"
