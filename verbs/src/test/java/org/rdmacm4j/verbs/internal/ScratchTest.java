package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The per-thread scratch that replaced a confined Arena per native call. */
class ScratchTest {

    @Test
    void slicesAreZeroedAlignedAndDisjointAndTheBlockIsReusedAfterClose() {
        long first;
        try (Scratch s = Scratch.open()) {
            MemorySegment a = s.allocate(3, 1);
            a.fill((byte) 0x7f);
            MemorySegment b = s.allocate(ValueLayout.JAVA_LONG);
            assertThat(b.address() % 8).isZero();
            assertThat(b.address()).isGreaterThanOrEqualTo(a.address() + 3);
            b.set(ValueLayout.JAVA_LONG, 0, -1L);
            first = a.address();
        }
        try (Scratch s = Scratch.open()) {
            MemorySegment again = s.allocate(16, 8);
            assertThat(again.address()).as("the same block, from its start").isEqualTo(first);
            for (long i = 0; i < 16; i++) {
                assertThat(again.get(ValueLayout.JAVA_BYTE, i)).as("byte %d zeroed", i).isZero();
            }
        }
    }

    @Test
    void aNestedOpenAndAnOversizedRequestGetTheirOwnMemory() {
        try (Scratch outer = Scratch.open()) {
            MemorySegment o = outer.allocate(64, 8);
            o.fill((byte) 1);
            try (Scratch inner = Scratch.open()) {
                assertThat(inner).isNotSameAs(outer);
                MemorySegment i = inner.allocate(64, 8);
                i.fill((byte) 2);
                MemorySegment big = inner.allocate(100_000, 8);
                assertThat(big.byteSize()).isEqualTo(100_000);
                assertThat(big.get(ValueLayout.JAVA_BYTE, 99_999)).isZero();
            }
            assertThat(o.get(ValueLayout.JAVA_BYTE, 63)).as("the outer slice untouched by the inner scratch").isEqualTo((byte) 1);
            MemorySegment big = outer.allocate(10_000, 8);
            assertThat(big.byteSize()).isEqualTo(10_000);
        }
    }

    @Test
    void useAfterCloseIsRefused() {
        Scratch s = Scratch.open();
        s.close();
        assertThatThrownBy(() -> s.allocate(8, 8)).isInstanceOf(IllegalStateException.class);
    }
}
