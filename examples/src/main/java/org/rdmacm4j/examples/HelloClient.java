package org.rdmacm4j.examples;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ConnectionRejectedException;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;

/** docs/api.md's client: says hello, prints the server's answer, closes. Usage: HelloClient ADDR PORT */
public final class HelloClient {
    public static void main(String[] args) throws Exception {
        var server = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        ConnectOptions options = ConnectOptions.builder()
                .privateData("hello".getBytes(StandardCharsets.UTF_8))
                .timeout(Duration.ofSeconds(5))
                .build();
        try (RdmaCm cm = RdmaCm.open()) {
            RdmaConnection c = cm.connect(server, options, ConnectionHandler.none()).get(10, TimeUnit.SECONDS);
            System.out.println("server said: " + new String(c.peerPrivateData(), StandardCharsets.UTF_8));
            c.close().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case ConnectionRejectedException r -> System.err.println("rejected (" + r.reason() + "): "
                        + new String(r.peerData(), StandardCharsets.UTF_8));
                case RdmaCmException r -> System.err.println("connect failed: " + r.getMessage());
                default -> throw e;
            }
            System.exit(1);
        }
    }
}
