package org.rdmacm4j.cm.core.internal.connection;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.statemachine.Bytes;

/**
 * The message-channel offer carried ahead of the application's private data in a connect request
 * and its accept. Layout (7 bytes, big endian):
 * <pre>
 *   0      magic 0xD1 (rdmacm4j message channel, version 1)
 *   1..4   max message size the sender of the offer receives
 *   5..6   receive credits it grants at the start
 * </pre>
 * A private-data buffer that does not start with the magic carries no offer (a plain librdmacm
 * peer): the connection then has no message channel.
 */
public record ChannelOffer(int maxMessageSize, int credits) {
    public static final int MAGIC = 0xD1;
    public static final int BYTES = MessagingOptions.PRIVATE_DATA_BYTES;

    public Bytes prependTo(Bytes applicationData) {
        ByteBuffer b = ByteBuffer.allocate(BYTES + applicationData.length()).order(ByteOrder.BIG_ENDIAN);
        b.put((byte) MAGIC).putInt(maxMessageSize).putShort((short) credits).put(applicationData.toArray());
        return Bytes.of(b.array());
    }

    /** The offer at the start of {@code data}, or null. Never throws: the bytes come from the network. */
    public static ChannelOffer parse(byte[] data) {
        if (data.length < BYTES || (data[0] & 0xFF) != MAGIC) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.BIG_ENDIAN);
        b.get();
        int size = b.getInt();
        int credits = Short.toUnsignedInt(b.getShort());
        if (size < 1 || size > MessagingOptions.MAX_MESSAGE_SIZE || credits < 2) {
            return null;
        }
        return new ChannelOffer(size, credits);
    }

    /** {@code data} without the offer at its start (a copy). */
    public static byte[] strip(byte[] data) {
        byte[] rest = new byte[data.length - BYTES];
        System.arraycopy(data, BYTES, rest, 0, rest.length);
        return rest;
    }
}
