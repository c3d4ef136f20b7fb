package org.rdmacm4j.it.twohost;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * The roles' command channel: role a asks role b to do something on its host (spawn or SIGKILL a
 * peer process, run a command, check its resource counts) and waits, bounded, for the answer.
 * One line out, one line back, one TCP connection per command, over the guests' eth0 (TCP
 * alongside RoCE on the same NIC; a command that takes b's link down answers once it is back).
 * The host side's file relay would do too, but polls at 0.5 s; this answers in milliseconds,
 * which keeps "request sent" a tight upper bound for the fault's start. (Not a test class.)
 */
final class TwoHostControl {
    /** Where role b answers commands. */
    static final int PORT = 7501;

    private TwoHostControl() { }

    /**
     * Serves commands on {@code port} on a daemon thread, one at a time, until the JVM exits;
     * {@code handler} gets a command line and returns the one-line answer (a thrown exception
     * becomes {@code "error: ..."}).
     */
    static void serve(String address, int port, UnaryOperator<String> handler) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(address, port));
        Thread.ofPlatform().daemon().name("control-" + port).start(() -> {
            while (true) {
                try (Socket s = server.accept()) {
                    s.setSoTimeout(30_000);   // a client that never sends its line does not block the channel
                    String command = new BufferedReader(new InputStreamReader(s.getInputStream(),
                            StandardCharsets.UTF_8)).readLine();
                    if (command == null) {
                        continue;
                    }
                    String answer;
                    try {
                        answer = handler.apply(command);
                    } catch (RuntimeException e) {
                        answer = "error: " + e;
                    }
                    Writer w = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8);
                    w.write(oneLine(answer) + "\n");
                    w.flush();
                } catch (IOException e) {
                    System.out.println("control: " + e);
                }
            }
        });
    }

    /** Sends {@code command} to role b and returns its answer, or throws once {@code within} passed. */
    static String ask(String command, Duration within) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(TwoHostFabric.B, PORT), (int) Math.min(within.toMillis(), 10_000));
            s.setSoTimeout((int) within.toMillis());
            Writer w = new OutputStreamWriter(s.getOutputStream(), StandardCharsets.UTF_8);
            w.write(oneLine(command) + "\n");
            w.flush();
            String answer = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (answer == null) {
                throw new IOException("role b closed the control connection without answering '" + command + "'");
            }
            return answer;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("role b did not answer '" + command + "' within " + within, e);
        }
    }

    /** Multi-line text as one line (the protocol's unit). */
    static String oneLine(String text) {
        return text.strip().replace("\r", "").replace("\n", " | ");
    }
}
