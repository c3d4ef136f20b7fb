/**
 * Benchmarks (JMH, the CM/data-path programs and the report generator). They run from the shaded jar on the class path (benchmarks/target/benchmarks.jar,
 * the usual JMH shape, where this descriptor is left out); the descriptor keeps the module's
 * compile-time dependencies as explicit as every other module's.
 */
module org.rdmacm4j.benchmarks {
    requires com.google.common;
    requires org.rdmacm4j.verbs;
    requires org.rdmacm4j.cm.core;
    requires java.management;   // CmBench: heap after GC
    requires jdk.management;    // LoopbackCost: bytes allocated by all threads (com.sun.management)
    requires java.desktop;      // BenchReport: the PNG plot (java.awt, ImageIO), headless
    requires jdk.jfr;           // JfrWindow: a recording around the cold first connection, started in-process
    requires jmh.core;

    // JMH instantiates the generated benchmark classes reflectively.
    opens org.rdmacm4j.benchmarks;
    opens org.rdmacm4j.benchmarks.jmh_generated;
}
