package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OwnershipTest {

    @Test
    void aParentWithLiveChildrenRefusesToCloseAndNamesThem() {
        Ownership pd = new Ownership("PD", (Ownership) null);
        Ownership mr = new Ownership("MR", pd);
        Ownership cq = new Ownership("CQ", (Ownership[]) null);
        Ownership qp = new Ownership("QP", pd, cq);
        assertThatThrownBy(pd::beginClose).isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot close PD: still open: MR, QP (close them first)");
        assertThat(pd.isClosed()).isFalse();
        assertThatThrownBy(cq::beginClose).hasMessageContaining("QP");
        assertThat(qp.beginClose()).isTrue();
        qp.closed();
        assertThat(cq.beginClose()).isTrue();
        assertThat(mr.beginClose()).isTrue();
        mr.closed();
        assertThat(pd.beginClose()).isTrue();
        assertThat(pd.beginClose()).as("idempotent").isFalse();
    }

    @Test
    void useAfterCloseIsAClearException() {
        Ownership o = new Ownership("CmId(TCP)");
        o.ensureOpen();
        assertThat(o.beginClose()).isTrue();
        o.closed();
        assertThatThrownBy(o::ensureOpen).isInstanceOf(IllegalStateException.class).hasMessage("CmId(TCP) is closed");
        assertThatThrownBy(() -> new Ownership("child", o)).isInstanceOf(IllegalStateException.class)
                .hasMessage("CmId(TCP) is closed");
    }

    @Test
    void aChildRefusedByAClosedParentLeavesNothingBehind() {
        Ownership pd = new Ownership("PD(refused-child test)");
        Ownership cq = new Ownership("CQ(refused-child test)");
        assertThat(cq.beginClose()).isTrue();
        cq.closed();
        // The PD adopts the QP before the closed CQ refuses it: the PD must forget it again.
        assertThatThrownBy(() -> new Ownership("QP(refused-child test)", pd, cq))
                .isInstanceOf(IllegalStateException.class).hasMessage("CQ(refused-child test) is closed");
        assertThat(pd.childCount()).isZero();
        assertThat(Ownership.live()).doesNotContain("QP(refused-child test)");
        assertThat(pd.beginClose()).isTrue();
        pd.closed();
    }

    @Test
    void aFailedDestroyReopens() {
        Ownership o = new Ownership("CQ");
        assertThat(o.beginClose()).isTrue();
        o.reopen();
        o.ensureOpen();
        assertThat(o.beginClose()).isTrue();
    }

    @Test
    void reparentMovesTheChild() {
        Ownership a = new Ownership("channel A");
        Ownership b = new Ownership("channel B");
        Ownership id = new Ownership("id", a);
        id.reparent(a, b);
        assertThat(a.childCount()).isZero();
        assertThat(b.childCount()).isOne();
        assertThat(a.beginClose()).isTrue();
        assertThatThrownBy(b::beginClose).hasMessageContaining("id");
    }

    @Test
    void liveObjectsAreListedUntilClosed() {
        Ownership o = new Ownership("QueuePair(live-list test)");
        assertThat(Ownership.live()).contains("QueuePair(live-list test)");
        assertThat(o.beginClose()).isTrue();
        o.closed();
        assertThat(Ownership.live()).doesNotContain("QueuePair(live-list test)");
    }

    @Test
    void closeRunsTheDestroyOnceAndIsIdempotent() {
        Ownership pd = new Ownership("PD(close test)");
        java.util.concurrent.atomic.AtomicInteger destroys = new java.util.concurrent.atomic.AtomicInteger();
        pd.close(destroys::incrementAndGet);
        pd.close(destroys::incrementAndGet);
        assertThat(destroys).hasValue(1);
        assertThat(pd.isClosed()).isTrue();
        assertThat(Ownership.live()).doesNotContain("PD(close test)");
        assertThatThrownBy(pd::ensureOpen).isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
    }

    @Test
    void closeWithLiveChildrenRefusesWithoutDestroying() {
        Ownership pd = new Ownership("PD(parent)");
        new Ownership("MR(child)", pd);
        java.util.concurrent.atomic.AtomicInteger destroys = new java.util.concurrent.atomic.AtomicInteger();
        assertThatThrownBy(() -> pd.close(destroys::incrementAndGet))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("MR(child)");
        assertThat(destroys).hasValue(0);
        pd.ensureOpen();
    }

    @Test
    void aDestroyThatFailsLeavesTheObjectOpenAndUsable() {
        Ownership cq = new Ownership("CQ(failing destroy)");
        RuntimeException busy = new IllegalStateException("EBUSY");
        assertThatThrownBy(() -> cq.close(() -> { throw busy; })).isSameAs(busy);
        cq.ensureOpen();
        assertThat(Ownership.live()).contains("CQ(failing destroy)");
        cq.close(() -> { });
        assertThat(cq.isClosed()).isTrue();
    }

    @Test
    void aDescriptionGivenAsASupplierIsBuiltOnFirstUseOnlyAndOnce() {
        java.util.concurrent.atomic.AtomicInteger built = new java.util.concurrent.atomic.AtomicInteger();
        Ownership pd = new Ownership("PD(lazy test)");
        Ownership cq = new Ownership("CQ(lazy test)");
        Ownership qp = new Ownership(() -> "QP(lazy test, " + built.incrementAndGet() + ")", pd, null, cq);
        assertThat(built).as("nothing built while nobody asks").hasValue(0);

        assertThatThrownBy(pd::beginClose).hasMessageContaining("QP(lazy test, 1)");
        assertThat(qp.toString()).isEqualTo("QP(lazy test, 1)");
        assertThat(Ownership.live()).contains("QP(lazy test, 1)");
        assertThat(built).as("built once").hasValue(1);

        qp.close(() -> { });
        assertThat(pd.childCount()).as("both parents forget it; the null one is skipped").isZero();
        assertThat(cq.childCount()).isZero();
        assertThatThrownBy(qp::ensureOpen).hasMessage("QP(lazy test, 1) is closed");
        assertThat(pd.beginClose()).isTrue();
        assertThat(cq.beginClose()).isTrue();
    }

    @Test
    void aRefusedCloseNamesOnlyTheChildrenStillOpenAndACountedChildLeavesOnClose() {
        Ownership pd = new Ownership("PD(named children)", (Ownership) null);
        Ownership a = new Ownership("QP(a)", pd);
        Ownership b = new Ownership("QP(b)", pd);
        assertThat(pd.childCount()).isEqualTo(2);
        assertThat(a.beginClose()).isTrue();
        a.closed();
        assertThat(pd.childCount()).isOne();
        assertThatThrownBy(pd::beginClose).hasMessage("cannot close PD(named children): still open: QP(b) (close them first)");
        assertThat(b.beginClose()).isTrue();
        b.closed();
        assertThat(pd.beginClose()).isTrue();
        pd.closed();
    }

    @Test
    void equalityIsIdentityAndHashesDiffer() {
        Ownership a = new Ownership("x");
        Ownership b = new Ownership("x");
        assertThat(a).isEqualTo(a).isNotEqualTo(b);
        assertThat(a.hashCode()).isNotEqualTo(b.hashCode());
        assertThat(a.beginClose() && b.beginClose()).isTrue();
        a.closed();
        b.closed();
    }

    @Test
    void adoptingAChildAndClosingTheParentNeverBothSucceed() throws Exception {
        // One word holds the closed bit and the child count: a child adopted concurrently with the
        // parent's close either makes the close refuse or is itself refused, never both succeed.
        for (int round = 0; round < 2_000; round++) {
            Ownership parent = new Ownership("PD(race " + round + ")");
            java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.atomic.AtomicReference<Ownership> child = new java.util.concurrent.atomic.AtomicReference<>();
            Thread adopter = Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    child.set(new Ownership("QP(race)", parent));
                } catch (IllegalStateException closedFirst) {
                    // the close won
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            go.countDown();
            boolean closed;
            try {
                closed = parent.beginClose();
            } catch (IllegalStateException childFirst) {
                closed = false;
            }
            adopter.join(10_000);
            assertThat(adopter.isAlive()).isFalse();
            if (closed) {
                assertThat(child.get()).as("round %d: closed, yet a child was adopted", round).isNull();
                assertThat(parent.childCount()).isZero();
            } else {
                assertThat(child.get()).as("round %d: refused, so a child must exist", round).isNotNull();
                assertThat(parent.childCount()).isOne();
                child.get().close(() -> { });
                assertThat(parent.childCount()).isZero();
                assertThat(parent.beginClose()).isTrue();
            }
            parent.closed();
        }
    }

    @Test
    void oneInTheSampleOfPerConnectionObjectsIsWatched() {
        // Consecutive calls, wherever the global sample counter stands: exactly one registration in
        // every WATCH_SAMPLE (the build runs without -Dorg.rdmacm4j.leakCheck=all).
        assertThat(System.getProperty("org.rdmacm4j.leakCheck")).isNull();
        int before = Ownership.watched();
        for (int i = 0; i < 3 * Ownership.WATCH_SAMPLE; i++) {
            Ownership o = new Ownership("CmId(sampled " + i + ")");
            o.watchSampled(new Object());
            o.close(() -> { });
        }
        assertThat(Ownership.watched() - before).isEqualTo(3);
        Ownership always = new Ownership("CmEventChannel(watched)");
        always.watch(new Object());
        assertThat(Ownership.watched() - before).as("watch() itself always registers").isEqualTo(4);
        always.close(() -> { });
    }
}
