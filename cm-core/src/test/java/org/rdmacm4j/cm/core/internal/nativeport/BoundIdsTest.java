package org.rdmacm4j.cm.core.internal.nativeport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Devices.BoundIds}: the walk's answer, with the id found last asked first. */
class BoundIdsTest {
    private static final long DEV = 0x1000;
    private static final long OTHER_DEV = 0x2000;

    /** A stand-in for a VerbsId: its device, whether it is open and in the table. */
    private static final class Id {
        final long handle;
        boolean open = true;

        Id(long handle) {
            this.handle = handle;
        }
    }

    private final List<Id> table = new ArrayList<>();
    private final List<Id> asked = new ArrayList<>();
    private final Devices.BoundIds<Id> bound = new Devices.BoundIds<>(table, (id, handle) -> {
        asked.add(id);
        return table.contains(id) && id.open && id.handle == handle;
    });

    private Id enter(long handle) {
        Id id = new Id(handle);
        table.add(id);
        return id;
    }

    @Test
    void noOtherIdOnTheDeviceMeansNotBoundElsewhere() {
        Id leaving = enter(DEV);
        enter(OTHER_DEV);
        Id closed = enter(DEV);
        closed.open = false;
        assertThat(bound.boundElsewhere(DEV, leaving)).isFalse();
        assertThat(bound.boundElsewhere(DEV, leaving)).isFalse();
    }

    @Test
    void theIdFoundLastIsAskedFirstAndAnswersWithoutTheWalk() {
        Id listener = enter(DEV);
        Id first = enter(DEV);
        assertThat(bound.boundElsewhere(DEV, first)).isTrue();   // the walk finds the listener
        first.open = false;
        table.remove(first);
        Id second = enter(DEV);
        asked.clear();
        assertThat(bound.boundElsewhere(DEV, second)).isTrue();
        assertThat(asked).containsExactly(listener);
    }

    @Test
    void aRememberedIdThatClosedLeftTheTableOrIsTheOneLeavingFallsBackToTheWalk() {
        Id holder = enter(DEV);
        Id leaving = enter(DEV);
        assertThat(bound.boundElsewhere(DEV, leaving)).isTrue();   // remembers holder

        holder.open = false;
        assertThat(bound.boundElsewhere(DEV, leaving)).isFalse();

        Id holder2 = enter(DEV);
        assertThat(bound.boundElsewhere(DEV, leaving)).isTrue();   // remembers holder2
        table.remove(holder2);   // leaked: out of the table, still open
        assertThat(bound.boundElsewhere(DEV, leaving)).isFalse();

        Id holder3 = enter(DEV);
        assertThat(bound.boundElsewhere(DEV, leaving)).isTrue();   // remembers holder3
        assertThat(bound.boundElsewhere(DEV, holder3)).isTrue();   // holder3 leaving: the walk finds leaving
        assertThat(bound.boundElsewhere(DEV, leaving)).isTrue();
    }

    @Test
    void anIdOnAnotherDeviceDoesNotHoldThisOne() {
        Id leaving = enter(DEV);
        Id elsewhere = enter(OTHER_DEV);
        assertThat(bound.boundElsewhere(OTHER_DEV, leaving)).isTrue();   // remembers elsewhere
        assertThat(bound.boundElsewhere(DEV, leaving)).isFalse();
        assertThat(bound.boundElsewhere(OTHER_DEV, elsewhere)).isFalse();
    }
}
