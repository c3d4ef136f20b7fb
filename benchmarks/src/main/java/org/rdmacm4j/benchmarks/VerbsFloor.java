package org.rdmacm4j.benchmarks;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.ibv.CompletionChannel;
import org.rdmacm4j.verbs.ibv.CompletionQueue;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.ProtectionDomain;
import org.rdmacm4j.verbs.ibv.QpInitAttributes;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.QueuePair;
import org.rdmacm4j.verbs.sys.Epoll;

/**
 * {@link FfmFloor}'s loop written against rdmacm4j's own bindings, the {@code verbs} module (its
 * public API: {@link CmEventChannel}, {@link CmId}, {@link QueuePair}...), still with one thread and
 * no framework: the same librdmacm calls in the same order, the same arguments and output. Where
 * {@code rdma_create_qp} is given no CQs, librdmacm makes a completion channel and a CQ for each
 * queue; the verbs API takes them explicitly, so this loop makes the same four objects itself, and
 * one PD for the run where librdmacm keeps one per device. What it measures, beside FfmFloor and
 * rdmacm4j in one guest boot: the bindings' own cost (copied events, checked wrappers, ownership)
 * apart from cm-core's (dispatcher, state machines, futures, threads).
 *
 * <p>{@code VerbsFloor latency|warm|storm ...} as {@code FfmFloor}. Single-threaded; 60 s without an
 * event exits 3.
 */
public final class VerbsFloor extends FloorLoop {
    private static final ConnParam PARAM = new ConnParam(new byte[0], 1, 1, 0, 7, 0, 0, 0);
    private static final Duration RESOLVE_TIMEOUT = Duration.ofMillis(2000);

    /** What C keeps in id->context, and the objects this loop made for the id's QP. */
    private static final class Conn {
        final boolean server;
        QueuePair qp;
        CompletionChannel sendChannel;
        CompletionChannel recvChannel;
        CompletionQueue sendCq;
        CompletionQueue recvCq;

        Conn(boolean server) {
            this.server = server;
        }
    }

    private final CmEventChannel channel = CmEventChannel.create();
    private final Epoll epoll = Epoll.create();
    private final Map<CmId, Conn> conns = new IdentityHashMap<>();
    private final InetSocketAddress server;
    private final InetSocketAddress client;
    private final CmId[] clients;
    private CmId listener;
    private ProtectionDomain pd;

    private VerbsFloor(InetSocketAddress server, InetSocketAddress client, int k, int stormN) {
        super(k);
        this.server = server;
        this.client = client;
        this.clients = new CmId[k + stormN];
    }

    public static void main(String[] args) throws Throwable {
        Args a = Args.parseOrExit("VerbsFloor", args);
        new VerbsFloor(new InetSocketAddress(InetAddress.getByName(a.server()), a.port()),
                new InetSocketAddress(InetAddress.getByName(a.client()), 0), a.k(), a.stormN()).run(a);
    }

    @Override
    void open() {
        channel.setNonBlocking(true);
        epoll.add(channel.fd(), 1);
        listener = channel.createId(PortSpace.TCP);
        listener.bind(server);
        listener.listen(4096);
        // librdmacm's rdma_create_qp(id, NULL, ...) takes the device's PD, made once: so here.
        DeviceContext ctx = listener.context();
        pd = ctx.allocatePd();
    }

    @Override
    void disconnect(int index) {
        clients[index].disconnect();
    }

    @Override
    void close() {
        pd.close();
        listener.close();
        epoll.close();
        channel.close();
    }

    @Override
    void startConnect(int index) {
        started();
        CmId id = channel.createId(PortSpace.TCP);
        conns.put(id, new Conn(false));
        clients[index] = id;
        id.resolveAddress(client, server, RESOLVE_TIMEOUT);
    }

    /** epoll_wait, then drain the channel (each event copied and acked by getEvent), as C's pump(). */
    @Override
    void pump() {
        if (epoll.await(60_000) == 0) {
            System.err.printf("VerbsFloor: no CM event for 60 s (established %d, disconnected %d)%n", established, disconnected);
            System.exit(3);
        }
        CmEvent e;
        while ((e = channel.getEvent()) != null) {
            CmId id = e.id();
            switch (e.type()) {
                case ADDR_RESOLVED -> id.resolveRoute(RESOLVE_TIMEOUT);
                case ROUTE_RESOLVED -> {
                    createQp(id, conns.get(id));
                    id.connect(PARAM);
                }
                case CONNECT_REQUEST -> {
                    Conn c = new Conn(true);
                    conns.put(id, c);
                    createQp(id, c);
                    id.accept(PARAM);
                }
                case ESTABLISHED -> {
                    if (!conns.get(id).server) {
                        clientEstablished();
                    }
                }
                case DISCONNECTED -> {
                    disconnected++;
                    destroy(id);
                }
                case TIMEWAIT_EXIT -> { }
                default -> {
                    System.err.printf("VerbsFloor: unexpected event %s (status %d)%n", e.type(), e.status());
                    System.exit(1);
                }
            }
        }
    }

    /** rdma_create_qp as librdmacm makes it without CQs: a channel and a CQ per queue, 1 WR and SGE each. */
    private void createQp(CmId id, Conn c) {
        DeviceContext ctx = pd.context();
        c.recvChannel = ctx.createCompletionChannel();
        c.recvCq = ctx.createCq(1, c.recvChannel, 0);
        c.sendChannel = ctx.createCompletionChannel();
        c.sendCq = ctx.createCq(1, c.sendChannel, 0);
        c.qp = id.createQp(pd, QpInitAttributes.of(QpType.RC, c.sendCq, c.recvCq, 1, 1, 1, 0));
    }

    /** The client disconnected first; the server side answers when it sees it; then all goes. */
    private void destroy(CmId id) {
        Conn c = conns.remove(id);
        if (c.server) {
            try {
                id.disconnect();
            } catch (RuntimeException alreadyDisconnected) {
                // as C's loop, which ignores rdma_disconnect's result here
            }
        }
        c.qp.close();
        c.sendCq.close();
        c.recvCq.close();
        c.sendChannel.close();
        c.recvChannel.close();
        id.close();
    }
}
