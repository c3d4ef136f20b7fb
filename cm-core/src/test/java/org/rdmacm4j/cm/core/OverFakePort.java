package org.rdmacm4j.cm.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.rdmacm4j.cm.core.internal.FakeCmPort;

/**
 * The fixture of the public-API tests over the fake port: each test gets a fresh {@link RdmaCm} on
 * a fresh {@link FakeCmPort} (real clock), and after it the RdmaCm is closed, which must close the
 * port, with nothing done out of the machines' contract (the port records violations).
 */
abstract class OverFakePort {
    static final InetSocketAddress SERVER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7471);
    static final InetSocketAddress ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    final FakeCmPort port = new FakeCmPort();
    final RdmaCm cm = RdmaCm.builder().port(port).closeTimeout(Duration.ofSeconds(5)).build();

    /**
     * Runs each call that should be refused (a blocking call on a library thread) and records what it
     * threw, or an AssertionError "not refused" if it returned: the caller asserts on {@code into}.
     */
    static void recordRefusals(java.util.List<Throwable> into, Runnable... calls) {
        for (Runnable call : calls) {
            try {
                call.run();
                into.add(new AssertionError("not refused"));
            } catch (RuntimeException e) {
                into.add(e);
            }
        }
    }

    @AfterEach
    void closeAndCheckThePort() {
        cm.close();
        assertThat(port.isClosed()).isTrue();
        assertThat(port.violations()).isEmpty();
    }
}
