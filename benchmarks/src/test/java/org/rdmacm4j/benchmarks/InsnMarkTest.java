package org.rdmacm4j.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class InsnMarkTest {
    @Test
    void theMarkersExistExactlyOnX86AndRunAsNops() {
        // The build machines and the soft-RoCE guest are x86_64: there the markers must exist, or
        // insn-count.sh would find no windows. Elsewhere they must not: they are x86_64 code.
        assertThat(InsnMark.available()).isEqualTo(System.getProperty("os.arch").equals("amd64"));
        for (int i = 0; i < 1_000; i++) {   // a marker that were not a NOP + ret would crash the JVM here
            InsnMark.open();
            InsnMark.close();
        }
    }
}
