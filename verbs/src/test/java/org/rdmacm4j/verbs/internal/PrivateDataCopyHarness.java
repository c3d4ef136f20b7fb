package org.rdmacm4j.verbs.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A measurement, not a test: private data out of and into memory by {@link Decode}'s copies against
 * the JDK's MemorySegment.copy and the word loop, interleaved, at the lengths the kernel hands over
 * (20 bytes: a typical application's; 56, 148, 196, 224: an IB CM REQ's, DREQ's, REP's and RTU's
 * private data area, which an event reports whole whatever the peer sent; correctness:
 * PrivateDataCopyTest). Not a {@code *Test}, so the build's test run leaves it out (a skipped test
 * would fail run-tests' count); run it by name, under the launchers' JIT:
 * <pre>
 * ./mvnw -o -q -pl verbs test-compile surefire:test -Dtest=PrivateDataCopyHarness -Drdmacm4j.copy.calls=500000 \
 *     [-Drdmacm4j.copy.lengths=20,56,196] -DargLine=-XX:TieredStopAtLevel=1
 * </pre>
 */
@EnabledIfSystemProperty(named = "rdmacm4j.copy.calls", matches = "\\d+")
class PrivateDataCopyHarness {

    @Test
    void costAgainstMemorySegmentCopy() {
        MemorySegment s = Arena.ofAuto().allocate(256, 8);
        long at = s.address();
        MemorySegment all = Decode.ALL_MEMORY;
        for (String length : System.getProperty("rdmacm4j.copy.lengths", "20,56,148,196,224").split(",")) {
            byte[] b = new byte[Integer.parseInt(length.strip())];
            CostMeter.compare("PrivateDataCopy " + b.length + " bytes", Integer.getInteger("rdmacm4j.copy.calls"), 11,
                    new CostMeter.Call("out: MemorySegment.copy", () -> {
                        MemorySegment.copy(all, ValueLayout.JAVA_BYTE, at, b, 0, b.length);
                        return b[3];
                    }),
                    new CostMeter.Call("out: words", () -> {
                        Decode.copyOutByWords(all, at, b);
                        return b[3];
                    }),
                    new CostMeter.Call("out: Decode.copyOut", () -> {
                        Decode.copyOut(all, at, b);
                        return b[3];
                    }),
                    new CostMeter.Call("in: MemorySegment.copy", () -> {
                        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
                        return b[3];
                    }),
                    new CostMeter.Call("in: words", () -> {
                        Decode.copyInByWords(b, s, 0);
                        return b[3];
                    }),
                    new CostMeter.Call("in: Decode.copyIn", () -> {
                        Decode.copyIn(b, s, 0);
                        return b[3];
                    }));
        }
    }
}
