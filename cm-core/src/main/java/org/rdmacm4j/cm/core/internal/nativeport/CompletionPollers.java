package org.rdmacm4j.cm.core.internal.nativeport;

import static org.rdmacm4j.cm.core.internal.nativeport.VerbsId.v;

import org.rdmacm4j.cm.core.internal.connection.DataPath;
import org.rdmacm4j.cm.core.internal.connection.OneSided;
import org.rdmacm4j.cm.core.internal.poll.CompletionPoller;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.CqRegistration;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.verbs.ibv.WorkCompletions;

/**
 * The completion pollers of the port: assigns each id's CQ to one of them in turn, with the sink its
 * completions go to (an RC id's router, a UD id's datagram channel), as a {@link CqRegistration}
 * that registers it only when work can first be posted; starts an id's keepalive on its poller,
 * quiesces an id's CQ (no poller touches it after), and stops them all.
 *
 * <p>Threads: the dispatcher's; the router runs on the id's poller thread.
 */
final class CompletionPollers {
    private final CompletionPoller[] pollers;
    private int nextPoller;

    /** Starts {@code pollerThreads} pollers, named after the port. */
    CompletionPollers(int pollerThreads, String name) {
        this.pollers = new CompletionPoller[pollerThreads];
        for (int i = 0; i < pollerThreads; i++) {
            pollers[i] = new CompletionPoller(name + "-poller-" + i);
        }
    }

    /**
     * The registration of the id's CQ (and channel) with the next poller, its completions going to
     * {@code sink}; nothing is registered until it is started ({@link CqRegistration}).
     */
    CqRegistration registration(VerbsId id, CompletionSink sink) {
        return new CqRegistration(pollers[nextPoller++ % pollers.length], id.channel, id.cq, sink);
    }

    /**
     * Routes each completion of the id's CQ: one-sided operations, the message channel, and (raw
     * connections) the application's own work to its handler.
     */
    static CompletionSink router(VerbsId id) {
        return new Router(id, id.dataPath);
    }

    /**
     * {@link #router}'s sink. A record, not a lambda: a lambda's call site would be linked at the
     * process's first connection, which the build's AOT training (no device) never reaches.
     */
    private record Router(VerbsId id, DataPath channel) implements CompletionSink {
        @Override
        public void onCompletion(WorkCompletions wc, int i) {
            long kind = wc.wrId(i) & OneSided.KIND_MASK;
            if (kind == OneSided.KIND) {
                // Read here, not captured: the router is made before the OneSided it routes to. Set
                // before the CQ is registered (the register command publishes it), cleared after the quiesce.
                OneSided ops = id.oneSided;
                if (ops != null) {
                    ops.onCompletion(wc, i);
                }
            } else if (kind == Keepalive.KIND) {
                Keepalive k = id.keepalive;
                if (k != null) {
                    k.onCompletion(wc, i);
                }
            } else if (channel != null) {
                channel.onCompletion(wc, i);
            } else if (id.rawSink != null) {
                id.rawSink.onCompletion(wc, i);
            }
        }
    }

    /** Starts the keepalive on the id's poller, registering the CQ first if nothing had (its probes are work). */
    boolean startKeepalive(NativeId nid, org.rdmacm4j.cm.core.KeepaliveOptions options,
                           Keepalive.Verdict verdict) {
        VerbsId id = v(nid);
        if (id.qp == null || id.registration == null || id.keepalive != null || !id.registration.start()) {
            return false;
        }
        Keepalive k = new Keepalive(options, Keepalive.zeroLengthWrite(id.qp), verdict);
        id.keepalive = k;   // before the command: the router hands the probe's completions to it
        return id.registration.startKeepalive(k);
    }

    /**
     * Runs {@code quiesced} once no poller touches the id's CQ: after its poller's quiesce, or at once
     * if the CQ was never registered (or there is none).
     */
    void quiesceCq(NativeId nid, Runnable quiesced) {
        VerbsId id = v(nid);
        if (id.registration == null) {
            quiesced.run();
        } else {
            id.registration.quiesce(quiesced);
        }
    }

    void stop() {
        for (CompletionPoller p : pollers) {
            p.stop();
        }
    }
}
