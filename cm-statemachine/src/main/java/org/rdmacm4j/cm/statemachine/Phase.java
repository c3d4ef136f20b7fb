package org.rdmacm4j.cm.statemachine;

/**
 * A named phase of a machine, with a stable numeric code (published in metrics and histories, so
 * it must never be renumbered; each enum checks code == ordinal at class init, as Aeron does).
 */
public interface Phase {
    int code();

    String name();

    /** No native object of the id is left, and no further native call will be made. */
    boolean terminal();

    static <E extends Enum<E> & Phase> void checkCodes(Class<E> type) {
        for (E e : type.getEnumConstants()) {
            if (e.code() != e.ordinal()) {
                throw new ExceptionInInitializerError(type.getSimpleName() + "." + e.name()
                        + " has code " + e.code() + " but ordinal " + e.ordinal());
            }
        }
    }
}
