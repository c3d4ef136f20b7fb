package org.rdmacm4j.cm.core.internal.datagram;

import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.Membership;
import org.rdmacm4j.cm.core.MulticastException;
import org.rdmacm4j.cm.core.RejoinPolicy;
import org.rdmacm4j.cm.core.internal.id.CmFuture;
import org.rdmacm4j.cm.core.internal.id.Failures;
import org.rdmacm4j.cm.core.internal.id.IdEngine;
import org.rdmacm4j.cm.core.internal.loop.EventLoop;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Notice;

/**
 * The multicast memberships of an endpoint's UD id: join and leave, and what a MULTICAST_ERROR
 * does to a membership (its RejoinPolicy: re-join after a backoff, or give it up).
 *
 * <p>Threads: {@link #join} and {@link #leave} may be called from any thread and only queue work;
 * the rest runs on the dispatcher thread.
 */
final class Memberships {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");
    private final IdEngine engine;
    private final EventLoop loop;
    private final EndpointCallbacks callbacks;

    Memberships(IdEngine engine, EndpointCallbacks callbacks) {
        this.engine = engine;
        this.loop = engine.loop();
        this.callbacks = callbacks;
    }

    CompletableFuture<Membership> join(DatagramEndpointImpl ep, InetAddress group, JoinOptions options) {
        CmFuture<Membership> f = new CmFuture<>();
        String name = group.getHostAddress();
        loop.submit(f, () -> {
            UdDriver d = (UdDriver) ep.main;
            long req = engine.owe(d, f, x -> x);
            d.joining.put(name, options);
            engine.feed(d, new Input.Command.JoinMulticast(req, name));
        });
        return f;
    }

    CompletableFuture<Void> leave(DatagramEndpointImpl ep, MembershipImpl m) {
        CmFuture<Void> f = new CmFuture<>();
        String name = m.group().getHostAddress();
        loop.submit(f, () -> {
            UdDriver d = (UdDriver) ep.main;
            if (d.retired || d.memberships.get(name) != m || m.rejoinPending) {
                // Gone already, or left after a MULTICAST_ERROR and waiting for its re-join: nothing
                // is joined in the kernel, so dropping it also cancels the re-join (see rejoin()).
                drop(d, name);
                m.destroy();
                f.complete(null);
                return;
            }
            long req = engine.owe(d, f, x -> {
                drop(d, name);
                return null;
            });
            engine.feed(d, new Input.Command.LeaveMulticast(req, name));
        });
        return f;
    }

    /** Forgets the membership of {@code group} and destroys its address handle. */
    static void drop(UdDriver d, String group) {
        MembershipImpl m = d.memberships.remove(group);
        if (m != null) {
            m.targets.noLoopback.remove(m.group());
            m.destroy();
        }
    }

    /**
     * The machine left a joined group after MULTICAST_ERROR (or a re-join failed at once): the
     * membership's RejoinPolicy decides. A re-join runs after its backoff as a JoinMulticast without
     * a future (its MULTICAST_JOIN is MulticastRejoined); leave() or close() during the wait drops
     * the membership, which the re-join then finds gone.
     */
    void lost(DatagramEndpointImpl ep, UdDriver d, Notice.MulticastLost lost) {
        MembershipImpl mem = d.memberships.get(lost.group());
        if (mem == null) {
            LOG.log(Level.DEBUG, () -> d.name() + ": MULTICAST_ERROR for " + lost.group() + ", not a membership any more");
            return;
        }
        RejoinPolicy policy = mem.options().rejoin();
        boolean again = mem.rejoinAttempts < policy.maxAttempts() && !d.terminal();
        var error = new MulticastException(d.name() + ": multicast group " + lost.group()
                + " lost (" + Failures.status(lost.status()) + ")" + (again ? "; re-joining (attempt "
                + (mem.rejoinAttempts + 1) + " of " + policy.maxAttempts() + ")" : "; not re-joined"),
                mem.group(), lost.status(), again, d.historySnapshot());
        callbacks.call(ep, h -> h.onMembershipError(ep, mem, error));
        if (!again) {
            drop(d, lost.group());
            callbacks.call(ep, h -> h.onMembershipLost(ep, mem, error));
            return;
        }
        mem.rejoinAttempts++;
        mem.rejoinPending = true;
        loop.runAt(loop.clockNanos() + policy.backoff(mem.rejoinAttempts).toNanos(), () -> rejoin(d, mem));
    }

    private void rejoin(UdDriver d, MembershipImpl mem) {
        String group = mem.group().getHostAddress();
        if (d.retired || d.terminal() || d.memberships.get(group) != mem || !mem.rejoinPending) {
            return;   // left or closed during the backoff
        }
        mem.rejoinPending = false;
        engine.feed(d, new Input.Command.JoinMulticast(0, group));
    }

    /** The options a join of {@code group} on {@code d} runs with: the pending join's, or the membership's on a re-join. */
    static JoinOptions joinOptions(UdDriver d, String group) {
        JoinOptions o = d.joining.get(group);
        if (o == null) {
            MembershipImpl m = d.memberships.get(group);
            o = m != null ? m.options() : JoinOptions.defaults();
        }
        return o;
    }
}
