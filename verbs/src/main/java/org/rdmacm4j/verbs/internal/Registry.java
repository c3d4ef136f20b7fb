package org.rdmacm4j.verbs.internal;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Live Java wrappers by native address, so that a pointer coming back from the library (the CQ
 * of a completion event, the QP/CQ/SRQ of an async event) maps to the object that owns it.
 * Added on create, removed on close. Any thread.
 */
public final class Registry {
    private Registry() { }

    private static final Map<Long, Object> LIVE = new ConcurrentHashMap<>();

    public static void put(long address, Object wrapper) {
        LIVE.put(address, wrapper);
    }

    public static void remove(long address) {
        LIVE.remove(address);
    }

    /** The live wrapper at {@code address} if it has type {@code type}, else null. */
    public static <T> T get(long address, Class<T> type) {
        Object o = LIVE.get(address);
        return type.isInstance(o) ? type.cast(o) : null;
    }
}
