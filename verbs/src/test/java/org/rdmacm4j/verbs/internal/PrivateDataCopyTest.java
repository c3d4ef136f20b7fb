package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** Decode's word-wise private-data copies against MemorySegment.copy, for every length a u8 can give. */
class PrivateDataCopyTest {

    @Test
    void copyOutReadsExactlyTheBytesAtAnyLengthAndAlignment() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(512, 8);
            for (int i = 0; i < 512; i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            }
            for (int offset = 0; offset < 9; offset++) {
                for (int len = 0; len <= 255; len++) {
                    byte[] expected = new byte[len];
                    MemorySegment.copy(s, ValueLayout.JAVA_BYTE, offset, expected, 0, len);
                    byte[] actual = new byte[len];
                    Decode.copyOut(s, offset, actual);
                    assertThat(actual).as("offset %d length %d", offset, len).isEqualTo(expected);
                    assertThat(Decode.bytesAt(s.address() + offset, len)).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void copyInWritesExactlyTheBytesAndNothingAround() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(512, 8);
            for (int offset = 0; offset < 9; offset++) {
                for (int len = 0; len <= 255; len++) {
                    s.fill((byte) 0x5a);
                    byte[] in = new byte[len];
                    for (int i = 0; i < len; i++) {
                        in[i] = (byte) (i * 13 + len);
                    }
                    Decode.copyIn(in, s, offset);
                    for (int i = 0; i < 512; i++) {
                        byte expected = i >= offset && i < offset + len ? in[i - offset] : 0x5a;
                        assertThat(s.get(ValueLayout.JAVA_BYTE, i)).as("offset %d length %d byte %d", offset, len, i)
                                .isEqualTo(expected);
                    }
                }
            }
        }
    }

    @Test
    void theCopiesStayWithinTheSegmentsBounds() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(12, 8);
            assertThatThrownBy(() -> Decode.copyIn(new byte[13], s, 0)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> Decode.copyIn(new byte[5], s, 8)).isInstanceOf(IndexOutOfBoundsException.class);
            assertThatThrownBy(() -> Decode.copyOut(s, 4, new byte[9])).isInstanceOf(IndexOutOfBoundsException.class);
        }
        assertThat(Decode.bytesAt(0L, 5)).isEmpty();
        assertThat(Decode.bytesAt(64L, 0)).isEmpty();
    }
}
