package org.rdmacm4j.verbs.cm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.internal.CostMeter;
import org.rdmacm4j.verbs.internal.Decode;
import org.rdmacm4j.verbs.internal.Layouts;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Scratch;
import org.rdmacm4j.verbs.internal.Sockaddrs;

/**
 * A measurement, not a test (skipped unless {@code -Drdmacm4j.binding.calls=N}): the pure-Java parts of
 * the bindings a connection runs on the CM dispatcher, without a device, CPU ns and bytes allocated per
 * call on this thread: an event's rdma_conn_param decoded (as CmEventChannel.copy does), a ConnParam
 * written for rdma_connect/rdma_accept (as CmId.connect does, scratch included), a ConnParam made (as
 * cm-core's port does), an Ownership made under a parent and closed (every
 * native object; a connection makes several), an IPv4 sockaddr read (CmId.localAddress) and written (CmId.bind). Run it under
 * the launchers' JIT:
 * <pre>
 * ./mvnw -o -q -pl verbs surefire:test -Dtest=BindingCostHarness -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Drdmacm4j.binding.calls=500000 -DargLine=-XX:TieredStopAtLevel=1
 * </pre>
 */
@EnabledIfSystemProperty(named = "rdmacm4j.binding.calls", matches = "\\d+")
class BindingCostHarness {
    private static final Supplier<String> WHAT = () -> "BindingCostHarness object";
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Runnable NOTHING = () -> { };
    private final Ownership parent = new Ownership("BindingCostHarness parent");
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
        long eventAddress = event.address();
        CostMeter.compare("BindingCostHarness", Integer.getInteger("rdmacm4j.binding.calls"),
                Integer.getInteger("rdmacm4j.binding.rounds", 11),
                new CostMeter.Call("connParam decode", () -> Decode.connParam(Decode.ALL_MEMORY, eventAddress).qpNum()),
                new CostMeter.Call("connParam write", () -> {
                    try (Scratch s = Scratch.open()) {
                        return CmId.connParam(s, param);
                    }
                }),
                new CostMeter.Call("new ConnParam", () -> new ConnParam(data, 1, 1, 0, 7, 7, 0, 0).qpNum()),
                new CostMeter.Call("Ownership made and closed", () -> {
                    Ownership o = new Ownership(WHAT, parent);
                    o.close(NOTHING);
                    return o.hashCode();
                }),
                new CostMeter.Call("timeoutMs + QpType.of", () -> CmId.timeoutMs(TIMEOUT) + QpType.of(2).value()),
                new CostMeter.Call("sockaddr read", () -> Sockaddrs.read(sockaddr, 0).getPort()),
                new CostMeter.Call("sockaddr write", () -> {
                    try (Scratch s = Scratch.open()) {
                        return Sockaddrs.write(s, v4).address();
                    }
                }));
    }
}
