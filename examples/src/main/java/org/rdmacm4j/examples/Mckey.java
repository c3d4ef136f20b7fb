package org.rdmacm4j.examples;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.Membership;
import org.rdmacm4j.cm.core.RdmaCm;

/**
 * The twin of rdma-core's mckey on {@link DatagramEndpoint}: each of -c endpoints joins the
 * multicast group, pauses 3 s as mckey does, then the sender (-s) sends C datagrams of S bytes to
 * the group and the receiver waits for C of them on every endpoint; then it leaves. Runs against
 * mckey in either role.
 */
public final class Mckey {
    private static final String USAGE = """
            usage: mckey -m multicast_address [-s] [-o] [-l] [-b bind_address] [-c connections] [-C message_count]
                         [-S message_size] [-w seconds]
              -s  sender (default: receiver)    -b  local address (default: the route to the group's)
              -o  join as a send-only full member (receives nothing)    -l  no loopback to local receivers
              -c  endpoints, each joining (default 1)    -C  datagrams (default 10)    -S  bytes (default 100)
              -w  receiver's deadline in s (default 60)
              mckey's -M (unmapped address) and -p (port space) are not offered by rdmacm4j's API.""";

    public static void main(String[] args) throws Exception {
        String group = null, bind = null;
        boolean sender = false;
        JoinOptions join = JoinOptions.defaults();
        int connections = 1, count = 10, size = 100, seconds = 60;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "-m" -> group = args[++i];
                    case "-s" -> sender = true;
                    case "-o" -> join = join.withSendOnly(true);
                    case "-l" -> join = join.withNoLoopback(true);
                    case "-b" -> bind = args[++i];
                    case "-c" -> connections = Integer.parseInt(args[++i]);
                    case "-C" -> count = Integer.parseInt(args[++i]);
                    case "-S" -> size = Integer.parseInt(args[++i]);
                    case "-w" -> seconds = Integer.parseInt(args[++i]);
                    case "-h", "--help" -> {
                        System.out.println(USAGE);
                        return;
                    }
                    default -> throw new IllegalArgumentException("unknown or unsupported argument " + args[i]);
                }
            }
            if (join.sendOnly() && !sender) {
                throw new IllegalArgumentException("-o needs -s: a send-only member receives nothing");
            }
            if (group == null || connections < 1 || count < 0 || size < 0) {
                throw new IllegalArgumentException(group == null ? "-m is required" : "-c must be at least 1");
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            System.err.println("mckey: bad arguments (" + e.getMessage() + ")\n" + USAGE);
            System.exit(2);
        }
        int status = 0;
        try (RdmaCm cm = RdmaCm.open()) {
            run(cm, InetAddress.getByName(group), bind, sender, join, connections, count, size, seconds);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable t = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String what = t instanceof TimeoutException ? "no progress within " + seconds + " s" : t.getMessage();
            System.out.println("mckey: FAILED: " + (what == null ? t : what.lines().findFirst().orElse("")));
            status = 1;
        }
        System.out.println("test complete");
        System.out.println("return status " + status);
        System.exit(status);
    }

    static void run(RdmaCm cm, InetAddress group, String bind, boolean sender, JoinOptions join, int connections,
                    int count, int size, int seconds) throws Exception {
        System.out.println("mckey: starting " + (sender ? "client" : "server"));
        InetAddress local;
        if (bind != null) {
            local = InetAddress.getByName(bind);
        } else {
            try (DatagramSocket route = new DatagramSocket()) {   // the source address the routing table picks
                route.connect(new InetSocketAddress(group, 9));
                local = route.getLocalAddress();
            }
        }
        List<DatagramEndpoint> endpoints = new ArrayList<>();
        List<Membership> members = new ArrayList<>();
        List<CountDownLatch> received = new ArrayList<>();
        AtomicInteger wrongSize = new AtomicInteger();
        System.out.println("mckey: joining");
        for (int i = 0; i < connections; i++) {
            CountDownLatch got = new CountDownLatch(count);
            received.add(got);
            DatagramHandler handler = (endpoint, from, data) -> {
                if (data.byteSize() != size) {
                    wrongSize.incrementAndGet();
                }
                got.countDown();
            };
            DatagramEndpoint ep = cm.openDatagram(new InetSocketAddress(local, 0), DatagramOptions.defaults(), handler);
            endpoints.add(ep);
            Membership m = ep.join(group, join).get(seconds, TimeUnit.SECONDS);
            members.add(m);
            System.out.printf("mckey: joined %s from %s (qpn 0x%x)%s; group qkey 0x%x%n", group.getHostAddress(),
                    local.getHostAddress(), ep.queuePairNumber(), join.sendOnly() ? " as a send-only member" : "", m.qkey());
        }
        Thread.sleep(3000);   // as mckey: give the fabric time to set the group up
        if (count > 0) {
            if (sender) {
                System.out.println("initiating data transfers");
                for (int i = 0; i < connections; i++) {
                    for (int m = 0; m < count; m++) {
                        endpoints.get(i).send(members.get(i), new byte[size]).get(seconds, TimeUnit.SECONDS);
                    }
                }
            } else {
                System.out.println("receiving data transfers");
                long t0 = System.nanoTime();
                for (CountDownLatch got : received) {
                    if (!got.await(seconds, TimeUnit.SECONDS)) {
                        throw new IllegalStateException(got.getCount() + " of " + count
                                + " datagrams did not arrive within " + seconds + " s");
                    }
                }
                if (wrongSize.get() > 0) {
                    throw new IllegalStateException(wrongSize.get() + " datagrams were not " + size + " bytes");
                }
                System.out.printf("mckey: %d x %d datagrams of %d bytes received in %.1f ms%n", connections, count,
                        size, (System.nanoTime() - t0) / 1e6);
            }
            System.out.println("data transfers complete");
        }
        for (int i = 0; i < connections; i++) {
            members.get(i).leave().get(seconds, TimeUnit.SECONDS);
            endpoints.get(i).close().get(seconds, TimeUnit.SECONDS);
        }
    }
}
