package org.rdmacm4j.cm.core.internal.datagram;

import java.lang.System.Logger.Level;
import java.util.function.Consumer;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.internal.id.Stats;

/** How an endpoint's DatagramHandler is called: on the endpoint's executor, a throw never escapes. Any thread. */
final class EndpointCallbacks {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private final Stats stats;

    EndpointCallbacks(Stats stats) {
        this.stats = stats;
    }

    /** Calls the endpoint's handler on its serial executor; a throw is counted and logged. */
    void call(DatagramEndpointImpl ep, Consumer<DatagramHandler> call) {
        ep.main.callbacks.execute(() -> {
            try {
                call.accept(ep.handler);
            } catch (Throwable t) {
                failed(ep, t);
            }
        });
    }

    /** A DatagramHandler callback of {@code ep} threw: counted and logged, the dispatcher goes on. */
    void failed(DatagramEndpointImpl ep, Throwable t) {
        stats.callbackFailures.increment();
        LOG.log(Level.WARNING, "a DatagramHandler callback of " + ep + " threw; ignored", t);
    }
}
