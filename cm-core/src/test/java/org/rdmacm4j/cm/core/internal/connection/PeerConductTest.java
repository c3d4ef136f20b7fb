package org.rdmacm4j.cm.core.internal.connection;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PeerConductTest {
    private static final int GRANT_ONLY = 1 << 16;

    @Test
    void aConformingPeerPasses() {
        assertThat(PeerConduct.violation(true, 0, 1, 32, 32, 32)).isNull();
        assertThat(PeerConduct.violation(true, 5, 32, 32, 10, 32)).as("the last granted credit, granting 5").isNull();
        assertThat(PeerConduct.violation(true, GRANT_ONLY | 16, 40, 48, 16, 32)).as("grant-only up to the window")
                .isNull();
        assertThat(PeerConduct.violation(true, 0xFFFF, 1, 8, 0, 0)).as("window unknown yet: grant not checked")
                .isNull();
    }

    @Test
    void aMessageBeyondTheGrantedCreditsIsAViolation() {
        assertThat(PeerConduct.violation(true, 0, 33, 32, 32, 32))
                .contains("sent message 33 but was granted only 32 credits");
    }

    @Test
    void aMessageWithoutImmediateDataIsAViolation() {
        assertThat(PeerConduct.violation(false, 0, 1, 32, 32, 32)).contains("without immediate data");
    }

    @Test
    void undefinedImmediateBitsAreAViolation() {
        assertThat(PeerConduct.violation(true, 1 << 17, 1, 32, 32, 32)).contains("0x20000");
        assertThat(PeerConduct.violation(true, 0xDEADBEEF, 1, 32, 32, 32)).contains("0xdeadbeef");
    }

    @Test
    void aGrantBeyondThePeersWindowIsAViolation() {
        assertThat(PeerConduct.violation(true, 2, 1, 32, 31, 32)).contains("credits up to 33")
                .contains("window of only 32");
        assertThat(PeerConduct.violation(true, GRANT_ONLY | 0xFFFF, 1, 32, 0, 32)).contains("65535");
    }
}
