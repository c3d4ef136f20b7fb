/**
 * Support for rdmacm4j's integration tests on real RDMA: where the soft-RoCE device and
 * addresses are ({@code SoftRoce}), the per-class leak check against the kernel's own counts
 * ({@code @SoftRoceTest}), and external processes with deadlines. The tests themselves live in
 * this module's test sources and run inside the guest (it/rig/run-it.sh).
 */
module org.rdmacm4j.it {
    requires com.google.common;
    requires transitive org.junit.jupiter.api;
    requires org.rdmacm4j.verbs;
    requires jdk.management; // per-thread allocation counts (ThreadAllocations)

    exports org.rdmacm4j.it.support;
}
