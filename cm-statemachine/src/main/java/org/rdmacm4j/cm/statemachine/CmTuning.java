package org.rdmacm4j.cm.statemachine;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The non-data fields of {@code struct rdma_conn_param} the framework sets. Defaults are what the
 * kernel ULPs use (nvme-rdma: retry_count 7, rnr_retry_count 7).
 */
public record CmTuning(int responderResources, int initiatorDepth, int retryCount, int rnrRetryCount) {
    public CmTuning {
        check("responderResources", responderResources, 255);
        check("initiatorDepth", initiatorDepth, 255);
        check("retryCount", retryCount, 7);
        check("rnrRetryCount", rnrRetryCount, 7);
    }

    public static CmTuning defaults() {
        return new CmTuning(16, 16, 7, 7);
    }

    private static void check(String name, int value, int max) {
        checkArgument(value >= 0 && value <= max, "%s must be in [0, %s], was %s", name, max, value);
    }
}
