package org.rdmacm4j.cm.core.internal.nativeport;

import static org.rdmacm4j.cm.core.internal.nativeport.VerbsId.v;

import org.rdmacm4j.cm.core.internal.connection.DataPath;
import org.rdmacm4j.cm.core.internal.connection.OneSided;
import org.rdmacm4j.cm.core.internal.poll.CompletionPoller;
import org.rdmacm4j.cm.core.internal.poll.CompletionSink;
import org.rdmacm4j.cm.core.internal.poll.Keepalive;
import org.rdmacm4j.cm.core.internal.port.NativeId;

/**
 * The completion pollers of the port: hands each id's CQ to one of them in turn, with the sink its
 * completions go to (an RC id's router, a UD id's datagram channel), starts an id's keepalive on
 * its poller, quiesces an id's CQ (no poller touches it after), and stops them all.
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

    /** Registers the id's channel and CQ with the next poller, its completions going to {@code sink}. */
    void register(VerbsId id, CompletionSink sink) {
        id.poller = pollers[nextPoller++ % pollers.length];
        id.pollerToken = id.poller.register(id.channel, id.cq, sink);
    }

    /**
     * Routes each completion of the id's CQ: one-sided operations, the message channel, and (raw
     * connections) the application's own work to its handler.
     */
    static CompletionSink router(VerbsId id) {
        OneSided ops = id.oneSided;
        DataPath channel = id.dataPath;
        return (wc, i) -> {
            long kind = wc.wrId(i) & OneSided.KIND_MASK;
            if (kind == OneSided.KIND) {
                ops.onCompletion(wc, i);
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
        };
    }

    boolean startKeepalive(NativeId nid, org.rdmacm4j.cm.core.KeepaliveOptions options,
                           Keepalive.Verdict verdict) {
        VerbsId id = v(nid);
        if (id.qp == null || id.poller == null || id.keepalive != null) {
            return false;
        }
        Keepalive k = new Keepalive(options, Keepalive.zeroLengthWrite(id.qp), verdict);
        id.keepalive = k;
        id.poller.startKeepalive(id.pollerToken, k);
        return true;
    }

    void quiesceCq(NativeId nid, Runnable quiesced) {
        VerbsId id = v(nid);
        if (id.poller == null) {
            quiesced.run();
        } else {
            CompletionPoller p = id.poller;
            id.poller = null;
            p.quiesce(id.pollerToken, quiesced);
        }
    }

    void stop() {
        for (CompletionPoller p : pollers) {
            p.stop();
        }
    }
}
