package org.rdmacm4j.cm.statemachine.privatedata;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Structure-aware generators of received private-data buffers, for the fuzz tests of the
 * framings in {@link PrivateData} (application frame {@code 0xA1,len,payload} and system reject
 * {@code 0xB1,code}): valid frames with zero or junk padding, frames whose magic/version, length
 * or code byte is mutated, truncations, extensions up to the 256 bytes of the kernel's buffer
 * ({@code RDMA_MAX_PRIVATE_DATA}, rdma_cma_abi.h; librdmacm's {@code uint8_t private_data_len}
 * caps what reaches us at 255), and plain random bytes.
 *
 * <p>Tries: the fuzz properties take jqwik's default ({@code jqwik.tries.default} in
 * src/test/resources/junit-platform.properties); a campaign sets it on the command line, e.g.
 * {@code ./mvnw -o -pl cm-statemachine test -Dtest='*FuzzTest' -Djqwik.tries.default=1000000}.
 */
public final class PrivateDataWire {
    /** The kernel's private-data buffer (RDMA_MAX_PRIVATE_DATA); nothing longer can arrive. */
    public static final int MAX_RECEIVED = 256;

    private PrivateDataWire() { }

    /** Any received private-data buffer, most of them near a valid one. */
    public static Arbitrary<byte[]> received() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, applicationFrame()),
                net.jqwik.api.Tuple.of(2, systemReject()),
                net.jqwik.api.Tuple.of(4, mutatedHeader()),
                net.jqwik.api.Tuple.of(2, applicationFrame().flatMap(PrivateDataWire::truncations)),
                net.jqwik.api.Tuple.of(1, systemReject().flatMap(PrivateDataWire::truncations)),
                net.jqwik.api.Tuple.of(2, randomBytes()));
    }

    /** A valid application frame (payload up to the largest usable size), padded. */
    public static Arbitrary<byte[]> applicationFrame() {
        return Combinators.combine(payload(MessageKind.ACCEPT.usableBytes()), padding())
                .as((p, pad) -> pad(PrivateData.encode(MessageKind.ACCEPT, p).wire().toArray(), pad));
    }

    /** A system reject with a known or unknown code, padded like a REJ (148 bytes) or not. */
    public static Arbitrary<byte[]> systemReject() {
        Arbitrary<Integer> code = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.integers().between(1, SystemReject.values().length)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(0, SystemReject.values().length + 1, 0x7F, 0x80, 0xFF)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 255)));
        return Combinators.combine(code, padding())
                .as((c, pad) -> pad(new byte[] {(byte) PrivateData.SYSTEM_REJECT_MAGIC, (byte) (int) c}, pad));
    }

    /**
     * A frame whose first byte is a near miss of a magic (another version, the other framing, the
     * channel offer's 0xD1, 0x00, 0xFF) and whose length byte is off by a little from the body it
     * heads, at a boundary, or anything.
     */
    public static Arbitrary<byte[]> mutatedHeader() {
        Arbitrary<Integer> magic = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(4, Arbitraries.just(PrivateData.MAGIC_VERSION)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0xA0, 0xAF)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0xB0, 0xBF)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(0xD1, 0x00, 0xFF, 0x1A, 0x01)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 255)));
        Arbitrary<Integer> delta = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(-2, 2)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(-255, 255)));
        Arbitrary<Integer> absolute = Arbitraries.of(0, 1, 2, 54, 55, 56, 146, 147, 148, 194, 195, 196, 253, 254, 255);
        Arbitrary<Boolean> relative = Arbitraries.of(true, true, true, false);
        return Combinators.combine(magic, payload(MAX_RECEIVED - 2), delta, absolute, relative)
                .as((m, body, d, abs, rel) -> {
                    int len = rel ? body.length + d : abs;
                    byte[] out = new byte[2 + body.length];
                    out[0] = (byte) (int) m;
                    out[1] = (byte) len;
                    System.arraycopy(body, 0, out, 2, body.length);
                    return out;
                });
    }

    /** Bytes of no structure at all, 0..256 long. */
    public static Arbitrary<byte[]> randomBytes() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(MAX_RECEIVED);
    }

    /** Every prefix of {@code b} (the truncations a short buffer or a short read makes). */
    public static Arbitrary<byte[]> truncations(byte[] b) {
        return Arbitraries.integers().between(0, b.length).map(n -> Arrays.copyOf(b, n));
    }

    static Arbitrary<byte[]> payload(int max) {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, Arbitraries.bytes().array(byte[].class).ofMaxSize(max)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, max).map(byte[]::new)));
    }

    /** Transport padding: nothing, zeros, or junk, never beyond {@link #MAX_RECEIVED} in total. */
    static Arbitrary<byte[]> padding() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(2, Arbitraries.just(new byte[0])),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, MAX_RECEIVED).map(byte[]::new)),
                net.jqwik.api.Tuple.of(1, Arbitraries.bytes().array(byte[].class).ofMaxSize(MAX_RECEIVED)));
    }

    static byte[] pad(byte[] wire, byte[] padding) {
        int n = Math.min(MAX_RECEIVED, wire.length + padding.length);
        byte[] out = Arrays.copyOf(wire, Math.max(n, wire.length));
        System.arraycopy(padding, 0, out, wire.length, out.length - wire.length);
        return out;
    }

    private static final Object THREADS;
    private static final java.lang.reflect.Method ALLOCATED;

    static {
        try {
            THREADS = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean")
                    .invoke(null);
            ALLOCATED = Class.forName("com.sun.management.ThreadMXBean")
                    .getMethod("getThreadAllocatedBytes", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Bytes the current thread allocated (com.sun.management.ThreadMXBean, reflectively: the
     * tests run inside the module, which does not read jdk.management). The call itself costs a
     * few dozen bytes (boxing, the argument array).
     */
    public static long allocatedBytes() {
        try {
            return (long) ALLOCATED.invoke(THREADS, Thread.currentThread().threadId());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("per-thread allocation counter unavailable", e);
        }
    }

    /**
     * Runs {@code parse} on an input of {@code inputBytes} and returns the bytes it allocated in
     * steady state: a first call may load classes or link a lambda (a one-time cost), so a call
     * above {@code bound} is measured once more and that second figure counts.
     */
    public static long steadyAllocation(Runnable parse, long bound) {
        long before = allocatedBytes();
        parse.run();
        long used = allocatedBytes() - before;
        if (used > bound) {
            before = allocatedBytes();
            parse.run();
            used = allocatedBytes() - before;
        }
        return used;
    }

    /** The line each fuzz test prints per parser: "fuzz <parser>: <n> inputs". */
    public static String report(String parser, AtomicLong n) {
        return String.format("fuzz %-55s %,12d inputs", parser + ":", n.get());
    }
}
