package org.rdmacm4j.verbs.internal;

/**
 * Live Java wrappers by native address, so that a pointer coming back from the library (the CQ
 * of a completion event, the QP/CQ/SRQ of an async event) maps to the object that owns it.
 * Added on create, removed on close. Any thread.
 *
 * <p>An {@link AddressTable} behind one monitor, not a {@code ConcurrentHashMap<Long, Object>}:
 * each connection adds and removes its QP and CQ (the dispatcher), and a lookup happens only per
 * completion event on a channel serving several CQs or per async event, so the calls are few,
 * short and rarely contended; the map cost a {@code Long} per call plus CHM's putVal and
 * replaceNode, where an uncontended monitor is a compare-and-swap in and out.
 */
public final class Registry {
    private Registry() { }

    private static final AddressTable<Object> LIVE = new AddressTable<>();   // guarded by LIVE

    public static void put(long address, Object wrapper) {
        synchronized (LIVE) {
            LIVE.put(address, wrapper);
        }
    }

    public static void remove(long address) {
        synchronized (LIVE) {
            LIVE.remove(address);
        }
    }

    /** The live wrapper at {@code address} if it has type {@code type}, else null. */
    public static <T> T get(long address, Class<T> type) {
        Object o;
        synchronized (LIVE) {
            o = LIVE.get(address);
        }
        return type.isInstance(o) ? type.cast(o) : null;
    }
}
