package org.rdmacm4j.cm.core.doctor;

import org.rdmacm4j.cm.core.MessagingOptions;

/**
 * What one connection costs the process, the budgets the limit checks apply: locked memory and
 * open files, for connections with the default message channel.
 */
public final class Budget {
    private Budget() { }

    /**
     * The locked (pinned) memory one connection costs, the estimate the memlock check uses: its
     * message channel's registered buffers, with {@link MessagingOptions#defaults()} 2 x 32 credits x
     * 4 KiB slots (32 receives posted for the peer, 32 sends) = 256 KiB, registered from 1 MiB slabs
     * shared by the device's connections (memory registration pins pages and counts them against
     * RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK), plus 64 KiB for the QP and CQ rings that
     * hardware providers (mlx5 and the like) allocate in user memory and pin; soft-RoCE keeps those
     * in the kernel. Measured on rxe: 64 registered 4 KiB slots per connection, about 512 KiB per
     * connected pair (docs/reliability.md, live connections). Raw connections
     * ({@code ConnectOptions.Builder.raw()}) pin only the rings and what the application registers.
     */
    public static final long PINNED_BYTES_PER_CONNECTION = pinnedPerConnection();

    /**
     * File descriptors budgeted per connection: 2. Measured: each connection end holds one
     * completion-channel fd (1,000 fds added for 500 connected pairs, docs/reliability.md); a
     * process that both connects and accepts, as a server under test or this doctor's loopback
     * does, holds two ends per connection. {@link #FDS_BASE} more are budgeted for the JVM and the
     * RdmaCm itself (event channel, epoll, eventfd, uverbs device files).
     */
    public static final int FDS_PER_CONNECTION = 2;

    /** Open files budgeted for the JVM (jars, sockets) and the RdmaCm's own channel, epoll and eventfd. */
    public static final int FDS_BASE = 64;

    static final long HARDWARE_RINGS_ALLOWANCE = 64 * 1024;
    static final long SLAB = 1 << 20;

    private static long pinnedPerConnection() {
        MessagingOptions m = MessagingOptions.defaults();
        long slot = Math.max(64, Integer.highestOneBit(Math.max(1, m.maxMessageSize()) - 1) << 1);
        return 2L * m.receiveCredits() * slot + HARDWARE_RINGS_ALLOWANCE;
    }
}
