package org.rdmacm4j.cm.core.internal.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;
import org.rdmacm4j.cm.core.FuzzSupport;
import org.rdmacm4j.cm.core.MessagingOptions;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * Fuzz test of the message-channel offer at the front of a connect request's and an accept's
 * private data ({@link ChannelOffer#parse}, documented "never throws", null when there is no
 * valid offer), followed as VerbsCmPort.params does it by {@link ChannelOffer#strip} and the
 * application framing ({@link PrivateData#decode}). Inputs are what librdmacm hands over: at most
 * 255 bytes ({@code uint8_t private_data_len}). Checked against an independent reading of the
 * 7-byte layout, with an allocation bound; an offer a peer can make never sizes anything here
 * (the local side's buffers come from its own MessagingOptions), so the bound is the input's.
 *
 * <p>Tries: {@code jqwik.tries.default}; campaign {@code -Djqwik.tries.default=1000000}.
 */
class ChannelOfferFuzzTest {
    private static final AtomicLong PARSED = new AtomicLong();
    private static final int MAX_PRIVATE_DATA = 255;

    /** Offers with mutated magic, size and credits, an application frame or noise behind, truncations. */
    @Provide
    Arbitrary<byte[]> privateData() {
        Arbitrary<Integer> magic = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.just(ChannelOffer.MAGIC)),
                Tuple.of(1, Arbitraries.of(0xD0, 0xD2, 0xDF, 0xA1, 0xB1, 0x00, 0xFF)),
                Tuple.of(1, Arbitraries.integers().between(0, 255)));
        Arbitrary<Integer> size = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(1, MessagingOptions.MAX_MESSAGE_SIZE)),
                Tuple.of(3, Arbitraries.of(0, 1, 2, 4096, MessagingOptions.MAX_MESSAGE_SIZE,
                        MessagingOptions.MAX_MESSAGE_SIZE + 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE)),
                Tuple.of(1, Arbitraries.integers()));
        Arbitrary<Integer> credits = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.integers().between(2, 1024)),
                Tuple.of(3, Arbitraries.of(0, 1, 2, 3, 0x7FFF, 0x8000, 0xFFFF)),
                Tuple.of(1, Arbitraries.integers().between(0, 0xFFFF)));
        Arbitrary<byte[]> behind = Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.bytes().array(byte[].class).ofMaxSize(MessageKind.ACCEPT.usableBytes()
                        - ChannelOffer.BYTES).map(p -> PrivateData.encode(MessageKind.ACCEPT, p).wire().toArray())),
                Tuple.of(1, Arbitraries.just(new byte[0])),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(MAX_PRIVATE_DATA)));
        Arbitrary<Integer> padding = Arbitraries.frequencyOf(
                Tuple.of(2, Arbitraries.just(0)), Tuple.of(1, Arbitraries.integers().between(0, MAX_PRIVATE_DATA)));
        Arbitrary<byte[]> offer = Combinators.combine(magic, size, credits, behind, padding)
                .as((m, s, c, rest, pad) -> {
                    ByteBuffer b = ByteBuffer.allocate(Math.min(MAX_PRIVATE_DATA, ChannelOffer.BYTES + rest.length + pad));
                    b.put((byte) (int) m).putInt(s).putShort((short) (int) c);
                    b.put(rest, 0, Math.min(rest.length, b.remaining()));
                    return b.array();   // zero padding, as the transport pads
                });
        return Arbitraries.frequencyOf(
                Tuple.of(5, offer),
                Tuple.of(2, offer.flatMap(b -> Arbitraries.integers().between(0, b.length).map(n -> Arrays.copyOf(b, n)))),
                Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(MAX_PRIVATE_DATA)));
    }

    @Property
    void parseFindsExactlyAValidOfferAndTheRestDecodes(@ForAll("privateData") byte[] in) {
        PARSED.incrementAndGet();
        byte[] copy = in.clone();
        ChannelOffer[] out = new ChannelOffer[1];
        long allocated = FuzzSupport.steadyAllocation(() -> out[0] = ChannelOffer.parse(in), 256);
        ChannelOffer offer = out[0];
        assertThat(in).as("parse leaves the bytes alone").isEqualTo(copy);
        assertThat(allocated).as("bytes allocated by parse").isLessThanOrEqualTo(256);

        ChannelOffer expected = null;
        if (in.length >= 7 && (in[0] & 0xFF) == 0xD1) {
            ByteBuffer b = ByteBuffer.wrap(in, 1, 6);
            int size = b.getInt();
            int credits = b.getShort() & 0xFFFF;
            if (size >= 1 && size <= MessagingOptions.MAX_MESSAGE_SIZE && credits >= 2) {
                expected = new ChannelOffer(size, credits);
            }
        }
        Statistics.label("offer").collect(expected != null ? "valid" : in.length < 7 ? "too short"
                : (in[0] & 0xFF) != 0xD1 ? "no magic" : "magic, bad size or credits");
        assertThat(offer).isEqualTo(expected);

        // What VerbsCmPort.params does next: strip a valid offer, decode the application's framing.
        byte[] application = offer == null ? in : ChannelOffer.strip(in);
        assertThat(application).isEqualTo(offer == null ? in : Arrays.copyOfRange(in, ChannelOffer.BYTES, in.length));
        PrivateData.Received r = PrivateData.decode(Bytes.of(application));
        assertThat(r.payload().length()).isLessThanOrEqualTo(application.length);
        if (offer != null) {
            assertThat(offer.prependTo(Bytes.of(application)).toArray())
                    .as("the offer re-encodes to the bytes it was read from").isEqualTo(in);
        }
    }

    @AfterContainer
    static void report() {
        System.out.println(FuzzSupport.report("ChannelOffer.parse (+ strip, PrivateData.decode)", PARSED));
    }
}
