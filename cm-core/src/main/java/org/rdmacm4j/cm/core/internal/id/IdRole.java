package org.rdmacm4j.cm.core.internal.id;

import java.util.concurrent.CompletableFuture;
import org.rdmacm4j.cm.core.ConnectionFailedException;
import org.rdmacm4j.cm.statemachine.Action;
import org.rdmacm4j.cm.statemachine.Input;
import org.rdmacm4j.cm.statemachine.Notice;
import org.rdmacm4j.cm.statemachine.Outcome;

/**
 * What one kind of id does that the {@link IdEngine} cannot do for every kind: the actions whose
 * meaning depends on the kind (create a QP, offer a request, answer a SIDR request, join a group),
 * the handler notices, the values its futures complete with, and what ends with it. Each kind's
 * package implements it once ({@code connection.Connections}, {@code listener.Listeners},
 * {@code datagram.Datagrams}) and registers it for its {@link IdDriver.Kind}s; the engine looks the
 * role up by the driver's kind, so no driver and no engine names a kind's package.
 *
 * <p>Every method runs on the dispatcher thread, inside one step of {@code d}.
 */
public interface IdRole {
    /**
     * Runs a native call whose meaning depends on the kind: CreateQp, the Accept of a SIDR answer,
     * JoinMulticast, Relisten. Returns false to let the engine run the generic call (Accept);
     * throws {@link org.rdmacm4j.cm.core.internal.port.PortCallException} on failure.
     */
    boolean runNative(IdDriver d, Action.NativeCall call);

    /** OfferRequest: the listener's machine hands a connection request to the application. */
    default void offer(IdDriver d, Input.CmEvent request) {
        System.getLogger("org.rdmacm4j.cm.core").log(System.Logger.Level.WARNING,
                d.name() + ": OfferRequest on a kind that takes no requests ignored");
    }

    /** LeaveMulticast: leaves a joined group (UD ids only). */
    default void leaveMulticast(IdDriver d, String group) {
        System.getLogger("org.rdmacm4j.cm.core").log(System.Logger.Level.WARNING,
                d.name() + ": LeaveMulticast on an RC id ignored");
    }

    /** CallHandler: tells the application (through the id's callback executor). */
    void notice(IdDriver d, Notice n);

    /**
     * The value a CompleteFuture's outcome gives the future's mapping: the user's object for UD
     * outcomes; records the connection's addresses on Connected. May throw PortCallException.
     */
    default Object value(IdDriver d, Outcome outcome) {
        return outcome;
    }

    /** The public close future completed before the future of a step that ended the id, or null. */
    default CompletableFuture<Void> closedFuture(IdDriver d) {
        return null;
    }

    /** A future of {@code d} was settled (completed or failed by CompleteFuture). */
    default void futureSettled(IdDriver d) { }

    /**
     * Whether {@code in} is held back before it reaches the machine (a connect waiting at its step
     * barrier). A held input is fed again by the role once it may go on. Asked only for an id whose
     * {@link IdDriver#roleMayHold} the role set.
     */
    default boolean holds(IdDriver d, Input in) {
        return false;
    }

    /** The id was retired (its machine ended, or the RdmaCm stopped): settle the kind's own objects. */
    void retired(IdDriver d);

    /** The id crashed inside the dispatcher (a bug): tell the application what it lost. */
    default void crashed(IdDriver d, ConnectionFailedException ex) { }
}
