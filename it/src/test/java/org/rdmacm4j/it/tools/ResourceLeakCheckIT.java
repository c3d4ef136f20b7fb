package org.rdmacm4j.it.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.it.support.RdmaResources;
import org.rdmacm4j.it.support.ResourcesAtRestExtension;
import org.rdmacm4j.it.support.SoftRoce;
import org.rdmacm4j.it.support.SoftRoceTest;
import org.rdmacm4j.verbs.cm.CmEvent;
import org.rdmacm4j.verbs.cm.CmEventChannel;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.CmId;
import org.rdmacm4j.verbs.cm.PortSpace;

/**
 * The per-class leak check must be able to fail: with a real kernel cm_id held open it reports
 * the difference, and once the id is destroyed it sees the resting counts again.
 */
@SoftRoceTest
class ResourceLeakCheckIT {

    @Test
    void reportsAnOpenCmIdAndClearsOnceItIsDestroyed() throws Exception {
        RdmaResources resting = ResourcesAtRestExtension.baseline();
        assertThat(ResourcesAtRestExtension.awaitRest(resting, Duration.ofSeconds(5))).as("at rest before").isNull();

        try (CmEventChannel channel = CmEventChannel.create(); CmId id = channel.createId(PortSpace.TCP)) {
            // An id is counted against a device once address resolution has bound it to one.
            id.resolveAddress(null, new InetSocketAddress(InetAddress.getByName(SoftRoce.SERVER_ADDR), 7471),
                    Duration.ofSeconds(5));
            CmEvent event = channel.getEvent(Duration.ofSeconds(20));
            assertThat(event).isNotNull();
            assertThat(event.type()).isEqualTo(CmEventType.ADDR_RESOLVED);

            String leak = ResourcesAtRestExtension.awaitRest(resting, Duration.ofMillis(500));
            assertThat(leak).as("the leak check must see the open cm_id").isNotNull()
                    .contains("cm_id " + (resting.byDevice().get(SoftRoce.DEVICE).get("cm_id") + 1));
        }
        assertThat(ResourcesAtRestExtension.awaitRest(resting, Duration.ofSeconds(15))).as("at rest after close").isNull();
    }
}
