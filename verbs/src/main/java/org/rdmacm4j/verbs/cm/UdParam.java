package org.rdmacm4j.verbs.cm;

import org.rdmacm4j.verbs.ibv.AhAttributes;

/**
 * {@code struct rdma_ud_param}, as carried by a UD id's events (ESTABLISHED after a SIDR
 * exchange, MULTICAST_JOIN): what a UD send to the peer or group needs. Immutable.
 *
 * @param privateData the peer's private data (copied)
 * @param ahAttr the address vector for {@code ibv_create_ah}
 * @param qpNum the remote QP number (0xFFFFFF for multicast)
 * @param qkey the remote Q_Key
 */
public record UdParam(byte[] privateData, AhAttributes ahAttr, int qpNum, int qkey) {
    public UdParam {
        privateData = privateData.clone();
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
