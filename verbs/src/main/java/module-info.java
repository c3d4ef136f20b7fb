/** Panama FFM bindings for librdmacm and libibverbs. The only module that touches native memory. */
module org.rdmacm4j.verbs {
}
