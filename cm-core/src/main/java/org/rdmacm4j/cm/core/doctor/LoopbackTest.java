package org.rdmacm4j.cm.core.doctor;

import org.rdmacm4j.cm.core.doctor.Finding.Status;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RdmaUnavailableException;

/**
 * The doctor's last check, through the public API only: open an RdmaCm, listen on an address of
 * this machine, connect to it, send one message and see it arrive, close both ends, all within a
 * deadline. Every failure is a result in words, never an exception.
 */
final class LoopbackTest {
    private LoopbackTest() { }

    static final String MESSAGE = "rdmacm4j doctor";

    record Result(boolean worked, Finding.Status status, String detail, String fix) { }

    static Result run(String address, String source, int seconds) {
        long start = System.nanoTime();
        Duration deadline = Duration.ofSeconds(seconds);
        RdmaCm cm;
        try {
            cm = RdmaCm.builder().closeTimeout(Duration.ofSeconds(Math.max(2, Math.min(10, seconds)))).build();
        } catch (RdmaUnavailableException e) {
            return new Result(false, Finding.Status.MISSING, "RdmaCm.open() threw RdmaUnavailableException ("
                    + e.missing() + "): " + e.problem(), "apply the fixes above, from the top");
        } catch (RuntimeException e) {
            return new Result(false, Finding.Status.FAILED, "RdmaCm.open() failed: " + oneLine(e),
                    "apply the fixes above, from the top");
        }
        try (cm) {
            if (address == null) {
                return new Result(false, Finding.Status.MISSING, "RdmaCm.open() worked, but there is no IPv4 address of"
                        + " a RoCE GID to connect to", "give this machine's RoCE interface an IPv4 address (see"
                        + " \"RoCE IPv4 GIDs\"), or name one: doctor -a ADDRESS");
            }
            return connect(cm, address, source, deadline, start);
        } catch (RuntimeException e) {
            return new Result(false, Finding.Status.FAILED, "the loopback test or closing its RdmaCm failed: " + oneLine(e),
                    "report it to the rdmacm4j project with this line");
        }
    }

    private static Result connect(RdmaCm cm, String address, String source, Duration deadline, long start) {
        String where = address + (source != null ? " from " + source : "");
        CompletableFuture<String> received = new CompletableFuture<>();
        CompletableFuture<RdmaConnection> accepted = new CompletableFuture<>();
        ConnectionHandler server = new ConnectionHandler() {
            @Override
            public void onMessage(RdmaConnection c, MemorySegment message) {
                received.complete(new String(message.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                        StandardCharsets.UTF_8));
            }
        };
        RdmaListener listener;
        String step = "listen on " + address;
        try {
            InetAddress a = InetAddress.getByName(address);   // a literal: no DNS
            listener = cm.listen(new InetSocketAddress(a, 0), ListenOptions.defaults(),
                    request -> request.accept(server).whenComplete((c, e) -> {
                        if (e != null) {
                            accepted.completeExceptionally(e);
                        } else {
                            accepted.complete(c);
                        }
                    }));
        } catch (RuntimeException | java.io.IOException e) {   // RdmaCmException: cannot bind or listen there
            return new Result(false, Finding.Status.FAILED, "could not " + step + ": " + oneLine(e),
                    "the address must be an IPv4 address of an RDMA interface of this machine (a RoCE GID above);"
                            + " name one with doctor -a ADDRESS");
        }
        RdmaConnection client = null;
        try {
            int port = listener.localAddress().getPort();
            step = "connect to " + address + ":" + port + (source != null ? " from " + source : "");
            ConnectOptions.Builder options = ConnectOptions.builder().timeout(deadline);
            if (source != null) {
                options.source(new InetSocketAddress(InetAddress.getByName(source), 0));
            }
            long t0 = System.nanoTime();
            client = cm.connect(new InetSocketAddress(InetAddress.getByName(address), port), options.build(),
                    ConnectionHandler.none()).get(remaining(deadline, start), TimeUnit.NANOSECONDS);
            double connectMs = (System.nanoTime() - t0) / 1e6;
            accepted.get(remaining(deadline, start), TimeUnit.NANOSECONDS);
            step = "send one message and see it arrive";
            client.send(MESSAGE.getBytes(StandardCharsets.UTF_8)).get(remaining(deadline, start), TimeUnit.NANOSECONDS);
            String got = received.get(remaining(deadline, start), TimeUnit.NANOSECONDS);
            if (!got.equals(MESSAGE)) {
                return new Result(false, Finding.Status.FAILED, "the message arrived changed: \"" + got + "\"",
                        "report it to the rdmacm4j project with this line");
            }
            step = "close the connection";
            long c0 = System.nanoTime();
            client.close().get(remaining(deadline, start), TimeUnit.NANOSECONDS);
            double closeMs = (System.nanoTime() - c0) / 1e6;
            step = "close the listener";
            listener.close().get(remaining(deadline, start), TimeUnit.NANOSECONDS);
            return new Result(true, Finding.Status.OK, String.format(Locale.ROOT,
                    "connected %s -> %s:%d in %.1f ms, one message delivered, closed gracefully in %.1f ms"
                            + " (within the %d s deadline)", source != null ? source : address, address, port,
                    connectMs, closeMs, deadline.toSeconds()), "");
        } catch (TimeoutException e) {
            return new Result(false, Finding.Status.FAILED, "could not " + step + " (" + where + ") within the "
                    + deadline.toSeconds() + " s deadline", "check the lines above; a slow machine may need more"
                    + " time: doctor -t SECONDS");
        } catch (ExecutionException e) {
            Throwable t = e.getCause() != null ? e.getCause() : e;
            return new Result(false, Finding.Status.FAILED, "could not " + step + ": " + oneLine(t),
                    "check the lines above (an ACTIVE port, the address on its interface); for a refused or"
                            + " unreachable connect, a firewall must let RoCE v2 through (UDP port 4791)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(false, Finding.Status.FAILED, "interrupted during: " + step, "run the doctor again");
        } catch (RuntimeException | java.io.IOException e) {
            return new Result(false, Finding.Status.FAILED, "could not " + step + ": " + oneLine(e),
                    "check the lines above");
        } finally {
            if (client != null && !client.isClosed()) {
                client.abort();
            }
            accepted.thenAccept(c -> c.abort());
            listener.close();
        }
    }

    private static long remaining(Duration deadline, long start) {
        return Math.max(1, deadline.toNanos() - (System.nanoTime() - start));
    }

    /** The first line of the message, with the exception's simple name. */
    static String oneLine(Throwable t) {
        String m = t.getMessage();
        String first = m == null ? "" : m.lines().findFirst().orElse("");
        return t.getClass().getSimpleName() + (first.isEmpty() ? "" : ": " + first);
    }
}
