/**
 * JMH benchmarks. They run from the shaded jar on the class path (benchmarks/target/benchmarks.jar,
 * the usual JMH shape, where this descriptor is left out); the descriptor keeps the module's
 * compile-time dependencies as explicit as every other module's.
 */
module org.rdmacm4j.benchmarks {
    requires org.rdmacm4j.verbs;
    requires jmh.core;

    // JMH instantiates the generated benchmark classes reflectively.
    opens org.rdmacm4j.benchmarks;
    opens org.rdmacm4j.benchmarks.jmh_generated;
}
