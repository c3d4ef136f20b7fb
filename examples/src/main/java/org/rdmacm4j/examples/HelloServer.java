package org.rdmacm4j.examples;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;

/** docs/api.md's server: accepts a client that says hello, rejects anyone else. Usage: HelloServer ADDR PORT */
public final class HelloServer {
    public static void main(String[] args) throws Exception {
        var address = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        var done = new CountDownLatch(1);
        ConnectionHandler handler = new ConnectionHandler() {
            @Override public void onEstablished(RdmaConnection c) {
                System.out.println("connected: " + c.peerAddress());
            }
            @Override public void onDisconnected(RdmaConnection c) {
                System.out.println("the client disconnected");
            }
            @Override public void onError(RdmaConnection c, RdmaCmException e) {
                System.out.println("connection failed: " + e.getMessage());
            }
            @Override public void onClosed(RdmaConnection c) {
                done.countDown();
            }
        };
        try (RdmaCm cm = RdmaCm.open()) {
            cm.listen(address, ListenOptions.defaults(), request -> {
                String said = new String(request.privateData(), StandardCharsets.UTF_8);
                if (said.equals("hello")) {
                    request.accept(handler, AcceptOptions.withPrivateData("welcome".getBytes(StandardCharsets.UTF_8)));
                } else {
                    request.reject("say hello".getBytes(StandardCharsets.UTF_8));
                }
            });
            System.out.println("listening on " + address);
            done.await();   // one connection, then exit; close() frees everything
        }
    }
}
