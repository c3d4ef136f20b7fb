package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.RdmaException;

/** errno mapping and sockaddr encoding, no device needed. */
class NativeSupportTest {

    @Test
    void errnoBecomesNameAndStrerror() {
        RdmaException e = Native.failure("rdma_resolve_addr", 110);
        assertThat(e.function()).isEqualTo("rdma_resolve_addr");
        assertThat(e.errno()).isEqualTo(110);
        assertThat(e.errnoName()).isEqualTo("ETIMEDOUT");
        assertThat(e.strerror()).isEqualTo("Connection timed out");
        assertThat(e).hasMessage("rdma_resolve_addr failed: ETIMEDOUT (110, Connection timed out)");
        assertThat(Native.failure("x", 19).errnoName()).isEqualTo("ENODEV");
        assertThat(Native.failure("x", 11).errnoName()).isEqualTo("EAGAIN");
        assertThat(Native.failure("x", 4242).errnoName()).isEqualTo("E?4242");
    }

    @Test
    void returnedErrorNumbersOfEitherSignAreFailures() {
        Native.checkReturned("ibv_modify_qp", 0);
        assertThatThrownBy(() -> Native.checkReturned("ibv_modify_qp", 22))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errnoName()).isEqualTo("EINVAL"));
        assertThatThrownBy(() -> Native.checkReturned("ibv_post_send", -12))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errnoName()).isEqualTo("ENOMEM"));
    }

    @Test
    void errnoIsCapturedFromARealFailingCall() {
        // fcntl on a closed descriptor: EBADF, read back through the capture segment.
        assertThatThrownBy(() -> Libc.setNonBlocking(987_654, true))
                .isInstanceOfSatisfying(RdmaException.class, e -> {
                    assertThat(e.function()).isEqualTo("fcntl(F_GETFL)");
                    assertThat(e.errnoName()).isEqualTo("EBADF");
                });
    }

    @Test
    void nonBlockingWithKnownFlagsIsOneSetflThatKeepsTheAccessMode() {
        try (var e = org.rdmacm4j.verbs.sys.EventFd.create()) {   // O_RDWR | O_NONBLOCK
            Libc.setNonBlockingKnownFlags(e.fd(), false);
            assertThat(Libc.isNonBlocking(e.fd())).isFalse();
            Libc.setNonBlockingKnownFlags(e.fd(), true);
            assertThat(Libc.isNonBlocking(e.fd())).isTrue();
            e.signal();
            assertThat(e.drain()).as("still readable and writable: F_SETFL leaves the access mode").isPositive();
        }
        assertThatThrownBy(() -> Libc.setNonBlockingKnownFlags(987_654, true))
                .isInstanceOfSatisfying(RdmaException.class, e -> assertThat(e.errnoName()).isEqualTo("EBADF"));
    }

    @Test
    void ipv4AndIpv6SockaddrsRoundTripWithPortsInNetworkOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress v4 = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 7471);
            MemorySegment s = Sockaddrs.write(arena, v4);
            assertThat(s.get(ValueLayout.JAVA_SHORT, 0)).isEqualTo(Sockaddrs.AF_INET);
            assertThat(s.get(ValueLayout.JAVA_BYTE, 2)).isEqualTo((byte) 0x1D);   // 7471 = 0x1D2F, big-endian
            assertThat(s.get(ValueLayout.JAVA_BYTE, 3)).isEqualTo((byte) 0x2F);
            assertThat(s.get(ValueLayout.JAVA_BYTE, 4)).isEqualTo((byte) 192);
            assertThat(Sockaddrs.read(s)).isEqualTo(v4);

            InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fe80::1"), 65535);
            MemorySegment s6 = Sockaddrs.write(arena, v6);
            assertThat(s6.get(ValueLayout.JAVA_SHORT, 0)).isEqualTo(Sockaddrs.AF_INET6);
            assertThat(Sockaddrs.read(s6)).isEqualTo(v6);

            MemorySegment empty = arena.allocate(128);
            assertThat(Sockaddrs.read(empty)).as("AF_UNSPEC").isNull();

            // in place, as a member of a larger struct (CmId's src/dst addresses)
            MemorySegment struct = arena.allocate(24 + 128 + 128, 8);
            MemorySegment.copy(s, 0, struct, 24, 128);
            MemorySegment.copy(s6, 0, struct, 24 + 128, 128);
            assertThat(Sockaddrs.read(struct, 24)).isEqualTo(v4);
            assertThat(Sockaddrs.read(struct, 24 + 128)).isEqualTo(v6);
            assertThat(Sockaddrs.read(struct, 0)).as("AF_UNSPEC").isNull();
        }
        assertThat(Sockaddrs.portFromNetworkOrder((short) 0x2F1D)).isEqualTo(7471);
    }

    @Test
    void ipv4ReadsKeepTheirAddressWhenTheyAlternate() throws Exception {
        // Sockaddrs keeps the last IPv4 address it decoded: alternating addresses (and 0.0.0.0,
        // whose bytes read 0 like the empty cache) must each still come back as themselves.
        String[] ips = {"192.0.2.1", "192.0.2.3", "192.0.2.1", "0.0.0.0", "0.0.0.0", "10.1.2.3", "192.0.2.3"};
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < ips.length; i++) {
                InetSocketAddress a = new InetSocketAddress(InetAddress.getByName(ips[i]), 1000 + i);
                assertThat(Sockaddrs.read(Sockaddrs.write(arena, a))).isEqualTo(a);
            }
        }
    }

    @Test
    void badAddressesAreRejectedBeforeAnyNativeCall() {
        assertThatThrownBy(() -> Sockaddrs.check(null, "destination")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("destination must not be null");
        assertThatThrownBy(() -> Sockaddrs.check(InetSocketAddress.createUnresolved("example.org", 1), "destination"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unresolved");
        assertThatThrownBy(() -> new InetSocketAddress(70000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readAndWriteLearnErrnoOnlyAfterAFailedFirstTry() {
        // The first try is linked without errno capture; a failure is made again with capture. A
        // closed descriptor fails both times, and the errno must be the second call's: EBADF (9).
        try (Arena arena = Arena.ofConfined()) {
            long buf = arena.allocate(8).address();
            assertThat(SysLib.read(-1, buf, 8)).isEqualTo(-9);
            assertThat(SysLib.write(-1, buf, 8)).isEqualTo(-9);
            int fd = SysLib.eventfd(0, SysLib.EFD_NONBLOCK | SysLib.EFD_CLOEXEC);
            try {
                assertThat(SysLib.read(fd, buf, 8)).as("an unsignalled eventfd: EAGAIN").isEqualTo(-Libc.EAGAIN);
                MemorySegment.ofAddress(buf).reinterpret(8).set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 5L);
                assertThat(SysLib.write(fd, buf, 8)).isEqualTo(8);
                assertThat(SysLib.read(fd, buf, 8)).isEqualTo(8);
                assertThat(MemorySegment.ofAddress(buf).reinterpret(8).get(ValueLayout.JAVA_LONG_UNALIGNED, 0)).isEqualTo(5L);
            } finally {
                assertThat(SysLib.close(fd)).isZero();
            }
        }
    }
}
