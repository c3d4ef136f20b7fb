package org.rdmacm4j.cm.core.internal;

import org.rdmacm4j.cm.core.internal.connection.ConnectionPort;
import org.rdmacm4j.cm.core.internal.datagram.DatagramPort;

/**
 * The whole native port one dispatcher drives: what every id needs ({@code port.CmPort}) and what
 * each kind needs of its own. The real one is {@code nativeport.VerbsCmPort}; host tests use a fake.
 */
public interface NativePort extends ConnectionPort, DatagramPort {
}
