package org.rdmacm4j.cm.core.internal.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.internal.Recorder;

class OverriddenCallbacksTest {
    static class ClosesOnly implements ConnectionHandler {
        @Override
        public void onClosed(RdmaConnection c) { }
    }

    static final class ClosesAndFails extends ClosesOnly {
        @Override
        public void onError(RdmaConnection c, RdmaCmException e) { }
    }

    @Test
    void onlyTheOverriddenExecutorCallbacksCount() {
        assertThat(OverriddenCallbacks.of(ConnectionHandler.none())).isZero();
        assertThat(OverriddenCallbacks.of(new ConnectionHandler() {
            @Override
            public void onMessage(RdmaConnection c, MemorySegment m) { }
        })).as("onMessage runs on the poller, not the executor").isZero();
        assertThat(OverriddenCallbacks.of(new ClosesOnly())).isEqualTo(OverriddenCallbacks.CLOSED);
        assertThat(OverriddenCallbacks.of(new ClosesAndFails()))
                .isEqualTo(OverriddenCallbacks.CLOSED | OverriddenCallbacks.ERROR);
        assertThat(OverriddenCallbacks.of(new Recorder())).isEqualTo(OverriddenCallbacks.ALL);
        assertThat(OverriddenCallbacks.of(null)).isEqualTo(OverriddenCallbacks.ALL);
    }
}
