package org.rdmacm4j.cm.core.internal.id;

import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.verbs.internal.AddressTable;

/**
 * The native ids librdmacm made for CONNECT_REQUESTs, by event sequence, from the event until the
 * listener's machine offered or refused the request (whoever decides takes it). Keyed by the
 * {@code long} itself (sequences start at 1, never the table's free mark 0): a {@code HashMap<Long,
 * …>} made a {@code Long} for every put and take, two per connection. Dispatcher thread.
 */
final class OfferedRequests {
    private final AddressTable<NativeId> byEvent = new AddressTable<>();

    void put(long eventSeq, NativeId id) {
        byEvent.put(eventSeq, id);
    }

    /** The id of the request, removed; null if it was taken already. */
    NativeId take(long eventSeq) {
        return byEvent.remove(eventSeq);
    }
}
