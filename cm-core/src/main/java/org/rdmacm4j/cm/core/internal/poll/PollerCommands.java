package org.rdmacm4j.cm.core.internal.poll;

import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;

/**
 * The commands a {@link CompletionPoller} takes about one CQ, as {@link CqRegistration} sends them:
 * an interface so that the registration's rules are tested without a poller thread or a device.
 * Each command is queued and run on the poller thread in the order it was queued.
 */
public interface PollerCommands {
    /** Starts watching the channel of {@code cq}; returns the token that names it in later commands. */
    long register(CompletionChannel channel, CompletionQueue cq, CompletionSink sink);

    /** Collects the completions left in the CQ, then runs {@code drained}. */
    void drain(long token, Runnable drained);

    /** Starts ticking {@code keepalive} on the CQ's poller. */
    void startKeepalive(long token, Keepalive keepalive);

    /** Stops touching the CQ, acks every CQ event taken, then runs {@code quiesced}. */
    void quiesce(long token, Runnable quiesced);
}
