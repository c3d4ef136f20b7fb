package org.rdmacm4j.cm.core.internal.id;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.datagram.Datagrams;
import org.rdmacm4j.cm.core.internal.listener.Listeners;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Notice;

/** {@link IdEngine#overridesFutureSettled}: the engine calls a role's futureSettled only if it has one. */
class RoleHooksTest {

    /** A role with only what every role must have: futureSettled is IdRole's empty default. */
    private static class PlainRole implements IdRole {
        @Override
        public boolean runNative(IdDriver d, Action.NativeCall call) {
            return false;
        }

        @Override
        public void notice(IdDriver d, Notice n) { }

        @Override
        public void retired(IdDriver d) { }
    }

    private static class HearingRole extends PlainRole {
        @Override
        public void futureSettled(IdDriver d) { }
    }

    private static final class SubclassOfHearingRole extends HearingRole { }

    @Test
    void aRoleWithTheDefaultFutureSettledIsNotCalled() {
        assertThat(IdEngine.overridesFutureSettled(PlainRole.class)).isFalse();
    }

    @Test
    void aRoleThatOverridesFutureSettledOrInheritsAnOverrideIsCalled() {
        assertThat(IdEngine.overridesFutureSettled(HearingRole.class)).isTrue();
        assertThat(IdEngine.overridesFutureSettled(SubclassOfHearingRole.class)).isTrue();
    }

    /** The datagram kinds close their SIDR ids once their future is settled; a listener has nothing to do then. */
    @Test
    void theDatagramRoleHearsSettledFuturesAndTheListenerRoleDoesNot() {
        assertThat(IdEngine.overridesFutureSettled(Datagrams.class)).isTrue();
        assertThat(IdEngine.overridesFutureSettled(Listeners.class)).isFalse();
    }
}
