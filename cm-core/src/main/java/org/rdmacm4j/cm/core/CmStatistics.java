package org.rdmacm4j.cm.core;

import java.util.Map;

/**
 * Counters of one {@link RdmaCm} since it opened (a snapshot).
 *
 * @param connectsStarted   connect calls accepted
 * @param connectsSucceeded connects that reached ESTABLISHED
 * @param connectsFailed    failed connects, by failure type (e.g. "ConnectionRejectedException/NO_LISTENER")
 * @param requestsReceived  connection requests that reached a listener
 * @param accepts           requests accepted and established
 * @param rejects           requests rejected (by the application or automatically)
 * @param disconnects       established connections that ended
 * @param cmEvents          rdma_cm events dispatched
 * @param asyncEvents       verbs async events dispatched
 * @param callbackFailures  user callbacks that threw
 * @param liveIds           rdma_cm_ids that exist now (connections, requests, listeners)
 */
public record CmStatistics(long connectsStarted, long connectsSucceeded, Map<String, Long> connectsFailed,
                           long requestsReceived, long accepts, long rejects, long disconnects, long cmEvents,
                           long asyncEvents, long callbackFailures, int liveIds) {
    public CmStatistics {
        connectsFailed = Map.copyOf(connectsFailed);
    }

    /** Failed connects of every reason. */
    public long connectsFailedTotal() {
        return connectsFailed.values().stream().mapToLong(Long::longValue).sum();
    }
}
