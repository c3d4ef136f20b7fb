package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;

/** The first connection through the framework: connect, accept, private data both ways, close. */
@SoftRoceTest
class ConnectAcceptIT {

    @Test
    void connectAcceptWithPrivateDataBothWaysThenClose() throws Exception {
        byte[] hello = "hello from the client".getBytes(StandardCharsets.UTF_8);
        byte[] welcome = "welcome from the server".getBytes(StandardCharsets.UTF_8);
        var idle = org.rdmacm4j.it.support.RdmaResources.current().byDevice().get(SoftRoce.DEVICE);
        try (RdmaCm cm = RdmaCm.open()) {
            var serverSide = new java.util.concurrent.CompletableFuture<RdmaConnection>();
            var requestData = new java.util.concurrent.CompletableFuture<byte[]>();
            RdmaListener listener = cm.listen(new InetSocketAddress(InetAddress.getByName(SoftRoce.SERVER_ADDR), 0),
                    ListenOptions.defaults(), request -> {
                        requestData.complete(request.privateData());
                        request.accept(ConnectionHandler.none(), AcceptOptions.withPrivateData(welcome))
                                .whenComplete((c, e) -> {
                                    if (e != null) {
                                        serverSide.completeExceptionally(e);
                                    } else {
                                        serverSide.complete(c);
                                    }
                                });
                    });
            InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(SoftRoce.SERVER_ADDR),
                    listener.localAddress().getPort());
            RdmaConnection client;
            try {
                client = cm.connect(target, ConnectOptions.builder().privateData(hello).build(),
                        ConnectionHandler.none()).get(20, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                Thread.getAllStackTraces().forEach((t, st) -> {
                    System.out.println("THREAD " + t.getName());
                    for (StackTraceElement el : st) System.out.println("    " + el);
                });
                throw e;
            }
            RdmaConnection server = serverSide.get(20, TimeUnit.SECONDS);

            assertThat(requestData.get()).isEqualTo(hello);
            assertThat(server.peerPrivateData()).isEqualTo(hello);
            assertThat(client.peerPrivateData()).isEqualTo(welcome);
            assertThat(client.state()).isEqualTo("ESTABLISHED");
            assertThat(server.state()).isEqualTo("ESTABLISHED");
            assertThat(client.peerAddress().getPort()).isEqualTo(target.getPort());
            var live = org.rdmacm4j.it.support.RdmaResources.current().byDevice().get(SoftRoce.DEVICE);
            assertThat(live.get("qp") - idle.get("qp")).as("one QP per connection").isEqualTo(2);
            assertThat(live.get("cq") - idle.get("cq")).as("one CQ per connection").isEqualTo(2);
            // Two PDs for two connections: rdmacm4j's one PD per device (shared by both QPs) and the one
            // librdmacm allocates per device while any id is bound to it (cma.c, ucma_get_device).
            assertThat(live.get("pd") - idle.get("pd")).as("one shared PD per device plus librdmacm's").isEqualTo(2);

            client.close().get(20, TimeUnit.SECONDS);
            server.closeFuture().get(20, TimeUnit.SECONDS);
            assertThat(client.isClosed()).isTrue();
            assertThat(server.isClosed()).isTrue();
            listener.close().get(20, TimeUnit.SECONDS);
            assertThat(cm.statistics().connectsSucceeded()).isEqualTo(1);
            assertThat(cm.statistics().accepts()).isEqualTo(1);
        }
    }
}
