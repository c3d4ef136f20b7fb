package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.EventParams;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.doc.Catalog;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * A measurement, not a test (skipped unless {@code -Drdmacm4j.steps.cycles=N}): the machines alone,
 * both ends of one warm RC connection as the core steps them over the fake port (active: connect,
 * resolve, establish, close; passive: open from the request, accept, establish, the peer's
 * disconnect), CPU ns and bytes allocated per cycle on this thread, without cm-core's noise. Run it
 * under the launchers' JIT:
 * <pre>
 * ./mvnw -o -q -pl cm-statemachine surefire:test -Dtest=StepCostHarness -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Drdmacm4j.steps.cycles=200000 -DargLine=-XX:TieredStopAtLevel=1
 * </pre>
 */
@EnabledIfSystemProperty(named = "rdmacm4j.steps.cycles", matches = "\\d+")
class StepCostHarness {
    private static final ConnectionPolicy POLICY = ConnectionPolicy.defaults(Transport.ROCE);
    private final ActiveConnectionMachine active = new ActiveConnectionMachine(POLICY);
    private final PassiveConnectionMachine passive = new PassiveConnectionMachine(POLICY);
    private final PrivateData connectData = PrivateData.encode(MessageKind.CONNECT_REQUEST, new byte[] {1});
    private final PrivateData acceptData = PrivateData.encode(MessageKind.ACCEPT, new byte[] {2});
    private final Input.CmEvent request = Catalog.request();
    private long seq;
    private int steps;

    @Test
    void stepCostPerConnection() throws ReflectiveOperationException {
        int cycles = Integer.getInteger("rdmacm4j.steps.cycles");
        int rounds = Integer.getInteger("rdmacm4j.steps.rounds", 5);
        // Reflectively: this module does not read java.management (DispatcherCpuHarness does the same).
        Object mx = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
        Method cpu = Class.forName("java.lang.management.ThreadMXBean").getMethod("getCurrentThreadCpuTime");
        Method allocated = Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes", long.class);
        long tid = Thread.currentThread().threadId();
        for (int i = 0; i < cycles; i++) {
            oneConnection();
        }
        double[] ns = new double[rounds];
        double[] bytes = new double[rounds];
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            steps = 0;
            long cpu0 = (long) cpu.invoke(mx);
            long b0 = (long) allocated.invoke(mx, tid);
            for (int i = 0; i < cycles; i++) {
                sink += oneConnection();
            }
            ns[r] = (double) ((long) cpu.invoke(mx) - cpu0) / cycles;
            bytes[r] = (double) ((long) allocated.invoke(mx, tid) - b0) / cycles;
            System.out.printf("StepCostHarness round %d: %.0f ns, %.0f bytes, %d steps per cycle%n", r + 1, ns[r],
                    bytes[r], steps / cycles);
        }
        Arrays.sort(ns);
        Arrays.sort(bytes);
        System.out.printf("StepCostHarness %d x %d cycles: ns/cycle min %.0f median %.0f; bytes/cycle median %.0f (%d)%n",
                rounds, cycles, ns[0], ns[rounds / 2], bytes[rounds / 2], sink);
    }

    /** One connection, both ends; returns the number of actions (so nothing is optimised away). */
    private int oneConnection() {
        int n = 0;
        ActiveState a = ActiveState.initial();
        Transition<ActiveState> ta;
        ta = active.step(a, new Input.Command.Connect(1, connectData));
        n += ta.actions().size();
        a = ta.next();
        a = stepA(a, new Input.CallsSucceeded());
        a = stepA(a, cm(CmEventType.ADDR_RESOLVED));
        a = stepA(a, new Input.CallsSucceeded());
        a = stepA(a, cm(CmEventType.ROUTE_RESOLVED));
        a = stepA(a, new Input.CallsSucceeded());

        Transition<PassiveState> tp = passive.open(request, Catalog.deviceLimits());
        n += tp.actions().size();
        PassiveState p = tp.next();
        p = stepP(p, new Input.Command.Accept(2, acceptData));
        p = stepP(p, new Input.CallsSucceeded());
        p = stepP(p, cm(CmEventType.ESTABLISHED));
        a = stepA(a, new Input.CmEvent(++seq, CmEventType.ESTABLISHED, 0, request.params()));

        a = stepA(a, new Input.Command.Close(3));
        p = stepP(p, cm(CmEventType.DISCONNECTED));
        a = stepA(a, cm(CmEventType.DISCONNECTED));
        p = stepP(p, new Input.Command.Close(4));
        a = stepA(a, cm(CmEventType.TIMEWAIT_EXIT));
        p = stepP(p, cm(CmEventType.TIMEWAIT_EXIT));
        a = stepA(a, new Input.Quiesced(Input.Resource.QP));
        p = stepP(p, new Input.Quiesced(Input.Resource.QP));
        a = stepA(a, new Input.Quiesced(Input.Resource.CQ));
        p = stepP(p, new Input.Quiesced(Input.Resource.CQ));
        assertThat(a.phase()).isEqualTo(ActivePhase.CLOSED);
        assertThat(p.phase()).isEqualTo(PassivePhase.CLOSED);
        return n;
    }

    private Input.CmEvent cm(CmEventType type) {
        return new Input.CmEvent(++seq, type, 0, new EventParams.None());
    }

    private ActiveState stepA(ActiveState s, Input in) {
        Transition<ActiveState> t = active.step(s, in);
        steps++;
        return t.next();
    }

    private PassiveState stepP(PassiveState s, Input in) {
        Transition<PassiveState> t = passive.step(s, in);
        steps++;
        return t.next();
    }
}
