package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The background warm-up sets up and closes its connections over the in-memory port and reports
 * them, stands down when told to (the application connects) before any connection or between two,
 * and the Builder bounds its count before anything opens.
 */
class WarmUpTest {

    @Test
    void setsUpAndClosesItsConnectionsOnARdmaCmOfItsOwn() {
        new RdmaCm.WarmUp(4, () -> false).run();

        assertThat(RdmaCm.WarmUp.outcome()).matches("warmed up 4 connections in \\d+ ms");
    }

    @Test
    void runsNothingWhenTheApplicationConnectedBeforeItStarted() {
        new RdmaCm.WarmUp(4, () -> true).run();

        assertThat(RdmaCm.WarmUp.outcome())
                .matches("stood down after 0 of 4 connections \\(the application connects\\) in \\d+ ms");
    }

    @Test
    void standsDownBetweenTwoConnections() {
        var asked = new AtomicInteger();
        // asked before the first connection (at the start), then before each: true from the third question on
        new RdmaCm.WarmUp(4, () -> asked.incrementAndGet() > 3).run();

        assertThat(RdmaCm.WarmUp.outcome())
                .matches("stood down after 2 of 4 connections \\(the application connects\\) in \\d+ ms");
    }

    @Test
    void builderRejectsACountOutOfRangeBeforeOpening() {
        assertThatThrownBy(() -> RdmaCm.builder().warmUp(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("warmUp must be in [0, 1000], was -1");
        assertThatThrownBy(() -> RdmaCm.builder().warmUp(1_001))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 1001");
        assertThat(RdmaCm.builder().warmUp(0)).as("0 turns it off").isNotNull();
    }
}
