package org.rdmacm4j.examples;

import com.google.common.net.InetAddresses;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

    private final String groupName, bind;
    private final boolean sender;
    private final JoinOptions join;
    private final int connections, count, size, seconds;

    /** The command line's settings; a bad one exits 2 with the usage. */
    private Mckey(Cli cli) {
        groupName = cli.get("-m", null);
        bind = cli.get("-b", null);
        sender = cli.has("-s");
        cli.require(groupName != null, "-m is required");
        // A group is an address, never a name: parsed by Guava's InetAddresses, which calls no resolver.
        cli.require(InetAddresses.isInetAddress(groupName), "-m " + groupName + " is not an IP address");
        cli.require(sender || !cli.has("-o"), "-o needs -s: a send-only member receives nothing");
        join = JoinOptions.defaults().withSendOnly(cli.has("-o")).withNoLoopback(cli.has("-l"));
        connections = cli.integer("-c", 1, 1, 100_000);
        count = cli.integer("-C", 10, 0, 1 << 20);
        size = cli.integer("-S", 100, 0, 1 << 16);
        seconds = cli.integer("-w", 60, 1, 86_400);
    }

    public static void main(String[] args) throws Exception {
        Mckey mckey = new Mckey(Cli.parse("mckey", USAGE, args, "-m -b -c -C -S -w", "-s -o -l"));
        CmatoseRun.runAndExit("mckey", mckey.seconds, mckey::run);
    }

    private void run(RdmaCm cm) throws Exception {
        System.out.println("mckey: starting " + (sender ? "client" : "server"));
        InetAddress group = InetAddresses.forString(groupName);
        InetAddress local = SourceAddress.of(bind, new InetSocketAddress(group, 9));
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
