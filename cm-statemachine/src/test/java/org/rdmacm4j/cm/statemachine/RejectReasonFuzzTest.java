package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.statistics.Statistics;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateDataWire;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

/**
 * Fuzz test of how a REJECTED event is read: {@link RejectReason#decode} takes the event's status
 * (the IB CM reason or a negative errno, set by the peer's CM or by the fabric) and the reject's
 * private data (the peer's bytes) and is documented "never throws". Checked against an
 * independent reading of the rules in its javadoc: which status and which framing make a
 * consumer reject, Busy, Refused, no listener, and so on; the payload is always what
 * {@link PrivateData#decode} makes of the bytes.
 *
 * <p>Tries: {@code jqwik.tries.default}; campaign {@code -Djqwik.tries.default=1000000}.
 */
class RejectReasonFuzzTest {
    private static final AtomicLong DECODED = new AtomicLong();

    @Provide
    Arbitrary<Integer> status() {
        return Arbitraries.frequencyOf(
                Tuple.of(8, Arbitraries.of(RejectReason.IB_CONSUMER_DEFINED, RejectReason.IB_INVALID_SERVICE_ID,
                        RejectReason.IB_STALE_CONN, RejectReason.IB_TIMEOUT, RejectReason.NEG_ECONNREFUSED,
                        RejectReason.NEG_ECONNRESET, RejectReason.ECONNREFUSED)),
                Tuple.of(2, Arbitraries.integers().between(-200, 200)),
                Tuple.of(1, Arbitraries.of(Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0)),
                Tuple.of(1, Arbitraries.integers()));
    }

    @Provide
    Arbitrary<byte[]> data() {
        return Arbitraries.frequencyOf(Tuple.of(2, PrivateDataWire.received()), Tuple.of(1, PrivateDataWire.systemReject()));
    }

    @Property
    void decodeIsTotalAndFollowsItsRules(@ForAll Transport transport, @ForAll("status") int status,
                                        @ForAll("data") byte[] data) {
        DECODED.incrementAndGet();
        Bytes wire = Bytes.of(data);
        RejectReason r = RejectReason.decode(transport, status, wire);
        Statistics.label("reason").collect(transport, r.getClass().getSimpleName());

        PrivateData.Received payload = PrivateData.decode(wire);
        Optional<SystemReject> system = PrivateData.decodeSystemReject(wire);
        RejectReason consumer = system.isEmpty() ? new RejectReason.ConsumerReject(payload)
                : system.get() == SystemReject.BUSY ? new RejectReason.Busy() : new RejectReason.Refused(system.get());
        RejectReason expected = switch (transport) {
            case INFINIBAND, ROCE -> status == 28 ? consumer : status == 8 ? new RejectReason.NoListener()
                    : status == 10 ? new RejectReason.StaleConnection() : status == 4 ? new RejectReason.Timeout()
                    : new RejectReason.Other(status, payload);
            case IWARP -> status == -111 ? (system.isPresent() || payload.framed() ? consumer
                    : new RejectReason.IwarpRefused(payload))
                    : status == -104 ? consumer : new RejectReason.Other(status, payload);
        };
        assertThat(r).isEqualTo(expected);
    }

    @AfterContainer
    static void report() {
        System.out.println(PrivateDataWire.report("RejectReason.decode", DECODED));
    }
}
