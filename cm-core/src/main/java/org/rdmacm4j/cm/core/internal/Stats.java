package org.rdmacm4j.cm.core.internal;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.rdmacm4j.cm.core.CmStatistics;

/** The counters of one RdmaCm. Written by the dispatcher (and callback threads), read by anyone. */
final class Stats {
    final LongAdder connectsStarted = new LongAdder();
    final LongAdder connectsSucceeded = new LongAdder();
    final Map<String, LongAdder> connectsFailed = new ConcurrentHashMap<>();
    final LongAdder requestsReceived = new LongAdder();
    final LongAdder accepts = new LongAdder();
    final LongAdder rejects = new LongAdder();
    final LongAdder disconnects = new LongAdder();
    final LongAdder cmEvents = new LongAdder();
    final LongAdder asyncEvents = new LongAdder();
    final LongAdder callbackFailures = new LongAdder();
    volatile int liveIds;

    void connectFailed(String key) {
        connectsFailed.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    CmStatistics snapshot() {
        Map<String, Long> failed = new TreeMap<>();
        connectsFailed.forEach((k, v) -> failed.put(k, v.sum()));
        return new CmStatistics(connectsStarted.sum(), connectsSucceeded.sum(), failed, requestsReceived.sum(),
                accepts.sum(), rejects.sum(), disconnects.sum(), cmEvents.sum(), asyncEvents.sum(),
                callbackFailures.sum(), liveIds);
    }
}
