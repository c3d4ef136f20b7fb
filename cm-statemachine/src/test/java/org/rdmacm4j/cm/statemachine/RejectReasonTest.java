package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

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
    void retryPolicyRetriesOnlyTransientReasons() {
        RetryPolicy p = RetryPolicy.defaults();
        assertThat(p.retries(new RejectReason.NoListener())).isTrue();
        assertThat(p.retries(new RejectReason.StaleConnection())).isTrue();
        assertThat(p.retries(new RejectReason.IwarpRefused(PrivateData.Received.nothing()))).isTrue();
        assertThat(p.retries(new RejectReason.ConsumerReject(PrivateData.Received.nothing()))).isFalse();
        assertThat(p.retries(new RejectReason.Timeout())).isFalse();
        assertThat(RetryPolicy.never().retries(new RejectReason.NoListener())).isFalse();
    }
}
