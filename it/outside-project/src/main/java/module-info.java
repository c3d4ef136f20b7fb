/** A program outside the rdmacm4j reactor that uses it as a library, on the module path. */
module com.example.outside {
    requires org.rdmacm4j.cm.core;
}
