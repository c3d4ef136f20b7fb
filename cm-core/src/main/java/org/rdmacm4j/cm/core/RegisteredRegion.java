package org.rdmacm4j.cm.core;

import java.lang.foreign.MemorySegment;

/**
 * Memory registered with a connection's device for one-sided operations
 * ({@link RdmaConnection#register}): the local side of a write or read, or memory the peer may
 * read, write and use atomically once it has {@link #toRemote()}. Closed explicitly, and at the
 * latest when its connection closes. Any thread.
 */
public interface RegisteredRegion extends AutoCloseable {

    /** The registered memory. */
    MemorySegment segment();

    /** What the peer needs to reach the whole region. */
    RemoteRegion toRemote();

    /**
     * Deregisters the region. Idempotent.
     *
     * @throws IllegalStateException while a posted operation still uses it
     */
    @Override
    void close();
}
