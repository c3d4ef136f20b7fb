package org.rdmacm4j.verbs.cm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.rdmacm4j.verbs.Descriptors;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.ibv.AhAttributes;
import org.rdmacm4j.verbs.ibv.DeviceContext;
import org.rdmacm4j.verbs.ibv.Gid;
import org.rdmacm4j.verbs.ibv.QpAttributes;

/** Bad input is an IllegalArgumentException before any native call; no device needed. */
class ArgumentValidationTest {

    @Test
    void connParamChecksItsBytesAndCopiesPrivateData() {
        byte[] data = {1, 2, 3};
        ConnParam p = ConnParam.defaults().withPrivateData(data);
        data[0] = 9;
        assertThat(p.privateData()).containsExactly(1, 2, 3);
        assertThatThrownBy(() -> ConnParam.defaults().withPrivateData(new byte[256]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnParam(null, 0, 0, 0, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ConnParam(new byte[0], 256, 0, 0, 0, 0, 0, 0))
                .hasMessageContaining("responderResources");
    }

    @Test
    void connParamNamesEachCountOutsideAnUnsignedByteAndTakesBothEnds() {
        String[] names = {"responderResources", "initiatorDepth", "flowControl", "retryCount", "rnrRetryCount", "srq"};
        for (int i = 0; i < names.length; i++) {
            for (int bad : new int[] {-1, 256, Integer.MIN_VALUE}) {
                int[] v = new int[6];
                v[i] = bad;
                assertThatThrownBy(() -> new ConnParam(new byte[0], v[0], v[1], v[2], v[3], v[4], v[5], 0))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(names[i] + " " + bad + " is not an unsigned byte");
            }
        }
        ConnParam max = new ConnParam(new byte[255], 255, 255, 255, 255, 255, 255, -1);
        assertThat(max.privateDataLength()).isEqualTo(255);
        assertThat(new ConnParam(new byte[0], 0, 0, 0, 0, 0, 0, 0).privateData()).isEmpty();
        assertThatThrownBy(() -> new ConnParam(new byte[256], 0, 0, 0, 0, 0, 0, 0))
                .hasMessage("private data of 256 bytes: at most 255");
    }

    @Test
    void timeoutsMustFitAnIntOfMilliseconds() {
        assertThat(CmId.timeoutMs(Duration.ofSeconds(2))).isEqualTo(2000);
        assertThatThrownBy(() -> CmId.timeoutMs(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CmId.timeoutMs(Duration.ofDays(30))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CmId.timeoutMs(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(CmEventType.of(CmEventType.ESTABLISHED.value())).isSameAs(CmEventType.ESTABLISHED);
        assertThatThrownBy(() -> CmEventType.of(99)).hasMessage("unknown rdma_cm_event_type 99");
        assertThatThrownBy(() -> CmEventType.of(-1)).hasMessage("unknown rdma_cm_event_type -1");
        assertThatThrownBy(() -> CmId.timeoutMs(Duration.ofNanos(999_999)))
                .hasMessage("timeout PT0.000999999S must be 1 ms .. 2147483647 ms");
    }

    @Test
    void rangesOfQpAndAddressAttributes() {
        assertThatThrownBy(() -> new QpAttributes().retryCount(8)).hasMessageContaining("retryCount 8");
        assertThatThrownBy(() -> new QpAttributes().destQpNum(1 << 24)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new QpAttributes().port(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AhAttributes(Gid.ZERO, 0, 256, 1, 0, 0, 0, 0, 0, true, 1))
                .hasMessageContaining("sgidIndex");
        QpAttributes a = new QpAttributes().state(org.rdmacm4j.verbs.ibv.QpState.INIT).port(1).pkeyIndex(0);
        assertThat(a.mask()).isEqualTo(1 | 1 << 5 | 1 << 4);
    }

    @Test
    void descriptorsAndDeviceNamesAreCheckedFirst() {
        assertThatThrownBy(() -> Descriptors.awaitReadable(-1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Descriptors.awaitReadable(0, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DeviceContext.open("")).isInstanceOf(IllegalArgumentException.class);
        // On the host the device list itself fails (no kernel RDMA): a real errno, not a crash.
        assertThatThrownBy(() -> DeviceContext.open("rxe0")).isInstanceOfSatisfying(RdmaException.class,
                e -> assertThat(e.function()).isEqualTo("ibv_get_device_list"));
    }

    @Test
    void rejectReasonsAndEventNames() {
        assertThat(RejectReason.message(28)).isEqualTo("consumer defined");
        assertThat(RejectReason.message(8)).isEqualTo("invalid service ID");
        assertThat(RejectReason.message(99)).isEqualTo("unrecognized reason 99");
        assertThat(CmEventChannel.eventName(CmEventType.ESTABLISHED)).isEqualTo("RDMA_CM_EVENT_ESTABLISHED");
        assertThat(CmEventType.of(15)).isEqualTo(CmEventType.TIMEWAIT_EXIT);
        assertThatThrownBy(() -> CmEventType.of(16)).isInstanceOf(IllegalArgumentException.class);
        assertThat(PortSpace.of(0x0111)).isEqualTo(PortSpace.UDP);
    }
}
