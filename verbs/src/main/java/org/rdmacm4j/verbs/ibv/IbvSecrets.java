package org.rdmacm4j.verbs.ibv;

import java.lang.foreign.MemorySegment;
import org.rdmacm4j.verbs.internal.Ownership;
import org.rdmacm4j.verbs.internal.Secrets;

/** Installs this package's side of {@link Secrets} (for the cm package). */
final class IbvSecrets implements Secrets.Ibv {
    static {
        Secrets.install(new IbvSecrets());
    }

    private IbvSecrets() { }

    @Override
    public MemorySegment segment(ProtectionDomain pd) {
        return pd.segment();
    }

    @Override
    public Ownership ownership(ProtectionDomain pd) {
        return pd.ownership();
    }

    @Override
    public Ownership[] writeQpInitAttr(QpInitAttributes attrs, MemorySegment out, int spare) {
        return attrs.write(out, spare);
    }

    @Override
    public QueuePair adoptQp(MemorySegment qp, ProtectionDomain pd, QpInitAttributes attrs, Runnable destroy,
                             Ownership... parents) {
        return new QueuePair(qp, pd.context(), attrs, destroy, parents);
    }

    @Override
    public DeviceContext borrowContext(MemorySegment context, String what, Ownership parent) {
        return new DeviceContext(context, false, what, parent);
    }
}
