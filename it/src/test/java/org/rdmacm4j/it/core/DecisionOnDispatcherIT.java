package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.it.core.CmFixtures.await;
import static org.rdmacm4j.it.core.CmFixtures.failureOf;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * ListenOptions.withDecisionOnDispatcher over the real stack: the request handler runs on the
 * dispatcher thread and decides from the request's own private data, accepting (with a reply built
 * from the request, raw and with a message channel) or rejecting (with the application's bytes);
 * every decision reaches the client as it would from the callback executor.
 */
@SoftRoceTest
class DecisionOnDispatcherIT {
    private static final int CONNECTIONS = 20;

    @Test
    void requestsAreDecidedOnTheDispatcherFromTheirOwnPrivateData() throws Exception {
        List<String> threads = new CopyOnWriteArrayList<>();
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults().withDecisionOnDispatcher(true),
                    r -> {
                        threads.add(Thread.currentThread().getName());
                        byte[] asked = r.privateData();
                        if (asked[0] % 5 == 4) {   // every fifth: refused, with the request's bytes reversed
                            r.reject(new byte[] {asked[1], asked[0]});
                        } else {
                            byte[] reply = {(byte) (asked[0] + 100), asked[1]};
                            r.accept(ConnectionHandler.none(), asked[1] == 0 ? AcceptOptions.defaults().raw().privateData(reply)
                                    : AcceptOptions.withPrivateData(reply));
                        }
                    });
            int accepted = 0;
            int rejected = 0;
            for (int i = 0; i < CONNECTIONS; i++) {
                byte kind = (byte) (i % 2);   // 0: raw, 1: with the message channel
                ConnectOptions.Builder o = ConnectOptions.builder().privateData(new byte[] {(byte) i, kind});
                var f = cm.connect(CmFixtures.target(l), (kind == 0 ? o.raw() : o).build(), ConnectionHandler.none());
                if (i % 5 == 4) {
                    Throwable failure = failureOf(f);
                    assertThat(failure).as("reject %s", i).isInstanceOf(ConnectionRejectedException.class);
                    assertThat(((ConnectionRejectedException) failure).peerData()).as("reject %s", i).isEqualTo(new byte[] {kind, (byte) i});
                    rejected++;
                } else {
                    RdmaConnection c = await(f);
                    assertThat(c.peerPrivateData()).as("accept %s", i).isEqualTo(new byte[] {(byte) (i + 100), kind});
                    await(c.close());
                    accepted++;
                }
            }
            await(l.close());
            assertThat(accepted).isEqualTo(16);
            assertThat(rejected).isEqualTo(4);
            assertThat(cm.statistics().callbackFailures()).isZero();
        }
        assertThat(threads).hasSize(CONNECTIONS).allSatisfy(t -> assertThat(t).startsWith("rdmacm4j-dispatcher"));
    }
}
