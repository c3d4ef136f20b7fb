package org.rdmacm4j.cm.core.internal.id;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.rdmacm4j.cm.core.CmStatistics;

/** The counters of one RdmaCm. Written by the dispatcher (and callback threads), read by anyone. */
public final class Stats {
    public final LongAdder connectsStarted = new LongAdder();
    public final LongAdder connectsSucceeded = new LongAdder();
    public final Map<String, LongAdder> connectsFailed = new ConcurrentHashMap<>();
    public final LongAdder requestsReceived = new LongAdder();
    public final LongAdder accepts = new LongAdder();
    public final LongAdder rejects = new LongAdder();
    public final LongAdder disconnects = new LongAdder();
    public final LongAdder cmEvents = new LongAdder();
    public final LongAdder asyncEvents = new LongAdder();
    public final LongAdder callbackFailures = new LongAdder();
    public volatile int liveIds;

    public void connectFailed(String key) {
        connectsFailed.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    public CmStatistics snapshot() {
        Map<String, Long> failed = new TreeMap<>();
        connectsFailed.forEach((k, v) -> failed.put(k, v.sum()));
        return new CmStatistics(connectsStarted.sum(), connectsSucceeded.sum(), failed, requestsReceived.sum(),
                accepts.sum(), rejects.sum(), disconnects.sum(), cmEvents.sum(), asyncEvents.sum(),
                callbackFailures.sum(), liveIds);
    }
}
