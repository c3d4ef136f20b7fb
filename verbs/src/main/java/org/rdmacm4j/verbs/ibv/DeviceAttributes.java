package org.rdmacm4j.verbs.ibv;

/**
 * {@code struct ibv_device_attr} as {@code ibv_query_device} fills it (the fields an application
 * sizes queues and atomics by). Immutable.
 */
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long sysImageGuid, long maxMrSize,
                               long pageSizeCap, int vendorId, int vendorPartId, int hwVersion, int maxQp,
                               int maxQpWr, int deviceCapFlags, int maxSge, int maxSgeRd, int maxCq, int maxCqe,
                               int maxMr, int maxPd, int maxQpRdAtom, int maxQpInitRdAtom, int atomicCap,
                               int maxAh, int maxSrq, int maxSrqWr, int maxSrqSge, int maxPkeys,
                               int localCaAckDelay, int physPortCount) {
}
