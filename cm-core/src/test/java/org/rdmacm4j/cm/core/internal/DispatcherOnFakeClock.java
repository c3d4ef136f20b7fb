package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.testing.FakeTicker;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.rdmacm4j.cm.statemachine.Transport;

/**
 * The fixture of the tests that drive the {@link Dispatcher} directly: a fresh dispatcher on a
 * fresh {@link FakeCmPort} and a fake clock that only {@link #advance} moves, started before each
 * test (after the subclass's constructor, which may still set the port up); after it the
 * dispatcher is shut down, which must close the port, with nothing done out of the machines'
 * contract (the port records violations).
 */
abstract class DispatcherOnFakeClock {
    /** The dispatcher's clock (Guava's FakeTicker: thread-safe, moved only by the test). */
    final FakeTicker ticker = new FakeTicker().advance(1_000_000_000L);
    final FakeCmPort port = new FakeCmPort();
    final ExecutorService callbacks = Executors.newCachedThreadPool();
    final Dispatcher dispatcher = new Dispatcher(port, callbacks, ticker::read,
            new Dispatcher.Config(32, Transport.ROCE, Duration.ofSeconds(5)));

    @BeforeEach
    void startTheDispatcher() {
        dispatcher.start();
    }

    @AfterEach
    void shutDownAndCheckThePort() {
        dispatcher.shutdown(false, Duration.ofSeconds(5));
        callbacks.shutdownNow();
        assertThat(port.isClosed()).isTrue();
        assertThat(port.violations()).isEmpty();
    }

    /** Lets the dispatcher finish what it was doing (arming timers on the old time), then moves the clock. */
    void advance(Duration d) {
        port.awaitIdle();
        ticker.advance(d);
        port.wakeup();
    }
}
