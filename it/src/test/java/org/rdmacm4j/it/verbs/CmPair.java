package org.rdmacm4j.it.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.CmId;

/**
 * Test plumbing over the raw bindings: bounded waits for rdma_cm events (non-blocking channels,
 * poll with a deadline), and LIFO cleanup of everything a test opened.
 */
final class CmPair {
    static final Duration WAIT = Duration.ofSeconds(30);

    private CmPair() { }

    static InetSocketAddress server(int port) {
        return address(SoftRoce.SERVER_ADDR, port);
    }

    static InetSocketAddress client() {
        return address(SoftRoce.CLIENT_ADDR, 0);
    }

    static InetSocketAddress address(String host, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A non-blocking event channel. */
    static CmEventChannel channel() {
        CmEventChannel ch = CmEventChannel.create();
        ch.setNonBlocking(true);
        return ch;
    }

    /** The next event on {@code channel}, which must be {@code expected}; fails at the deadline. */
    static CmEvent expect(CmEventChannel channel, CmEventType expected) {
        CmEvent e = channel.getEvent(WAIT);
        assertThat(e).as("an rdma_cm event (" + expected + ") within " + WAIT).isNotNull();
        assertThat(e.type()).as("event " + e + (e.type() == CmEventType.REJECTED ? " reason: " + e.rejectMessage() : ""))
                .isEqualTo(expected);
        return e;
    }

    /** Resolves address and route for an active id from the client address to {@code server}. */
    static void resolve(CmEventChannel channel, CmId id, InetSocketAddress server) {
        id.resolveAddress(client(), server, Duration.ofSeconds(10));
        CmEvent a = expect(channel, CmEventType.ADDR_RESOLVED);
        assertThat(a.status()).isZero();
        id.resolveRoute(Duration.ofSeconds(10));
        CmEvent r = expect(channel, CmEventType.ROUTE_RESOLVED);
        assertThat(r.status()).isZero();
    }

    /** Every native object the bindings track is closed (Rdma.liveObjects() is empty). */
    static void assertNothingOpen() {
        assertThat(org.rdmacm4j.verbs.Rdma.liveObjects()).as("native objects still open").isEmpty();
    }

    /** Closes in reverse order of registration, keeping the first failure. */
    static final class Closer implements AutoCloseable {
        private final List<AutoCloseable> stack = new ArrayList<>();

        <T extends AutoCloseable> T add(T resource) {
            stack.add(resource);
            return resource;
        }

        @Override
        public void close() throws Exception {
            Exception first = null;
            for (int i = stack.size() - 1; i >= 0; i--) {
                try {
                    stack.get(i).close();
                } catch (Exception e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            stack.clear();
            if (first != null) {
                throw first;
            }
        }
    }
}
