package org.rdmacm4j.cm.core.internal.nativeport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.verbs.ibv.RemovedDeviceHold.Outcome;

/** The port's handling of a lost device, over a fake device list and fake librdmacm contexts. */
class DeviceLossTest {
    private static final long MS = 1_000_000L;

    private final List<String> devices = new ArrayList<>(List.of("rxe0"));
    private final AtomicInteger looks = new AtomicInteger();
    private final AtomicInteger resyncs = new AtomicInteger();
    private final DeviceLoss loss = new DeviceLoss(() -> {
        looks.incrementAndGet();
        return List.copyOf(devices);
    }, resyncs::incrementAndGet);

    /** A librdmacm context that records what was done to it. */
    private static final class FakeHold implements DeviceLoss.Hold {
        final long handle;
        final List<String> devicesSeen;
        final AtomicInteger replaced = new AtomicInteger();
        RuntimeException failure;

        FakeHold(long handle, List<String> devicesSeen) {
            this.handle = handle;
            this.devicesSeen = devicesSeen;
        }

        @Override
        public long handle() {
            return handle;
        }

        @Override
        public String deviceName() {
            return "rxe0";
        }

        @Override
        public Outcome replaceFiles() {
            if (failure != null) {
                throw failure;
            }
            if (!devicesSeen.isEmpty()) {
                return Outcome.DEVICE_LISTED;
            }
            replaced.incrementAndGet();
            return Outcome.REPLACED;
        }
    }

    @Test
    void withoutARemovalNothingIsLookedUp() {
        assertThat(loss.noDeviceListed()).isFalse();
        loss.tick(0, h -> true);
        loss.tick(10_000 * MS, h -> true);
        assertThat(looks).hasValue(0);
        assertThat(loss.state()).isEqualTo(DeviceLoss.State.NORMAL);
    }

    @Test
    void newIdsAreRefusedOnlyWhileNoDeviceIsListed() {
        var hold = new FakeHold(7, devices);
        loss.removed(hold);
        devices.clear();
        assertThat(loss.noDeviceListed()).isTrue();
        devices.add("rxe0");
        assertThat(loss.noDeviceListed()).as("a device is listed again").isFalse();
        assertThat(loss.state()).as("the hold is still pending").isEqualTo(DeviceLoss.State.REMOVED);
    }

    @Test
    void theContextIsLetGoOnlyOnceNothingOfOursIsOnIt() {
        var hold = new FakeHold(7, devices);
        loss.removed(hold);
        devices.clear();
        boolean[] ours = {true};
        loss.tick(0, h -> ours[0] && h == 7);
        assertThat(hold.replaced).as("our QP is still on it").hasValue(0);
        ours[0] = false;
        loss.tick(100 * MS, h -> false);
        assertThat(hold.replaced).as("within 200 ms of the last look: not looked at").hasValue(0);
        loss.tick(200 * MS, h -> false);
        assertThat(hold.replaced).hasValue(1);
        loss.tick(400 * MS, h -> false);
        assertThat(hold.replaced).as("once").hasValue(1);
        assertThat(loss.noDeviceListed()).as("still no device").isTrue();
        devices.add("rxe0");
        assertThat(loss.noDeviceListed()).isFalse();
        assertThat(loss.state()).isEqualTo(DeviceLoss.State.NORMAL);
    }

    @Test
    void withAnotherDeviceListedLibrdmacmResyncsInstead() {
        var hold = new FakeHold(7, devices);
        devices.set(0, "mlx5_0");
        loss.removed(hold);
        loss.tick(0, h -> false);
        assertThat(hold.replaced).hasValue(0);
        assertThat(resyncs).hasValue(1);
        assertThat(loss.state()).as("a device is listed and nothing is pending").isEqualTo(DeviceLoss.State.NORMAL);
    }

    @Test
    void aResyncThatFindsNoDeviceIsRetried() {
        var hold = new FakeHold(7, devices);
        var failing = new DeviceLoss(List::of, () -> {
            throw new IllegalStateException("rdma_get_devices listed no device");
        });
        failing.removed(new DeviceLoss.Hold() {
            @Override
            public long handle() {
                return 7;
            }

            @Override
            public String deviceName() {
                return "rxe0";
            }

            @Override
            public Outcome replaceFiles() {
                return Outcome.DEVICE_LISTED;   // a device was listed a moment ago, gone by the resync
            }
        });
        failing.tick(0, h -> false);
        assertThat(failing.state()).isEqualTo(DeviceLoss.State.REMOVED);
        assertThat(hold.replaced).hasValue(0);
    }

    @Test
    void aFailingReleaseIsLoggedAndDropped() {
        var hold = new FakeHold(7, devices);
        hold.failure = new IllegalStateException("dup3 failed");
        loss.removed(hold);
        devices.clear();
        loss.tick(0, h -> false);
        devices.add("rxe0");
        assertThat(loss.noDeviceListed()).isFalse();
        assertThat(loss.state()).as("nothing pending any more").isEqualTo(DeviceLoss.State.NORMAL);
    }

    @Test
    void aSecondRemovalOfTheSameContextIsOneHold() {
        var hold = new FakeHold(7, devices);
        loss.removed(hold);
        loss.removed(hold);
        devices.clear();
        loss.tick(0, h -> false);
        assertThat(hold.replaced).hasValue(1);
    }

    @Test
    void theRefusalIsENODEVOfRdmaCreateIdAndSaysNothingWasCalled() {
        PortCallException e = DeviceLoss.noDevice("rdma_create_id");
        assertThat(e.noDevice()).isTrue();
        assertThat(e.errno()).isEqualTo(19);
        assertThat(e.getMessage()).contains("no RDMA device is listed").contains("nothing was called");
        assertThat(new PortCallException("rdma_bind_addr", 19, "ENODEV", null).noDevice())
                .as("a bind's ENODEV is an address off RDMA, not a missing device").isFalse();
    }
}
