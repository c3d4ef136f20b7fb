package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The id table of a CM event channel, checked against a HashMap. */
class AddressTableTest {

    @Test
    void putGetReplaceRemove() {
        AddressTable<String> t = new AddressTable<>();
        assertThat(t.get(0x1000)).isNull();
        t.put(0x1000, "a");
        t.put(0x2000, "b");
        assertThat(t.get(0x1000)).isEqualTo("a");
        t.put(0x1000, "c");
        assertThat(t.get(0x1000)).isEqualTo("c");
        assertThat(t.size()).isEqualTo(2);
        assertThat(t.remove(0x1000)).isEqualTo("c");
        assertThat(t.remove(0x1000)).isNull();
        assertThat(t.get(0x1000)).isNull();
        assertThat(t.get(0x2000)).isEqualTo("b");
        assertThat(t.size()).isEqualTo(1);
        assertThatThrownBy(() -> t.put(0, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> t.put(8, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void agreesWithAHashMapOverRandomAddsAndRemoves() {
        for (long seed = 1; seed <= 20; seed++) {
            Random r = new Random(seed);
            AddressTable<Long> t = new AddressTable<>();
            Map<Long, Long> m = new HashMap<>();
            List<Long> keys = new ArrayList<>();
            // allocator-like addresses: a few heaps' worth of 16-byte-aligned chunks, many alike
            for (int i = 0; i < 3000; i++) {
                keys.add(0x5555_0000_0000L + 16L * r.nextInt(4096) + (r.nextInt(4) == 0 ? 0x7f00_0000_0000L : 0));
            }
            for (int step = 0; step < 20_000; step++) {
                long k = keys.get(r.nextInt(r.nextBoolean() ? 40 : keys.size()));
                switch (r.nextInt(3)) {
                    case 0 -> {
                        long v = r.nextLong();
                        t.put(k, v);
                        m.put(k, v);
                    }
                    case 1 -> assertThat(t.remove(k)).isEqualTo(m.remove(k));
                    default -> assertThat(t.get(k)).isEqualTo(m.get(k));
                }
                assertThat(t.size()).isEqualTo(m.size());
            }
            for (long k : keys) {
                assertThat(t.get(k)).as("seed %d key %x", seed, k).isEqualTo(m.get(k));
            }
            assertThat(t.values()).as("seed %d values", seed).containsExactlyInAnyOrderElementsOf(m.values());
        }
    }
}
