package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;
import org.rdmacm4j.cm.statemachine.privatedata.SystemReject;

class RejectReasonTest {
    private static final Bytes PAYLOAD = PrivateData.encode(MessageKind.REJECT, new byte[] {42}).wire();

    @Test
    void ibStatusesAreTyped() {
        assertThat(RejectReason.decode(Transport.INFINIBAND, 28, PAYLOAD))
                .isEqualTo(new RejectReason.ConsumerReject(new PrivateData.Received(Bytes.of((byte) 42), true)));
        assertThat(RejectReason.decode(Transport.ROCE, 8, Bytes.empty())).isInstanceOf(RejectReason.NoListener.class);
        assertThat(RejectReason.decode(Transport.ROCE, 10, Bytes.empty())).isInstanceOf(RejectReason.StaleConnection.class);
        assertThat(RejectReason.decode(Transport.ROCE, 4, Bytes.empty())).isInstanceOf(RejectReason.Timeout.class);
        assertThat(RejectReason.decode(Transport.ROCE, 3, Bytes.empty())).isInstanceOf(RejectReason.Other.class);
    }

    @Test
    void iwarpRefusalsAreToldApartByTheFramingHeader() {
        assertThat(RejectReason.decode(Transport.IWARP, -111, PAYLOAD)).isInstanceOf(RejectReason.ConsumerReject.class);
        assertThat(RejectReason.decode(Transport.IWARP, -111, Bytes.empty())).isInstanceOf(RejectReason.IwarpRefused.class);
        assertThat(RejectReason.decode(Transport.IWARP, 28, PAYLOAD)).isInstanceOf(RejectReason.Other.class);
    }

    @Test
    void systemRejectsAreBusyOrRefusedOnEveryTransport() {
        Bytes busy = Bytes.of(java.util.Arrays.copyOf(PrivateData.systemReject(SystemReject.BUSY).wire().toArray(), 148));
        Bytes timeout = PrivateData.systemReject(SystemReject.DECISION_TIMEOUT).wire();
        assertThat(RejectReason.decode(Transport.ROCE, 28, busy)).isEqualTo(new RejectReason.Busy());
        assertThat(RejectReason.decode(Transport.INFINIBAND, 28, timeout))
                .isEqualTo(new RejectReason.Refused(SystemReject.DECISION_TIMEOUT));
        assertThat(RejectReason.decode(Transport.IWARP, -111, busy)).isEqualTo(new RejectReason.Busy());
        assertThat(RejectReason.decode(Transport.IWARP, -104, timeout))
                .isEqualTo(new RejectReason.Refused(SystemReject.DECISION_TIMEOUT));
        // Not a consumer reject: the system header means nothing there.
        assertThat(RejectReason.decode(Transport.ROCE, 8, busy)).isEqualTo(new RejectReason.NoListener());
        // siw reports an MPA reject as -ECONNRESET: a consumer reject, framed or not.
        assertThat(RejectReason.decode(Transport.IWARP, -104, PAYLOAD)).isEqualTo(
                new RejectReason.ConsumerReject(new PrivateData.Received(Bytes.of((byte) 42), true)));
        assertThat(RejectReason.decode(Transport.IWARP, -104, Bytes.empty())).isInstanceOf(RejectReason.ConsumerReject.class);
    }

    @Test
    void retryPolicyRetriesOnlyTransientReasons() {
        RetryPolicy p = RetryPolicy.defaults();
        assertThat(p.retries(new RejectReason.NoListener())).isTrue();
        assertThat(p.retries(new RejectReason.StaleConnection())).isTrue();
        assertThat(p.retries(new RejectReason.IwarpRefused(PrivateData.Received.nothing()))).isTrue();
        assertThat(p.retries(new RejectReason.ConsumerReject(PrivateData.Received.nothing()))).isFalse();
        assertThat(p.retries(new RejectReason.Timeout())).isFalse();
        assertThat(RetryPolicy.never().retries(new RejectReason.NoListener())).isFalse();
        assertThat(p.retries(new RejectReason.Busy())).isTrue();
        assertThat(p.retries(new RejectReason.Refused(SystemReject.LISTENER_CLOSED))).isFalse();
        assertThat(RetryPolicy.never().retries(new RejectReason.Busy())).isFalse();
    }
}
