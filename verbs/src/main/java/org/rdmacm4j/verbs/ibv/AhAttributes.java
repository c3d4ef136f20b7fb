package org.rdmacm4j.verbs.ibv;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * {@code struct ibv_ah_attr} (with its {@code struct ibv_global_route}): the address vector of
 * a UD destination or an RC path. Immutable.
 *
 * @param dgid destination GID (grh.dgid)
 * @param flowLabel grh.flow_label
 * @param sgidIndex grh.sgid_index
 * @param hopLimit grh.hop_limit
 * @param trafficClass grh.traffic_class
 * @param dlid destination LID (0 on RoCE)
 * @param sl service level
 * @param srcPathBits source path bits
 * @param staticRate static rate (enum ibv_rate)
 * @param isGlobal whether the GRH is used (always on RoCE)
 * @param portNum the local port
 */
public record AhAttributes(Gid dgid, int flowLabel, int sgidIndex, int hopLimit, int trafficClass, int dlid,
                           int sl, int srcPathBits, int staticRate, boolean isGlobal, int portNum) {
    public AhAttributes {
        checkArgument(dgid != null, "dgid must not be null");
        checkRange("sgidIndex", sgidIndex, 255);
        checkRange("hopLimit", hopLimit, 255);
        checkRange("trafficClass", trafficClass, 255);
        checkRange("dlid", dlid, 0xFFFF);
        checkRange("sl", sl, 255);
        checkRange("srcPathBits", srcPathBits, 255);
        checkRange("staticRate", staticRate, 255);
        checkRange("portNum", portNum, 255);
    }

    private static void checkRange(String name, int v, int max) {
        // Hand-written, not checkArgument: the int arguments would be boxed on the happy path, and
        // this runs for each field of every address handle (one per UD peer or group, made on the dispatcher) (C1-only launchers do no escape analysis).
        if (v < 0 || v > max) {
            throw new IllegalArgumentException(name + " " + v + " is out of range 0.." + max);
        }
    }
}
