/** The CM dispatcher and the public API. The only module that owns threads. */
module org.rdmacm4j.cm.core {
    requires org.rdmacm4j.verbs;
    requires org.rdmacm4j.cm.statemachine;
}
