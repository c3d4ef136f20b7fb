package org.rdmacm4j.cm.statemachine.privatedata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rdmacm4j.cm.statemachine.Bytes;

class PrivateDataTest {
    @Test
    void limitsAreTheTransportLimitsMinusTheHeader() {
        assertThat(MessageKind.CONNECT_REQUEST.wireLimit()).isEqualTo(56);
        assertThat(MessageKind.ACCEPT.wireLimit()).isEqualTo(196);
        assertThat(MessageKind.REJECT.wireLimit()).isEqualTo(148);
        assertThat(MessageKind.SIDR_REQUEST.wireLimit()).isEqualTo(180);
        assertThat(MessageKind.SIDR_REPLY.wireLimit()).isEqualTo(136);
        assertThat(MessageKind.CONNECT_REQUEST.usableBytes()).isEqualTo(54);
        assertThat(PrivateData.HEADER_BYTES).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(MessageKind.class)
    void exactlyTheUsableSizeFitsAndOneMoreIsRejectedWithAClearMessage(MessageKind kind) {
        assertThat(PrivateData.encode(kind, new byte[kind.usableBytes()]).wire().length()).isEqualTo(kind.wireLimit());
        assertThatThrownBy(() -> PrivateData.encode(kind, new byte[kind.usableBytes() + 1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(kind.name())
                .hasMessageContaining((kind.usableBytes() + 1) + " bytes")
                .hasMessageContaining("at most " + kind.usableBytes())
                .hasMessageContaining(kind.wireLimit() + " on the wire");
    }

    @Test
    void rawWireDataIsCheckedToo() {
        assertThatThrownBy(() -> new PrivateData(MessageKind.CONNECT_REQUEST, Bytes.of(new byte[57])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("56");
    }

    @Property(tries = 300)
    void theReceiverGetsExactlyWhatWasSentDespitePadding(@ForAll @Size(max = 54) byte[] payload,
                                                        @ForAll @Size(max = 100) byte[] padding) {
        byte[] wire = PrivateData.encode(MessageKind.CONNECT_REQUEST, payload).wire().toArray();
        byte[] padded = Arrays.copyOf(wire, wire.length + padding.length);   // transport pads (with zeros or junk)
        System.arraycopy(padding, 0, padded, wire.length, padding.length);
        PrivateData.Received r = PrivateData.decode(Bytes.of(padded));
        assertThat(r.framed()).isTrue();
        assertThat(r.payload().toArray()).isEqualTo(payload);
    }

    @Property(tries = 300)
    void decodeNeverThrows(@ForAll @Size(max = 255) byte[] anything) {
        PrivateData.Received r = PrivateData.decode(Bytes.of(anything));
        assertThat(r.payload().length()).isLessThanOrEqualTo(anything.length);
    }

    @Test
    void systemRejectsHaveTheirOwnHeader() {
        for (SystemReject r : SystemReject.values()) {
            Bytes wire = PrivateData.systemReject(r).wire();
            assertThat(wire).isEqualTo(Bytes.of((byte) 0xB1, (byte) r.code()));
            byte[] padded = Arrays.copyOf(wire.toArray(), MessageKind.REJECT.wireLimit());
            assertThat(PrivateData.decodeSystemReject(Bytes.of(padded))).contains(r);
            // For the application codec it is, like anything unknown, unframed.
            assertThat(PrivateData.decode(wire).framed()).isFalse();
        }
        assertThat(SystemReject.BUSY.retryable()).isTrue();
        assertThat(PrivateData.decodeSystemReject(Bytes.of((byte) 0xB1, (byte) 99))).isEmpty();
        assertThat(PrivateData.decodeSystemReject(Bytes.of((byte) 0xB1))).isEmpty();
        assertThat(PrivateData.decodeSystemReject(PrivateData.encode(MessageKind.REJECT, new byte[] {1}).wire())).isEmpty();
    }

    @Property(tries = 300)
    void decodeSystemRejectNeverThrows(@ForAll @Size(max = 255) byte[] anything) {
        PrivateData.decodeSystemReject(Bytes.of(anything));
    }

    @Test
    void unframedPeersAreReturnedWhole() {
        Bytes rping = Bytes.of(new byte[] {0, 0, 0, 1, 2, 3});
        assertThat(PrivateData.decode(rping)).isEqualTo(new PrivateData.Received(rping, false));
        Bytes truncated = Bytes.of(new byte[] {(byte) 0xA1, 9, 1});
        assertThat(PrivateData.decode(truncated).framed()).isFalse();
        assertThat(PrivateData.decode(Bytes.empty())).isEqualTo(PrivateData.Received.nothing());
    }
}
