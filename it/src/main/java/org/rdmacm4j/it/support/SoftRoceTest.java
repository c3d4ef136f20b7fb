package org.rdmacm4j.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Marks an integration test class that runs against real RDMA. It adds what every such class
 * owes: after the class, {@code rdma resource show} must be back at the counts recorded before
 * the suite started ({@link ResourcesAtRestExtension}), and no single test may run longer than
 * two minutes (TCG guests are slow; a hang is still a failure), and a test that passes it first
 * prints the native stacks of the threads inside librdmacm or libibverbs ({@link NativeStacksOnTimeout}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith({ResourcesAtRestExtension.class, NativeStacksOnTimeout.class})
@Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public @interface SoftRoceTest {
}
