package com.example.outside;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.rdmacm4j.cm.core.AcceptOptions;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;

/**
 * Connects to itself through rdmacm4j as a library: listens on SERVER_ADDR, connects from
 * CLIENT_ADDR with private data, checks the private data both ways, closes gracefully on both
 * sides. Prints one line per check; exits 0 only if every check passed.
 *
 * <pre>java --enable-native-access=org.rdmacm4j.verbs -p outside.jar:lib -m com.example.outside/com.example.outside.SelfConnect SERVER_ADDR CLIENT_ADDR [PORT]</pre>
 */
public final class SelfConnect {
    private static final long STEP_SECONDS = 30;

    private SelfConnect() { }

    /**
     * The program.
     *
     * @param args SERVER_ADDR CLIENT_ADDR [PORT]
     */
    public static void main(String[] args) {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: SelfConnect SERVER_ADDR CLIENT_ADDR [PORT]");
            System.exit(2);
        }
        // Nothing below may hang: past this, the run is a failure with a message, not a stuck job.
        Thread watchdog = Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(Duration.ofSeconds(4 * STEP_SECONDS));
                System.out.println("outside-project: FAILED: not done after " + 4 * STEP_SECONDS + " s");
                Runtime.getRuntime().halt(3);
            } catch (InterruptedException done) {
                // finished in time
            }
        });
        int status;
        try {
            run(args);
            System.out.println("outside-project: OK");
            status = 0;
        } catch (Throwable t) {
            System.out.println("outside-project: FAILED: " + t);
            t.printStackTrace(System.out);
            status = 1;
        }
        watchdog.interrupt();
        System.exit(status);
    }

    private static void run(String[] args) throws Exception {
        InetAddress serverAddr = InetAddress.ofLiteral(args[0]);
        InetAddress clientAddr = InetAddress.ofLiteral(args[1]);
        int port = args.length > 2 ? Integer.parseInt(args[2]) : 7474;

        // On the module path, with native access for org.rdmacm4j.verbs and for nothing else.
        Module self = SelfConnect.class.getModule();
        Module core = RdmaCm.class.getModule();
        Module verbs = ModuleLayer.boot().findModule("org.rdmacm4j.verbs")
                .orElseThrow(() -> new AssertionError("org.rdmacm4j.verbs is not a named module of the boot layer"));
        check(self.isNamed() && self.getName().equals("com.example.outside"), "this program runs as named module " + self.getName());
        check("org.rdmacm4j.cm.core".equals(core.getName()), "rdmacm4j-cm-core is named module " + core.getName());
        check(verbs.isNativeAccessEnabled(), "org.rdmacm4j.verbs has native access");
        check(!core.isNativeAccessEnabled() && !self.isNativeAccessEnabled(),
                "no other module has native access (cm-core: " + core.isNativeAccessEnabled()
                        + ", this one: " + self.isNativeAccessEnabled() + ")");

        String nonce = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        byte[] hello = ("outside " + nonce).getBytes(StandardCharsets.US_ASCII);
        byte[] welcome = ("welcome " + nonce).getBytes(StandardCharsets.US_ASCII);

        var serverSaw = new CompletableFuture<String>();
        var serverEstablished = new CountDownLatch(1);
        var serverClosed = new CountDownLatch(1);
        ConnectionHandler serverSide = new ConnectionHandler() {
            @Override public void onEstablished(RdmaConnection c) { serverEstablished.countDown(); }
            @Override public void onError(RdmaConnection c, RdmaCmException e) {
                System.out.println("outside-project: server side error: " + e);
            }
            @Override public void onClosed(RdmaConnection c) { serverClosed.countDown(); }
        };

        try (RdmaCm cm = RdmaCm.open()) {
            System.out.println("outside-project: opened " + cm);
            RdmaListener listener = cm.listen(new InetSocketAddress(serverAddr, port), ListenOptions.defaults(), request -> {
                String said = new String(request.privateData(), StandardCharsets.US_ASCII);
                serverSaw.complete(said);
                if (said.equals("outside " + nonce)) {
                    request.accept(serverSide, AcceptOptions.withPrivateData(welcome));
                } else {
                    request.reject("unexpected private data".getBytes(StandardCharsets.US_ASCII));
                }
            });
            check(true, "listening on " + listener.localAddress());

            ConnectOptions options = ConnectOptions.builder()
                    .source(new InetSocketAddress(clientAddr, 0))
                    .privateData(hello)
                    .timeout(Duration.ofSeconds(STEP_SECONDS))
                    .build();
            RdmaConnection client = cm.connect(new InetSocketAddress(serverAddr, port), options, ConnectionHandler.none())
                    .get(STEP_SECONDS, TimeUnit.SECONDS);
            check(true, "connected " + client.localAddress() + " -> " + client.peerAddress());
            check(client.localAddress().getAddress().equals(clientAddr),
                    "the connection's local address is " + clientAddr + " (was " + client.localAddress() + ")");
            String got = serverSaw.get(STEP_SECONDS, TimeUnit.SECONDS);
            check(got.equals("outside " + nonce), "the server got the client's private data '" + got + "'");
            String answer = new String(client.peerPrivateData(), StandardCharsets.US_ASCII);
            check(answer.equals("welcome " + nonce), "the client got the server's private data '" + answer + "'");
            check(serverEstablished.await(STEP_SECONDS, TimeUnit.SECONDS), "the server side is established");

            client.close().get(STEP_SECONDS, TimeUnit.SECONDS);
            check(client.isClosed(), "the client side closed gracefully");
            check(serverClosed.await(STEP_SECONDS, TimeUnit.SECONDS), "the server side closed");
            listener.close().get(STEP_SECONDS, TimeUnit.SECONDS);
            check(listener.isClosed(), "the listener closed");
        }
        check(true, "RdmaCm closed");
    }

    private static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
        System.out.println("outside-project: ok: " + what);
    }
}
