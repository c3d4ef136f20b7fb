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
                List.of(new Action.DestroyQp(), new Action.QuiesceCq(), new Action.DestroyCq()), false, "y"))
                .hasMessageContaining("before the poller acked");
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
