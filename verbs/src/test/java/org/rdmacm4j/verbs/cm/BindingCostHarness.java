package org.rdmacm4j.verbs.cm;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.rdmacm4j.verbs.internal.Decode;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Scratch;
import org.rdmacm4j.verbs.internal.Sockaddrs;

/**
 * A measurement, not a test (skipped unless {@code -Drdmacm4j.binding.calls=N}): the pure-Java parts of
 * the bindings a connection runs on the CM dispatcher, without a device, CPU ns and bytes allocated per
 * call on this thread: an event's rdma_conn_param decoded (as CmEventChannel.copy does), a ConnParam
 * written for rdma_connect/rdma_accept (as CmId.connect does, scratch included), a ConnParam made (as
 * cm-core's port does), an IPv4 sockaddr read (CmId.localAddress) and written (CmId.bind). Run it under
 * the launchers' JIT:
 * <pre>
 * ./mvnw -o -q -pl verbs surefire:test -Dtest=BindingCostHarness -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Drdmacm4j.binding.calls=2000000 -DargLine=-XX:TieredStopAtLevel=1
 * </pre>
 */
@EnabledIfSystemProperty(named = "rdmacm4j.binding.calls", matches = "\\d+")
class BindingCostHarness {
    private static final ThreadMXBean MX = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Arena arena = Arena.ofAuto();
    private final byte[] data = new byte[20];
    private final ConnParam param = new ConnParam(data, 1, 1, 0, 7, 7, 0, 0);
    private final InetSocketAddress v4;
    private final MemorySegment event;   // an rdma_conn_param as an event's param union holds it
    private final MemorySegment sockaddr;

    BindingCostHarness() throws Exception {
        v4 = new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, 0, 7}), 7471);
        MemorySegment pd = arena.allocate(20);
        event = arena.allocate(Layouts.RDMA_CONN_PARAM.size(), 8);
        try (Scratch s = Scratch.open()) {
            Decode.connParam(param, event, pd);
        }
        sockaddr = Sockaddrs.write(arena, v4);
    }

    @Test
    void costPerCall() {
        int calls = Integer.getInteger("rdmacm4j.binding.calls");
        long eventAddress = event.address();
        measure("connParam decode", calls, () -> Decode.connParam(Decode.ALL_MEMORY, eventAddress).qpNum());
        measure("connParam write", calls, () -> {
            try (Scratch s = Scratch.open()) {
                return CmId.connParam(s, param);
            }
        });
        measure("new ConnParam", calls, () -> new ConnParam(data, 1, 1, 0, 7, 7, 0, 0).qpNum());
        measure("sockaddr read", calls, () -> Sockaddrs.read(sockaddr, 0).getPort());
        measure("sockaddr write", calls, () -> {
            try (Scratch s = Scratch.open()) {
                return Sockaddrs.write(s, v4).address();
            }
        });
    }

    private static void measure(String what, int calls, LongSupplier call) {
        long sink = 0;
        for (int i = 0; i < calls; i++) {
            sink += call.getAsLong();
        }
        int rounds = 5;
        double[] ns = new double[rounds];
        double[] bytes = new double[rounds];
        long tid = Thread.currentThread().threadId();
        for (int r = 0; r < rounds; r++) {
            long cpu0 = MX.getCurrentThreadCpuTime();
            long b0 = MX.getThreadAllocatedBytes(tid);
            for (int i = 0; i < calls; i++) {
                sink += call.getAsLong();
            }
            ns[r] = (double) (MX.getCurrentThreadCpuTime() - cpu0) / calls;
            bytes[r] = (double) (MX.getThreadAllocatedBytes(tid) - b0) / calls;
        }
        Arrays.sort(ns);
        Arrays.sort(bytes);
        System.out.printf("BindingCostHarness %-17s ns/call min %.1f median %.1f; bytes/call median %.0f (%d)%n",
                what, ns[0], ns[rounds / 2], bytes[rounds / 2], sink & 1);
        assertThat(sink).isNotEqualTo(Long.MIN_VALUE);
    }
}
