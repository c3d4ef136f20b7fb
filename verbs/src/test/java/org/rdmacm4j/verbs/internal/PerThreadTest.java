package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The one-entry cache in front of a ThreadLocal (the errno segment, the scratch block, epoll's cell). */
class PerThreadTest {

    @Test
    void aThreadGetsTheSameValueEveryTimeAndAnotherThreadItsOwn() throws Exception {
        AtomicInteger made = new AtomicInteger();
        PerThread<Object> p = new PerThread<>(() -> new Object[] {made.incrementAndGet()});
        Object mine = p.get();
        assertThat(p.get()).isSameAs(mine);
        AtomicReference<Object> theirs = new AtomicReference<>();
        AtomicReference<Object> theirsAgain = new AtomicReference<>();
        Thread t = new Thread(() -> {
            theirs.set(p.get());
            theirsAgain.set(p.get());
        });
        t.start();
        t.join();
        assertThat(theirs.get()).isNotSameAs(mine).isSameAs(theirsAgain.get());
        assertThat(p.get()).as("back on this thread after the other took the cache").isSameAs(mine);
        Thread v = Thread.ofVirtual().start(() -> theirs.set(p.get()));
        v.join();
        assertThat(theirs.get()).as("a virtual thread's own value").isNotSameAs(mine);
        assertThat(p.get()).isSameAs(mine);
        assertThat(made.get()).isEqualTo(3);
    }

    @Test
    void threadsRacingForTheCacheEachOnlyEverSeeTheirOwnValue() throws Exception {
        PerThread<Object> p = new PerThread<>(Object::new);
        int threads = 8;
        CountDownLatch go = new CountDownLatch(1);
        List<Throwable> failures = new ArrayList<>();
        var seen = ConcurrentHashMap.newKeySet();
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Runnable body = () -> {
                try {
                    go.await();
                    Object first = p.get();
                    seen.add(first);
                    for (int k = 0; k < 200_000; k++) {
                        if (p.get() != first) {
                            throw new AssertionError("another thread's value at round " + k);
                        }
                    }
                } catch (Throwable e) {
                    synchronized (failures) {
                        failures.add(e);
                    }
                }
            };
            all.add(i % 2 == 0 ? Thread.ofPlatform().start(body) : Thread.ofVirtual().start(body));
        }
        go.countDown();
        for (Thread t : all) {
            t.join();
        }
        assertThat(failures).isEmpty();
        assertThat(seen).hasSize(threads);
    }
}
