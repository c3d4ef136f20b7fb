package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.CmTuning;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Outcome;
import org.rdmacm4j.cm.statemachine.TimerKind;

/** The invariant checker must catch each kind of violation, or the property tests prove nothing. */
class CoreModelSelfTest {
    private static final Input.CmEvent EVENT = Input.CmEvent.of(7, CmEventType.DISCONNECTED, 0);

    @Test
    void missingAckIsCaught() {
        assertThatThrownBy(() -> new CoreModel("t").apply(EVENT, List.of(new Action.DestroyId()), false, "x"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("acked first");
    }

    @Test
    void doubleAckIsCaught() {
        assertThatThrownBy(() -> new CoreModel("t").apply(EVENT,
                List.of(new Action.AckCmEvent(7), new Action.AckCmEvent(7)), false, "x"))
                .isInstanceOf(AssertionError.class);
    }

    @Test
    void doubleCompletionIsCaught() {
        CoreModel m = new CoreModel("t");
        m.apply(new Input.Command.Close(1), List.of(new Action.CompleteFuture(1, new Outcome.Done())), false, "x");
        assertThatThrownBy(() -> m.apply(Input.CmEvent.of(8, CmEventType.ADDR_CHANGE, 0),
                List.of(new Action.AckCmEvent(8), new Action.CompleteFuture(1, new Outcome.Done())), false, "y"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("completed 2 times");
    }

    @Test
    void owedFutureAtTerminalIsCaught() {
        assertThatThrownBy(() -> new CoreModel("t").apply(new Input.Command.Close(1), List.of(new Action.DestroyId()),
                true, "x")).isInstanceOf(AssertionError.class).hasMessageContaining("still owed");
    }

    @Test
    void destroyOrderViolationsAreCaught() {
        CoreModel m = new CoreModel("t");
        m.apply(new Input.Command.Cancel(), List.of(new Action.CreateQp()), false, "x");
        assertThatThrownBy(() -> m.apply(new Input.Command.Cancel(), List.of(new Action.DestroyId()), false, "y"))
                .hasMessageContaining("before its QP");
        CoreModel m2 = new CoreModel("t");
        m2.apply(new Input.Command.Cancel(), List.of(new Action.CreateQp()), false, "x");
        assertThatThrownBy(() -> m2.apply(new Input.Command.Cancel(),
                List.of(new Action.QuiesceCq(), new Action.DestroyCq()), false, "y"))
                .hasMessageContaining("CQ destroyed before");
    }

    private static CoreModel withQp() {
        CoreModel m = new CoreModel("t");
        m.apply(new Input.Command.Cancel(), List.of(new Action.CreateQp()), false, "x");
        return m;
    }

    @Test
    void destroyQpBeforeDrainOrBeforeTheCqQuiesceIsCaught() {
        CoreModel undrained = withQp();
        undrained.apply(new Input.Command.Cancel(), List.of(new Action.QuiesceCq()), false, "y");
        undrained.apply(new Input.Quiesced(Input.Resource.CQ), List.of(), false, "z");
        assertThatThrownBy(() -> undrained.apply(new Input.Command.Cancel(), List.of(new Action.DestroyQp()), false, "w"))
                .hasMessageContaining("before it was drained");
        CoreModel unquiesced = withQp();
        unquiesced.apply(new Input.Command.Cancel(), List.of(new Action.DrainQp()), false, "y");
        unquiesced.apply(new Input.Quiesced(Input.Resource.QP), List.of(), false, "z");
        assertThatThrownBy(() -> unquiesced.apply(new Input.Command.Cancel(), List.of(new Action.DestroyQp()), false, "w"))
                .hasMessageContaining("before the poller stopped");
    }

    @Test
    void destroyQpWhileAttachedToAGroupIsCaught() {
        CoreModel m = withQp();
        m.apply(new Input.CallsSucceeded(), List.of(new Action.JoinMulticast("239.1.1.1")), false, "j");
        m.apply(new Input.Command.Cancel(), List.of(new Action.DrainQp(), new Action.QuiesceCq()), false, "y");
        m.apply(new Input.Quiesced(Input.Resource.QP), List.of(), false, "z");
        m.apply(new Input.Quiesced(Input.Resource.CQ), List.of(), false, "z");
        assertThatThrownBy(() -> m.apply(new Input.Command.Cancel(), List.of(new Action.DestroyQp()), false, "w"))
                .hasMessageContaining("attached to multicast groups");
    }

    @Test
    void anythingOnAnIdAfterItsDestroyIsCaught() {
        CoreModel m = new CoreModel("t");
        m.apply(new Input.Command.Cancel(), List.of(new Action.DestroyId()), false, "x");
        assertThatThrownBy(() -> m.apply(new Input.Command.Cancel(), List.of(new Action.DestroyId()), false, "y"))
                .hasMessageContaining("second DestroyId");
        assertThatThrownBy(() -> m.apply(new Input.Command.Cancel(), List.of(new Action.Disconnect()), false, "y"))
                .hasMessageContaining("after its DestroyId");
        assertThatThrownBy(() -> m.apply(new Input.Command.Cancel(), List.of(new Action.Reject(Bytes.empty())), false,
                "y")).hasMessageContaining("after its DestroyId");
        // A fresh id (a retry) may be used again.
        CoreModel retry = new CoreModel("t");
        retry.apply(new Input.Command.Cancel(), List.of(new Action.DestroyId()), false, "x");
        retry.apply(new Input.Command.Cancel(), List.of(new Action.CreateId(), new Action.ResolveAddr(1)), false, "y");
    }

    @Test
    void actionAfterCallAndAfterTerminalAreCaught() {
        assertThatThrownBy(() -> new CoreModel("t").apply(new Input.Command.Cancel(),
                List.of(new Action.Connect(Bytes.empty(), CmTuning.defaults()),
                        new Action.ArmTimer(TimerKind.DRAIN_DEADLINE, 1, 1)), false, "x"))
                .hasMessageContaining("only fallible calls");
        CoreModel m = new CoreModel("t");
        m.apply(new Input.Command.Cancel(), List.of(new Action.DestroyId()), true, "x");
        assertThatThrownBy(() -> m.apply(new Input.Command.Cancel(), List.of(new Action.Disconnect()), true, "y"))
                .hasMessageContaining("after the terminal");
    }

    @Test
    void timerMisuseIsCaught() {
        assertThatThrownBy(() -> new CoreModel("t").apply(new Input.Command.Cancel(),
                List.of(new Action.CancelTimer(TimerKind.DRAIN_DEADLINE, 3)), false, "x"))
                .hasMessageContaining("not armed");
    }
}
