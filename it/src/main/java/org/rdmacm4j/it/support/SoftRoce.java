package org.rdmacm4j.it.support;

/**
 * Where the integration tests find RDMA. Defaults match the guest that {@code it/rig} boots:
 * both addresses on veth0, rxe0 on veth0. On a machine that already has RDMA, the rig passes
 * the machine's own values as system properties (see README, "Running without the guest").
 */
public final class SoftRoce {
    /** Address a server side listens on. */
    public static final String SERVER_ADDR = System.getProperty("rdmacm4j.it.serverAddr", "192.0.2.1");
    /** A second local address on the same netdev, for binding a client's source. */
    public static final String CLIENT_ADDR = System.getProperty("rdmacm4j.it.clientAddr", "192.0.2.3");
    /** The RDMA device both addresses live on. */
    public static final String DEVICE = System.getProperty("rdmacm4j.it.device", "rxe0");
    /** Path of the {@code rdma resource show} snapshot taken before any test ran. */
    public static final String RESTING_FILE = System.getProperty("rdmacm4j.it.resting", "");

    private SoftRoce() {
    }
}
