package org.rdmacm4j.cm.statemachine;

import java.util.Objects;

/**
 * The {@code param} union of {@code struct rdma_cm_event}, copied before the ack. Which arm is
 * valid depends on the port space of the id: {@link Conn} for RDMA_PS_TCP, {@link Ud} for
 * RDMA_PS_UDP/IPOIB, {@link None} for events that carry neither.
 */
public sealed interface EventParams {
    /** The raw private-data buffer as delivered (transport sized, zero padded). */
    Bytes privateData();

    /** No parameters (address and route events, errors without payload). */
    record None() implements EventParams {
        @Override
        public Bytes privateData() {
            return Bytes.empty();
        }
    }

    /** {@code struct rdma_conn_param}. */
    record Conn(Bytes privateData, int responderResources, int initiatorDepth, int flowControl,
                int retryCount, int rnrRetryCount, boolean srq, int qpNum) implements EventParams {
        public Conn {
            Objects.requireNonNull(privateData, "privateData");
        }

        public static Conn withData(Bytes privateData) {
            return new Conn(privateData, 0, 0, 0, 0, 0, false, 0);
        }
    }

    /**
     * {@code struct rdma_ud_param}. {@code ahAttr} is the copied {@code struct ibv_ah_attr};
     * {@code group} names the multicast group of a MULTICAST_JOIN/ERROR (librdmacm hands back the
     * join context in {@code private_data}; the core maps it to the group it joined), else "".
     */
    record Ud(Bytes privateData, Bytes ahAttr, int qpNum, int qkey, String group) implements EventParams {
        public Ud {
            Objects.requireNonNull(privateData, "privateData");
            Objects.requireNonNull(ahAttr, "ahAttr");
            Objects.requireNonNull(group, "group");
        }

        public static Ud forGroup(String group) {
            return new Ud(Bytes.empty(), Bytes.empty(), 0xFFFFFF, 0x01234567, group);
        }
    }
}
