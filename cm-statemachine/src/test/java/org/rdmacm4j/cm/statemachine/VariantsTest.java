package org.rdmacm4j.cm.statemachine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * The variant enums of {@link Input}, {@link Action} and {@link Notice} stand in for the sealed types
 * in the switches that run on every connection, so each must name its records exactly: one constant
 * per record, named after it, and each record answering its own constant. The records are found by
 * walking the sealed hierarchy, so a new record without a sample here, or without its constant, fails.
 */
class VariantsTest {

    private static final Bytes NO_BYTES = Bytes.empty();
    private static final Input.CmEvent EVENT = Input.CmEvent.of(1, CmEventType.CONNECT_REQUEST, 0);
    private static final Notice DISCONNECTED = new Notice.Disconnected(0);

    private static final List<Input> INPUTS = List.of(
            EVENT,
            new Input.AsyncEvent(2, AsyncEventType.QP_FATAL, 1),
            new Input.TimerExpired(TimerKind.CONNECT_DEADLINE, 3),
            new Input.Quiesced(Input.Resource.QP),
            new Input.CallFailed(new Action.CreateQp(), 12),
            new Input.RequestSettled(),
            new Input.CallsSucceeded(),
            new Input.Command.Connect(4, PrivateData.none(MessageKind.CONNECT_REQUEST)),
            new Input.Command.Accept(5, PrivateData.none(MessageKind.ACCEPT)),
            new Input.Command.Reject(6, PrivateData.none(MessageKind.REJECT)),
            new Input.Command.Disconnect(7),
            new Input.Command.Close(8),
            new Input.Command.Abort(9),
            new Input.Command.Cancel(),
            new Input.Command.JoinMulticast(10, "239.1.1.1"),
            new Input.Command.LeaveMulticast(11, "239.1.1.1"));

    private static final List<Action> ACTIONS = List.of(
            new Action.AckCmEvent(1),
            new Action.AckAsyncEvent(2),
            new Action.CreateId(),
            new Action.ResolveAddr(1000),
            new Action.ResolveRoute(1000),
            new Action.CreateQp(),
            new Action.Connect(NO_BYTES, CmTuning.defaults()),
            new Action.Accept(NO_BYTES, CmTuning.defaults()),
            new Action.JoinMulticast("239.1.1.1"),
            new Action.Relisten(),
            new Action.Reject(NO_BYTES),
            new Action.Notify(),
            new Action.Disconnect(),
            new Action.DrainQp(),
            new Action.DestroyQp(),
            new Action.QuiesceCq(),
            new Action.DestroyCq(),
            new Action.DestroyCompChannel(),
            new Action.DestroyId(),
            new Action.LeakId("a test"),
            new Action.LeaveMulticast("239.1.1.1"),
            new Action.OfferRequest(EVENT),
            new Action.RefuseRequest(EVENT, NO_BYTES),
            new Action.SettleRequest(),
            new Action.ArmTimer(TimerKind.CONNECT_DEADLINE, 1, 1_000),
            new Action.CancelTimer(TimerKind.CONNECT_DEADLINE, 1),
            new Action.CompleteFuture(1, new Outcome.Done()),
            new Action.FailFuture(1, new Failure.Closed()),
            new Action.CallHandler(DISCONNECTED),
            new Action.LogUnexpected("IDLE", "CM ESTABLISHED", "a test"));

    private static final List<Notice> NOTICES = List.of(
            new Notice.Established(new Outcome.Connected(PrivateData.Received.nothing(), new EventParams.None())),
            DISCONNECTED,
            new Notice.Error(new Failure.Closed()),
            new Notice.AddressChanged(),
            new Notice.RequestExpired(new Failure.Expired("a test")),
            new Notice.DeviceRemoved(),
            new Notice.MulticastRejoined("239.1.1.1"),
            new Notice.MulticastLost("239.1.1.1", -110),
            new Notice.Async(AsyncEventType.QP_FATAL));

    @Test
    void everyInputAnswersTheConstantNamedAfterItsRecord() {
        check(Input.class, INPUTS, Input.Variant.values(), in -> in.variant());
    }

    @Test
    void everyActionAnswersTheConstantNamedAfterItsRecord() {
        check(Action.class, ACTIONS, Action.Variant.values(), a -> a.variant());
    }

    @Test
    void anActionsVariantSaysNativeCallExactlyWhenItsRecordIsOne() {
        assertThat(ACTIONS).extracting(a -> a.getClass().getSimpleName()).hasSize(Action.Variant.values().length);
        for (Action a : ACTIONS) {
            assertThat(a.variant().nativeCall()).as("%s.variant().nativeCall()", a.getClass().getSimpleName())
                    .isEqualTo(a instanceof Action.NativeCall);
        }
        assertThat(ACTIONS).filteredOn(a -> a.variant().nativeCall()).as("the native calls").hasSize(8);
    }

    @Test
    void everyNoticeAnswersTheConstantNamedAfterItsRecord() {
        check(Notice.class, NOTICES, Notice.Variant.values(), n -> n.variant());
    }

    private static <T> void check(Class<T> sealed, List<T> samples, Enum<?>[] constants,
                                  java.util.function.Function<T, Enum<?>> variant) {
        Set<Class<?>> records = records(sealed);
        assertThat(samples).extracting(Object::getClass).as("one sample per record of %s", sealed.getSimpleName())
                .containsExactlyInAnyOrderElementsOf(records);
        assertThat(Arrays.stream(constants).map(Enum::name).toList())
                .as("the constants of %s.Variant", sealed.getSimpleName())
                .containsExactlyInAnyOrderElementsOf(records.stream().map(c -> constantName(c)).toList());
        for (T sample : samples) {
            assertThat(variant.apply(sample).name()).as("%s.variant()", sample.getClass().getSimpleName())
                    .isEqualTo(constantName(sample.getClass()));
        }
    }

    /** The records under a sealed interface, through its sealed sub-interfaces. */
    private static Set<Class<?>> records(Class<?> sealed) {
        List<Class<?>> out = new ArrayList<>();
        for (Class<?> c : sealed.getPermittedSubclasses()) {
            if (c.isRecord()) {
                out.add(c);
            } else {
                assertThat(c.isSealed()).as("%s is a record or a sealed interface", c).isTrue();
                out.addAll(records(c));
            }
        }
        return out.stream().collect(Collectors.toUnmodifiableSet());
    }

    /** {@code CallsSucceeded} -> {@code CALLS_SUCCEEDED}. */
    private static String constantName(Class<?> record) {
        return record.getSimpleName().replaceAll("(?<!^)(?=[A-Z])", "_").toUpperCase(Locale.ROOT);
    }
}
