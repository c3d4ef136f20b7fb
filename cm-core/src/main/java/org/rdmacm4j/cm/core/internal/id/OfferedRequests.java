package org.rdmacm4j.cm.core.internal.id;

import java.util.HashMap;
import java.util.Map;
import org.rdmacm4j.cm.core.internal.port.NativeId;

/**
 * The native ids librdmacm made for CONNECT_REQUESTs, by event sequence, from the event until the
 * listener's machine offered or refused the request (whoever decides takes it). Dispatcher thread.
 */
final class OfferedRequests {
    private final Map<Long, NativeId> byEvent = new HashMap<>();

    void put(long eventSeq, NativeId id) {
        byEvent.put(eventSeq, id);
    }

    /** The id of the request, removed; null if it was taken already. */
    NativeId take(long eventSeq) {
        return byEvent.remove(eventSeq);
    }
}
