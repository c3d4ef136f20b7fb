package org.rdmacm4j.cm.core.internal.id;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.rdmacm4j.cm.core.CmStatistics;

/**
 * The counters of one RdmaCm, read by anyone. Those only the dispatcher writes are
 * {@link DispatcherCounter}s; the failures (from a caller's thread too) and callback failures (callback
 * threads) stay {@code LongAdder}s.
 */
public final class Stats {
    public final DispatcherCounter connectsStarted = new DispatcherCounter();
    public final DispatcherCounter connectsSucceeded = new DispatcherCounter();
    public final Map<String, LongAdder> connectsFailed = new ConcurrentHashMap<>();
    public final DispatcherCounter requestsReceived = new DispatcherCounter();
    public final DispatcherCounter accepts = new DispatcherCounter();
    public final DispatcherCounter rejects = new DispatcherCounter();
    public final DispatcherCounter disconnects = new DispatcherCounter();
    public final DispatcherCounter cmEvents = new DispatcherCounter();
    public final DispatcherCounter asyncEvents = new DispatcherCounter();
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
