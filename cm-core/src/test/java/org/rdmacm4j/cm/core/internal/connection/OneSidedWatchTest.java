package org.rdmacm4j.cm.core.internal.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectionClosedException;
import org.rdmacm4j.cm.core.RemoteRegion;
import org.rdmacm4j.cm.core.internal.poll.CompletionWatch;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * A connection's first one-sided operation registers its CQ with the poller before anything is
 * posted (CqRegistration), and an operation whose CQ is no longer polled (the connection is being
 * torn down) fails as closed without being posted. No QP here: nothing in these paths posts.
 */
class OneSidedWatchTest {
    final AtomicInteger starts = new AtomicInteger();
    final RemoteRegion remote = new RemoteRegion(0x1000, 42, 64);

    @Test
    void anOperationWhoseCqIsNoLongerPolledFailsAsClosedWithoutBeingPosted() {
        CompletionWatch quiesced = () -> {
            starts.incrementAndGet();
            return false;
        };
        OneSided ops = new OneSided(null, null, null, 4, quiesced);   // a null QP: a post would throw

        var first = ops.atomic(WrOpcode.ATOMIC_FETCH_AND_ADD, remote, 0, 1, 0);
        var second = ops.atomic(WrOpcode.ATOMIC_CMP_AND_SWP, remote, 8, 1, 2);

        assertThat(starts.get()).as("each operation asks before it would post").isEqualTo(2);
        for (var f : java.util.List.of(first, second)) {
            assertThat(f).isCompletedExceptionally();
            assertThat(cause(f)).isInstanceOf(ConnectionClosedException.class);
        }
    }

    @Test
    void aClosingConnectionRefusesWithoutRegisteringItsCq() {
        OneSided ops = new OneSided(null, null, null, 4, () -> {
            starts.incrementAndGet();
            return true;
        });
        ops.closing();

        var f = ops.atomic(WrOpcode.ATOMIC_FETCH_AND_ADD, remote, 0, 1, 0);

        assertThat(cause(f)).isInstanceOf(ConnectionClosedException.class);
        assertThat(starts.get()).as("no registration for a connection being torn down").isZero();
    }

    private static Throwable cause(java.util.concurrent.CompletableFuture<?> f) {
        try {
            f.get(5, TimeUnit.SECONDS);
            throw new AssertionError("completed normally");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
