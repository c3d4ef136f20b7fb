package org.rdmacm4j.it.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.rdmacm4j.it.core.CmFixtures.await;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.ConnectOptions;
import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.ListenOptions;
import org.rdmacm4j.cm.core.QpCapabilities;
import org.rdmacm4j.cm.core.RdmaCm;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.core.RdmaListener;
import org.rdmacm4j.cm.core.RegisteredRegion;
import org.rdmacm4j.cm.core.RemoteRegion;
import org.rdmacm4j.it.support.SoftRoceTest;

/**
 * RDMA WRITE, READ and atomics against a region the server advertised in a message, over real rxe;
 * bounds checked before anything is posted.
 */
@SoftRoceTest
class OneSidedIT {
    private static final int SIZE = 8192;

    @Test
    void writeReadAndAtomicsAgainstAnAdvertisedRegion() throws Exception {
        try (RdmaCm cm = RdmaCm.open(); Arena arena = Arena.ofShared()) {
            MemorySegment serverMemory = arena.allocate(SIZE, 4096);
            MemorySegment clientMemory = arena.allocate(SIZE, 4096);
            var advertised = new CompletableFuture<RemoteRegion>();
            var serverRegion = new CompletableFuture<RegisteredRegion>();
            ConnectionHandler client = new ConnectionHandler() {
                @Override
                public void onMessage(RdmaConnection c, MemorySegment message) {
                    advertised.complete(RemoteRegion.fromBytes(message.toArray(ValueLayout.JAVA_BYTE)));
                }
            };
            RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> r.accept(
                    ConnectionHandler.none()).thenAccept(server -> {
                        RegisteredRegion region = server.register(serverMemory);
                        serverRegion.complete(region);
                        server.send(region.toRemote().toBytes());
                    }));
            RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.defaults(), client));
            RemoteRegion remote = await(advertised);
            assertThat(remote.length()).isEqualTo(SIZE);
            RegisteredRegion local = c.register(clientMemory);

            // WRITE: the client's pattern lands in the server's memory.
            for (int i = 0; i < SIZE; i++) {
                clientMemory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
            }
            await(c.write(local, 0, remote, 0, SIZE));
            assertThat(serverMemory.mismatch(clientMemory)).as("server memory after the write").isEqualTo(-1);

            // READ: the server's new pattern lands in the client's memory (at an offset).
            for (int i = 0; i < SIZE; i++) {
                serverMemory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            }
            await(c.read(local, 4096, remote, 1024, 2048));
            assertThat(clientMemory.asSlice(4096, 2048).mismatch(serverMemory.asSlice(1024, 2048))).isEqualTo(-1);

            // Atomics on the word at offset 64.
            serverMemory.set(ValueLayout.JAVA_LONG, 64, 5L);
            assertThat(await(c.compareAndSwap(remote, 64, 5L, 9L))).isEqualTo(5L);
            assertThat(await(c.compareAndSwap(remote, 64, 5L, 100L))).as("a failed compare").isEqualTo(9L);
            assertThat(await(c.fetchAndAdd(remote, 64, 10L))).isEqualTo(9L);
            assertThat(serverMemory.get(ValueLayout.JAVA_LONG, 64)).isEqualTo(19L);

            // Bounds and alignment are refused before anything is posted.
            assertThatThrownBy(() -> c.write(local, 0, remote, SIZE - 8, 16))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside the remote region");
            assertThatThrownBy(() -> c.read(local, SIZE - 8, remote, 0, 16))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside the local region");
            assertThatThrownBy(() -> c.fetchAndAdd(remote, 60, 1L))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aligned");
            assertThatThrownBy(() -> c.register(MemorySegment.ofArray(new byte[64])))
                    .isInstanceOf(IllegalArgumentException.class);

            // Many operations at once: more than the 16 in flight wait and complete in turn.
            fetchAndAddsAtOnce(c, remote, serverMemory, 128, 100, "default depth");
            local.close();
            assertThatThrownBy(() -> c.write(local, 0, remote, 0, 8)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not an open region");

            await(c.close());
            await(l.close());
            await(serverRegion).close();   // already deregistered with its connection: a no-op
        }
    }

    /**
     * A connection asked for 64 (and one for 1) one-sided operations in flight: 300 fetch-and-adds
     * started at once all complete with distinct old values, so every result slot of the deeper
     * window (past the default 16) carried its own operation's word.
     */
    @Test
    void theOneSidedDepthFollowsTheQpCapabilities() throws Exception {
        for (int depth : new int[] {64, 1}) {
            try (RdmaCm cm = RdmaCm.open(); Arena arena = Arena.ofShared()) {
                MemorySegment serverMemory = arena.allocate(SIZE, 4096);
                var advertised = new CompletableFuture<RemoteRegion>();
                RdmaListener l = cm.listen(CmFixtures.server(0), ListenOptions.defaults(), r -> r.accept(
                        ConnectionHandler.none()).thenAccept(server ->
                                advertised.complete(server.register(serverMemory).toRemote())));
                RdmaConnection c = await(cm.connect(CmFixtures.target(l), ConnectOptions.builder()
                        .qp(QpCapabilities.defaults().withOneSidedDepth(depth)).build(), ConnectionHandler.none()));
                RemoteRegion remote = await(advertised);
                fetchAndAddsAtOnce(c, remote, serverMemory, 256, 300, "depth " + depth);
                await(c.close());
                await(l.close());
            }
        }
    }

    /**
     * Starts {@code n} fetch-and-adds of 1 on the word at {@code offset} at once, then checks that
     * they saw the distinct old values 0 .. n-1 (no result slot carried another operation's word)
     * and that the word ended at n. The word is zeroed first.
     */
    private static void fetchAndAddsAtOnce(RdmaConnection c, RemoteRegion remote, MemorySegment serverMemory,
                                           long offset, int n, String what) throws Exception {
        serverMemory.set(ValueLayout.JAVA_LONG, offset, 0L);
        var all = new java.util.ArrayList<CompletableFuture<Long>>();
        for (int i = 0; i < n; i++) {
            all.add(c.fetchAndAdd(remote, offset, 1L));
        }
        var olds = new java.util.TreeSet<Long>();
        for (CompletableFuture<Long> f : all) {
            olds.add(await(f));
        }
        assertThat(olds).as("%s: every fetch-and-add saw a distinct old value", what).hasSize(n).first().isEqualTo(0L);
        assertThat(olds.last()).as(what).isEqualTo(n - 1L);
        assertThat(serverMemory.get(ValueLayout.JAVA_LONG, offset)).as(what).isEqualTo((long) n);
    }
}
