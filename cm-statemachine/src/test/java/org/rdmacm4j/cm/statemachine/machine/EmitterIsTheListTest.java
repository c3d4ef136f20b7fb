package org.rdmacm4j.cm.statemachine.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.ActionList;
import org.rdmacm4j.cm.statemachine.ConnectionPolicy;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Transition;
import org.rdmacm4j.cm.statemachine.Transport;
import org.rdmacm4j.cm.statemachine.privatedata.MessageKind;
import org.rdmacm4j.cm.statemachine.privatedata.PrivateData;

/**
 * A step's Emitter (a connection step's Draft) is the ActionList its Transition keeps: frozen by
 * it, immutable after, and the methods a driver calls per action are final in ActionList, so no
 * subclass can turn them into virtual calls under C1.
 */
class EmitterIsTheListTest {
    private static final PrivateData CONNECT = PrivateData.encode(MessageKind.CONNECT_REQUEST, new byte[] {1});

    @Test
    void aConnectionStepKeepsItsDraftAsItsFrozenActions() {
        Transition<ActiveState> t = new ActiveConnectionMachine(ConnectionPolicy.defaults(Transport.ROCE))
                .step(ActiveState.initial(), new Input.Command.Connect(1, CONNECT));
        assertThat(t.actionList()).isInstanceOf(ConnectionContext.Draft.class).isSameAs(t.actions());
        assertThat(t.actionList().frozen()).isTrue();
        assertThat(t.actionList()).isNotEmpty();
        ConnectionContext.Draft d = (ConnectionContext.Draft) t.actionList();
        assertThatThrownBy(() -> d.add(new Action.DestroyId())).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> d.notice(Singletons.ADDRESS_CHANGED_NOTICE))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void anEmitterIsAnOpenListUntilATransitionKeepsIt() {
        Emitter out = new Emitter();
        out.add(new Action.DestroyId());
        out.add(0, new Action.SettleRequest());
        assertThat(out).containsExactly(new Action.SettleRequest(), new Action.DestroyId());
        assertThat(out.list()).isSameAs(out);
        assertThat(out.frozen()).isFalse();
    }

    @Test
    void thePerActionMethodsAreFinal() throws NoSuchMethodException {
        for (var m : new java.lang.reflect.Method[] {ActionList.class.getMethod("get", int.class),
                ActionList.class.getMethod("size"), ActionList.class.getMethod("add", Action.class),
                ActionList.class.getMethod("add", int.class, Action.class), ActionList.class.getMethod("freeze"),
                ActionList.class.getMethod("frozen")}) {
            assertThat(Modifier.isFinal(m.getModifiers())).as(m.toString()).isTrue();
        }
        assertThat(ActionList.class.getPermittedSubclasses()).containsExactly(Emitter.class);
        assertThat(Emitter.class.getPermittedSubclasses()).containsExactly(ConnectionContext.Draft.class);
    }
}
