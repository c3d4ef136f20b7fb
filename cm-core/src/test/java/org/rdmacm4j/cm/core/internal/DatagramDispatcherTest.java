package org.rdmacm4j.cm.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.rdmacm4j.cm.core.internal.Recorder.eventually;
import static org.rdmacm4j.cm.core.internal.Recorder.pause;

import com.google.common.net.InetAddresses;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.DatagramEndpoint;
import org.rdmacm4j.cm.core.DatagramHandler;
import org.rdmacm4j.cm.core.DatagramOptions;
import org.rdmacm4j.cm.core.DatagramSender;
import org.rdmacm4j.cm.core.JoinOptions;
import org.rdmacm4j.cm.core.Membership;
import org.rdmacm4j.cm.core.MulticastException;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RejoinPolicy;
import org.rdmacm4j.cm.core.internal.FakeCmPort.FakeId;
import org.rdmacm4j.cm.statemachine.CmEventType;
import org.rdmacm4j.cm.statemachine.EventParams;

/**
 * The dispatcher's UD paths with a fake port and a fake clock: send-only joins reach the port as
 * such, MULTICAST_ERROR reaches the handler typed and is re-joined by the membership's RejoinPolicy
 * after its backoff (or not), leave() during a backoff cancels the re-join, and ADDR_CHANGE reaches
 * the endpoint's handler.
 */
