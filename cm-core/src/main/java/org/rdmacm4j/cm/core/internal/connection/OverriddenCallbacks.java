package org.rdmacm4j.cm.core.internal.connection;

import org.rdmacm4j.cm.core.ConnectionHandler;
import org.rdmacm4j.cm.core.RdmaCmException;
import org.rdmacm4j.cm.core.RdmaConnection;
import org.rdmacm4j.cm.statemachine.AsyncEventType;

/**
 * Which of {@link ConnectionHandler}'s callback-executor methods a handler's class overrides, as a
 * bit mask computed once per class. The dispatcher hands a callback to the executor only if its
 * method is overridden: an empty default would cost a task, a carrier wake-up and, while queued, the
 * early post of the id's next future (CmFuture), for nothing. {@code ConnectionHandler.none()} and
 * handlers that override only {@code onMessage} (most) therefore cost no callback tasks at all.
 * The poller-thread methods ({@code onMessage}, {@code onCompletion}) are not counted here. Any thread.
 */
final class OverriddenCallbacks {
    static final int ESTABLISHED = 1;
    static final int DISCONNECTED = 1 << 1;
    static final int ERROR = 1 << 2;
    static final int ADDRESS_CHANGED = 1 << 3;
    static final int ASYNC_EVENT = 1 << 4;
    static final int CLOSED = 1 << 5;
    static final int ALL = (1 << 6) - 1;

    private static final ClassValue<Integer> MASKS = new ClassValue<>() {
        @Override
        protected Integer computeValue(Class<?> type) {
            return overridden(type, "onEstablished", ESTABLISHED, RdmaConnection.class)
                    | overridden(type, "onDisconnected", DISCONNECTED, RdmaConnection.class)
                    | overridden(type, "onError", ERROR, RdmaConnection.class, RdmaCmException.class)
                    | overridden(type, "onAddressChanged", ADDRESS_CHANGED, RdmaConnection.class)
                    | overridden(type, "onAsyncEvent", ASYNC_EVENT, RdmaConnection.class, AsyncEventType.class)
                    | overridden(type, "onClosed", CLOSED, RdmaConnection.class);
        }
    };

    private OverriddenCallbacks() { }

    /** The mask of {@code handler}'s class; {@link #ALL} for null (no handler: nothing is called anyway). */
    static int of(ConnectionHandler handler) {
        return handler == null ? ALL : MASKS.get(handler.getClass());
    }

    private static int overridden(Class<?> type, String name, int bit, Class<?>... parameters) {
        try {
            // getMethod finds the most specific public implementation: the interface's default
            // only if no class or subinterface on the way overrides it.
            return type.getMethod(name, parameters).getDeclaringClass() == ConnectionHandler.class ? 0 : bit;
        } catch (NoSuchMethodException | SecurityException e) {
            return bit;   // cannot tell: call it, as before
        }
    }
}
