/** Runnable examples. */
module org.rdmacm4j.examples {
    requires com.google.common;
    requires org.rdmacm4j.verbs;
    requires org.rdmacm4j.cm.core;
    exports org.rdmacm4j.examples;
}