class DatagramDispatcherTest extends DispatcherOnFakeClock {
    static final InetSocketAddress LOCAL = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7174);
    static final String GROUP = "239.1.2.3";
    static final int ENETRESET = 102;

    final Events events = new Events();

    /** What the handler was told, in order, as text; the errors themselves kept aside. */
    static final class Events implements DatagramHandler {
        final LinkedBlockingQueue<String> seen = new LinkedBlockingQueue<>();
        final LinkedBlockingQueue<MulticastException> errors = new LinkedBlockingQueue<>();

        @Override
        public void onDatagram(DatagramEndpoint endpoint, DatagramSender from, MemorySegment data) {
            seen.add("datagram");
        }

        @Override
        public void onMembershipError(DatagramEndpoint endpoint, Membership membership, MulticastException error) {
            errors.add(error);
            seen.add("error " + membership.group().getHostAddress() + (error.rejoining() ? " rejoining" : " final"));
        }

        @Override
        public void onMembershipRejoined(DatagramEndpoint endpoint, Membership membership) {
            seen.add("rejoined " + membership.group().getHostAddress());
        }

        @Override
        public void onMembershipLost(DatagramEndpoint endpoint, Membership membership, MulticastException error) {
            seen.add("lost " + membership.group().getHostAddress());
        }

        @Override
        public void onAddressChanged(DatagramEndpoint endpoint) {
            seen.add("address changed");
        }

        @Override
        public void onClosed(DatagramEndpoint endpoint) {
            seen.add("closed");
        }

        String next() throws InterruptedException {
            String s = seen.poll(5, TimeUnit.SECONDS);
            assertThat(s).as("a handler callback within 5 s").isNotNull();
            return s;
        }
    }

    DatagramEndpoint open() {
        return dispatcher.openDatagram(LOCAL, DatagramOptions.defaults(), events);
    }

    /** The endpoint's UD id with the QP (the first is its SIDR listener). */
    FakeId mainId() {
        return port.ids().get(1);
    }

    void multicastError(int status) {
        port.cmEvent(mainId(), CmEventType.MULTICAST_ERROR, status, EventParams.Ud.forGroup(GROUP));
        port.wakeup();
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aSendOnlyJoinReachesThePortAsSendOnly() throws Exception {
        DatagramEndpoint ep = open();
        Membership full = get(ep.join(InetAddresses.forString("239.1.2.4")));
        Membership so = get(ep.join(InetAddresses.forString(GROUP), JoinOptions.defaults().withSendOnly(true)));
        assertThat(port.calls()).filteredOn(c -> c.name().equals("joinMulticast")).extracting(FakeCmPort.Call::arg)
                .containsExactly("239.1.2.4", GROUP + " send-only");
        assertThat(full.options().sendOnly()).isFalse();
        assertThat(so.options().sendOnly()).isTrue();
        get(ep.close());
        assertThat(so.isLeft()).isTrue();
    }

    @Test
    void aMulticastErrorIsRejoinedAfterTheBackoffUntilThePolicyIsUsedUp() throws Exception {
        DatagramEndpoint ep = open();
        RejoinPolicy twice = new RejoinPolicy(2, Duration.ofMillis(100), Duration.ofSeconds(1));
        Membership m = get(ep.join(InetAddresses.forString(GROUP), JoinOptions.defaults().withRejoin(twice)));

        multicastError(-ENETRESET);
        assertThat(events.next()).isEqualTo("error " + GROUP + " rejoining");
        MulticastException e = events.errors.take();
        assertThat(e.status()).isEqualTo(-ENETRESET);
        assertThat(e.group().getHostAddress()).isEqualTo(GROUP);
        assertThat(e.getMessage()).contains("ENETRESET", "attempt 1 of 2");
        port.awaitCall("leaveMulticast");
        advance(Duration.ofMillis(99));
        pause(60);
        assertThat(port.count("joinMulticast")).as("still in the backoff").isEqualTo(1);
        advance(Duration.ofMillis(1));
        port.awaitCall("joinMulticast", 2);
        assertThat(events.next()).isEqualTo("rejoined " + GROUP);
        assertThat(m.isLeft()).isFalse();

        // A successful re-join starts the count again: two more errors are re-joined, the third is not.
        port.autoJoin = false;
        multicastError(-ENETRESET);
        assertThat(events.next()).isEqualTo("error " + GROUP + " rejoining");
        advance(Duration.ofMillis(100));
        port.awaitCall("joinMulticast", 3);
        multicastError(-ENETRESET);
        assertThat(events.next()).isEqualTo("error " + GROUP + " rejoining");
        advance(Duration.ofMillis(199));
        pause(60);
        assertThat(port.count("joinMulticast")).as("the second backoff doubles").isEqualTo(3);
        advance(Duration.ofMillis(1));
        port.awaitCall("joinMulticast", 4);
        multicastError(-ENETRESET);
        assertThat(events.next()).isEqualTo("error " + GROUP + " final");
        assertThat(events.next()).isEqualTo("lost " + GROUP);
        assertThat(m.isLeft()).isTrue();
        advance(Duration.ofSeconds(5));
        pause(60);
        assertThat(port.count("joinMulticast")).isEqualTo(4);

        get(ep.close());
        assertThat(events.next()).isEqualTo("closed");
    }

    @Test
    void leaveDuringTheBackoffCancelsTheRejoin() throws Exception {
        DatagramEndpoint ep = open();
        Membership m = get(ep.join(InetAddresses.forString(GROUP)));
        multicastError(-ENETRESET);
        assertThat(events.next()).isEqualTo("error " + GROUP + " rejoining");
        port.awaitCall("leaveMulticast");
        get(m.leave());
        assertThat(m.isLeft()).isTrue();
        advance(Duration.ofSeconds(10));
        pause(60);
        assertThat(port.count("joinMulticast")).as("no re-join after leave()").isEqualTo(1);
        // The group can be joined afresh.
        Membership again = get(ep.join(InetAddresses.forString(GROUP)));
        assertThat(again).isNotSameAs(m);
        get(ep.close());
    }

    @Test
    void withoutRejoinsTheFirstErrorEndsTheMembership() throws Exception {
        DatagramEndpoint ep = open();
        Membership m = get(ep.join(InetAddresses.forString(GROUP), JoinOptions.defaults().withRejoin(RejoinPolicy.never())));
        multicastError(-ENETRESET);
        assertThat(events.next()).isEqualTo("error " + GROUP + " final");
        assertThat(events.next()).isEqualTo("lost " + GROUP);
        assertThat(m.isLeft()).isTrue();
        assertThat(port.count("joinMulticast")).isEqualTo(1);
        get(ep.close());
    }

    @Test
    void aJoinAnsweredWithMulticastErrorFailsTyped() throws Exception {
        DatagramEndpoint ep = open();
        port.autoJoin = false;
        CompletableFuture<Membership> f = ep.join(InetAddresses.forString(GROUP));
        port.awaitCall("joinMulticast");
        multicastError(0);   // what RoCE reports when no address vector can be built (cma_make_mc_event)
        try {
            get(f);
            throw new AssertionError("the join succeeded");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOfSatisfying(MulticastException.class, m -> {
                assertThat(m.status()).isZero();
                assertThat(m.rejoining()).isFalse();
                assertThat(m.group().getHostAddress()).isEqualTo(GROUP);
            });
        }
        assertThat(events.seen).as("a failed join is the future's, not the handler's").isEmpty();
        get(ep.close());
    }

    @Test
    void addressChangeReachesTheEndpointsHandler() throws Exception {
        DatagramEndpoint ep = open();
        port.cmEvent(mainId(), CmEventType.ADDR_CHANGE);
        port.wakeup();
        assertThat(events.next()).isEqualTo("address changed");
        assertThat(ep.isClosed()).isFalse();
        get(ep.close());
        assertThat(events.next()).isEqualTo("closed");
    }

    @Test
    void sendsOnAClosingEndpointFailTypedAndOffersSayNo() throws Exception {
        DatagramEndpoint ep = open();
        Membership m = get(ep.join(InetAddresses.forString(GROUP)));
        // The fake's path has no buffers and no queue: the bound is reached at once.
        Throwable t = ep.send(m, new byte[8]).handle((v, x) -> x).get(5, TimeUnit.SECONDS);
        assertThat(t).isInstanceOf(org.rdmacm4j.cm.core.DataPathException.class).hasMessageContaining("send queue full");
        assertThat(ep.offer(m, MemorySegment.ofArray(new byte[8]))).isFalse();
        get(ep.close());
        eventually("closed", ep::isClosed);
        assertThat(t).isInstanceOf(RdmaCmException.class);
    }
}
