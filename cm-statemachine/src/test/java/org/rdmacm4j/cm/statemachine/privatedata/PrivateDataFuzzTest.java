package org.rdmacm4j.cm.statemachine.privatedata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;
import org.rdmacm4j.cm.statemachine.Bytes;

/**
 * Fuzz test of the two private-data framings a peer controls: {@link PrivateData#decode} (connect
 * request, accept, SIDR reply, reject) and {@link PrivateData#decodeSystemReject} (reject). Both
 * are documented "never throws" (the only exception is the NullPointerException of a null
 * argument, which the callers never pass). Each property checks the result against an
 * independent reading of the layout, that the two framings never both claim a buffer, and that a
 * call allocates no more than a small multiple of its input (in steady state).
 *
 * <p>Tries per property: {@code jqwik.tries.default} (junit-platform.properties); campaign:
 * {@code -Djqwik.tries.default=1000000}. The counts are printed after the class ("fuzz ...").
 */
class PrivateDataFuzzTest {
    private static final AtomicLong DECODED = new AtomicLong();
    private static final AtomicLong SYSTEM_DECODED = new AtomicLong();

    @Provide
    Arbitrary<byte[]> received() {
        return PrivateDataWire.received();
    }

    @Property
    void decodeYieldsExactlyTheFramedPayloadOrTheWholeBuffer(@ForAll("received") byte[] in) {
        DECODED.incrementAndGet();
        Bytes wire = Bytes.of(in);
        PrivateData.Received[] out = new PrivateData.Received[1];
        long allocated = PrivateDataWire.steadyAllocation(() -> out[0] = PrivateData.decode(wire), 3L * in.length + 512);
        PrivateData.Received r = out[0];

        boolean framed = in.length >= 2 && (in[0] & 0xFF) == 0xA1 && (in[1] & 0xFF) <= in.length - 2;
        Statistics.label("shape").collect(framed ? "framed" : in.length < 2 ? "shorter than a header"
                : (in[0] & 0xFF) == 0xA1 ? "0xA1, length beyond the buffer"
                : (in[0] & 0xF0) == 0xA0 ? "0xA0-0xAF, another version" : "another first byte");
        assertThat(r).isNotNull();
        assertThat(r.framed()).as("framed").isEqualTo(framed);
        byte[] expected = framed ? Arrays.copyOfRange(in, 2, 2 + (in[1] & 0xFF)) : in;
        assertThat(r.payload().toArray()).isEqualTo(expected);
        assertThat(allocated).as("bytes allocated decoding %d bytes", in.length).isLessThanOrEqualTo(3L * in.length + 512);
        if (framed) {
            assertThat(PrivateData.decodeSystemReject(wire)).as("one buffer, two framings").isEmpty();
        }
    }

    @Property
    void decodeSystemRejectRecognisesExactlyTheKnownCodes(@ForAll("received") byte[] in) {
        SYSTEM_DECODED.incrementAndGet();
        Bytes wire = Bytes.of(in);
        @SuppressWarnings("unchecked")
        Optional<SystemReject>[] out = new Optional[1];
        long allocated = PrivateDataWire.steadyAllocation(() -> out[0] = PrivateData.decodeSystemReject(wire), 512);

        Optional<SystemReject> expected = Optional.empty();
        if (in.length >= 2 && (in[0] & 0xFF) == 0xB1) {
            for (SystemReject s : SystemReject.values()) {
                if (s.code() == (in[1] & 0xFF)) {
                    expected = Optional.of(s);
                }
            }
        }
        Statistics.label("system reject").collect(expected.map(Enum::name)
                .orElse(in.length >= 2 && (in[0] & 0xFF) == 0xB1 ? "0xB1, unknown code" : "not one"));
        assertThat(out[0]).isNotNull().isEqualTo(expected);
        assertThat(allocated).as("bytes allocated").isLessThanOrEqualTo(512);
        if (expected.isPresent()) {
            assertThat(PrivateData.decode(wire).framed()).as("one buffer, two framings").isFalse();
        }
    }

    @AfterContainer
    static void report() {
        System.out.println(PrivateDataWire.report("PrivateData.decode", DECODED));
        System.out.println(PrivateDataWire.report("PrivateData.decodeSystemReject", SYSTEM_DECODED));
    }
}
