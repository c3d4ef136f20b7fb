/**
 * Panama FFM bindings for librdmacm and libibverbs. The only module that touches native memory.
 *
 * <p>Exported: {@code org.rdmacm4j.verbs} (availability probe, the exception type),
 * {@code org.rdmacm4j.verbs.cm} (librdmacm), {@code org.rdmacm4j.verbs.ibv} (libibverbs) and
 * {@code org.rdmacm4j.verbs.sys} (epoll and eventfd, for the dispatcher's wait loop).
 * Raw handles, layouts and downcalls stay in the non-exported {@code internal} package.
 */
module org.rdmacm4j.verbs {
    requires com.google.common;
    exports org.rdmacm4j.verbs;
    exports org.rdmacm4j.verbs.cm;
    exports org.rdmacm4j.verbs.ibv;
    exports org.rdmacm4j.verbs.sys;
    /** AddressTable only: cm-core's long-keyed tables on the dispatcher (no Long per lookup). */
    exports org.rdmacm4j.verbs.internal to org.rdmacm4j.cm.core;
}
