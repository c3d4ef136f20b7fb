package org.rdmacm4j.cm.core.internal.id;

/**
 * A counter only the dispatcher thread adds to, read by any thread: a volatile long, incremented by
 * a read and a volatile write (one writer, so no lost update). It replaces a {@code LongAdder} on the
 * counters a connection bumps on the dispatcher (events, connects, accepts, disconnects): under C1,
 * the launchers' JIT, {@code LongAdder.add} (its cells check and a CAS) is a call of ~50 instructions,
 * ~600 per connection. A count written before a future completes is seen by whoever sees that
 * completion (the volatile write precedes the completion's hand-off).
 */
public final class DispatcherCounter {
    private volatile long value;

    /** Adds one. Dispatcher thread only. */
    public void increment() {
        value = value + 1;
    }

    /** The count. Any thread. */
    public long sum() {
        return value;
    }
}
