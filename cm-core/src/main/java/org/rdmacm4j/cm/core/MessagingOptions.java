package org.rdmacm4j.cm.core;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The two-sided message channel of a connection: message size, how many receives are posted (the
 * credits granted to the peer) and how many sends may wait for credits.
 *
 * <p>Flow control: a sender never sends without a posted receive at the peer, so an RNR retry
 * is never the normal path. Each side grants {@code receiveCredits} at connect time (in the CM
 * private data); every message then carries, in its immediate data, the receives its sender has
 * re-posted since it last said so. A side with nothing to send returns credits in a grant-only
 * message once half its window is due, or at once when the peer may be down to its last credit.
 * Grant-only messages use credits too, and the last credit is only ever spent on a message that
 * grants credits back, which keeps the exchange free of deadlock (the rule of SMB Direct, MS-SMBD
 * 3.1.5.1).
 *
 * @param maxMessageSize the largest message this side receives (its receive buffers' size)
 * @param receiveCredits receives posted for the peer's messages (at least 2)
 * @param maxQueuedSends sends that may wait for credits or send buffers; beyond it send fails
 */
public record MessagingOptions(int maxMessageSize, int receiveCredits, int maxQueuedSends) {
    /** Largest message size accepted: a receive buffer is one slot of the device's pool. */
    public static final int MAX_MESSAGE_SIZE = 1 << 20;
    /**
     * CM private-data bytes the channel's offer takes (magic, message size, credits), sent ahead of
     * the application's own bytes in the request and the accept.
     */
    public static final int PRIVATE_DATA_BYTES = 7;

    public MessagingOptions {
        checkArgument(maxMessageSize >= 1 && maxMessageSize <= MAX_MESSAGE_SIZE,
                "maxMessageSize must be in [1, %s], was %s", MAX_MESSAGE_SIZE, maxMessageSize);
        checkArgument(receiveCredits >= 2 && receiveCredits <= 4096,
                "receiveCredits must be in [2, 4096], was %s", receiveCredits);
        checkArgument(maxQueuedSends >= 0, "maxQueuedSends must be >= 0, was %s", maxQueuedSends);
    }

    /** 4 KiB messages, 32 credits, up to 1024 queued sends. */
    public static MessagingOptions defaults() {
        return DEFAULTS;
    }

    /** One instance: a record is immutable. */
    private static final MessagingOptions DEFAULTS = new MessagingOptions(4096, 32, 1024);
}
