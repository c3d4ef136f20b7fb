package org.rdmacm4j.cm.core.internal.connection;

/**
 * The message-channel rules a peer's incoming message must keep, checked on the poller before the
 * message is delivered (see {@link DataPath} for the protocol). A peer that breaks one (a raw verbs
 * program ignoring the credits, or sending garbage immediate data) gets its connection torn down
 * with a clear error instead of being trusted: without this check, a flood beyond the granted
 * credits is absorbed silently by RNR retries and a forged grant makes us overrun the peer.
 *
 * <p>Pure and stateless: the counters are the caller's ({@link DataPath}, under its lock).
 */
public final class PeerConduct {
    /** Bits of the immediate data the protocol defines: the grant count and the grant-only flag. */
    public static final int KNOWN_IMM_BITS = 0xFFFF | (1 << 16);

    private PeerConduct() { }

    /**
     * Why the message just received breaks the protocol, or null if it keeps it.
     *
     * @param withImm       the completion carried immediate data (every message of the protocol does)
     * @param imm           its immediate data
     * @param received      messages received from the peer, this one included
     * @param granted       credits we have granted the peer in total (the initial window included)
     * @param credits       our send credits before this message's grant
     * @param peerWindow    receive credits the peer offered (the most it can ever grant), or 0 if
     *                      its offer is not known yet (the grant is then not checked)
     */
    public static String violation(boolean withImm, int imm, long received, long granted, long credits, int peerWindow) {
        if (received > granted) {
            return "the peer sent message " + received + " but was granted only " + granted
                    + " credits (it ignores the flow control)";
        }
        if (!withImm) {
            return "the peer sent a message without immediate data (every message of the channel carries its grant)";
        }
        if ((imm & ~KNOWN_IMM_BITS) != 0) {
            return "the peer sent immediate data 0x" + Integer.toHexString(imm)
                    + " with bits the channel does not define";
        }
        long after = credits + (imm & 0xFFFF);
        if (peerWindow > 0 && after > peerWindow) {
            return "the peer granted credits up to " + after + " but offered a window of only " + peerWindow;
        }
        return null;
    }

    /**
     * Why a received message of {@code byteLength} bytes (the completion's byte_len, unsigned)
     * breaks the protocol, or null if it is at most {@code maxMessage}, the size this side offered.
     * The receive buffers are slots of the pool's size class (a power of two), larger than the
     * offer whenever it is not one: without this check a peer ignoring the offer (a raw verbs
     * program) had a message of up to the slot size delivered to a handler promised at most
     * {@code maxMessage} bytes, and a byte_len beyond the slot would fail the slice on the poller.
     */
    static String lengthViolation(int byteLength, int maxMessage) {
        long length = Integer.toUnsignedLong(byteLength);
        if (length > maxMessage) {
            return "the peer sent a message of " + length + " bytes but was offered at most " + maxMessage;
        }
        return null;
    }
}
