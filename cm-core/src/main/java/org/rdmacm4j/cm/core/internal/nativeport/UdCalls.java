package org.rdmacm4j.cm.core.internal.nativeport;

import static org.rdmacm4j.cm.core.internal.nativeport.PortFailures.failed;
import static org.rdmacm4j.cm.core.internal.nativeport.VerbsId.v;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import org.rdmacm4j.cm.core.internal.datagram.DatagramEnd;
import org.rdmacm4j.cm.core.internal.datagram.DatagramPath;
import org.rdmacm4j.cm.core.internal.datagram.MembershipImpl;
import org.rdmacm4j.cm.core.internal.datagram.PeerImpl;
import org.rdmacm4j.cm.core.internal.port.NativeId;
import org.rdmacm4j.cm.core.internal.port.PortCallException;
import org.rdmacm4j.cm.statemachine.Bytes;
import org.rdmacm4j.verbs.RdmaException;
import org.rdmacm4j.verbs.cm.ConnParam;
import org.rdmacm4j.verbs.cm.McJoinFlag;

/**
 * What a UD id asks of librdmacm beyond its QP: answers a SIDR request, joins and leaves multicast
 * groups (remembering each join on the id until its MULTICAST_JOIN), and turns a SIDR reply's or a
 * join's address vector into a peer or a membership (an address handle on the endpoint's PD).
 * Holds no state of its own: what it remembers is on the {@link VerbsId}.
 *
 * <p>Threads: the dispatcher's.
 */
final class UdCalls {
    private static final System.Logger LOG = System.getLogger("org.rdmacm4j.cm.core");

    private UdCalls() {
    }

    static void acceptSidr(NativeId nid, Bytes privateData, int qpNum) {
        try {
            v(nid).cmId.accept(new ConnParam(privateData.toArray(), 0, 0, 0, 0, 0, 0, qpNum));
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    static void joinMulticast(NativeId nid, String group, boolean sendOnly) {
        VerbsId id = v(nid);
        try {
            id.groups.put(group, null);
            id.cmId.joinMulticast(new InetSocketAddress(java.net.InetAddress.getByName(group), 0),
                    sendOnly ? McJoinFlag.SENDONLY_FULLMEMBER : McJoinFlag.FULLMEMBER);
        } catch (RdmaException e) {
            id.groups.remove(group);
            throw failed(e);
        } catch (java.net.UnknownHostException e) {
            id.groups.remove(group);
            throw new PortCallException("rdma_join_multicast_ex", 22, "not an address: " + group, e);
        }
    }

    static void leaveMulticast(NativeId nid, String group) {
        VerbsId id = v(nid);
        if (id.groups.remove(group) == null && !id.groups.isEmpty()) {
            // a join that never completed is left as well (librdmacm cancels it)
        }
        try {
            id.cmId.leaveMulticast(new InetSocketAddress(java.net.InetAddress.getByName(group), 0));
        } catch (RdmaException | java.net.UnknownHostException e) {
            LOG.log(Level.DEBUG, "rdma_leave_multicast " + group + ": " + e.getMessage());
        }
    }

    static PeerImpl peer(NativeId nid, DatagramPath path, InetSocketAddress address) {
        org.rdmacm4j.verbs.cm.UdParam ud = v(nid).udParam;
        if (ud == null || ud.ahAttr() == null) {
            throw new PortCallException("ibv_create_ah", 22, "no SIDR reply with an address vector on " + nid, null);
        }
        try {
            return new PeerImpl(path.pd.createAh(ud.ahAttr()), path.targets, ud.qpNum(), ud.qkey(), address);
        } catch (RdmaException e) {
            throw failed(e);
        }
    }

    static MembershipImpl membership(NativeId nid, String group, DatagramPath path, DatagramEnd endpoint,
                                     org.rdmacm4j.cm.core.JoinOptions options) {
        org.rdmacm4j.verbs.cm.UdParam ud = v(nid).groups.get(group);
        if (ud == null || ud.ahAttr() == null) {
            throw new PortCallException("ibv_create_ah", 22, "no MULTICAST_JOIN address vector for " + group, null);
        }
        try {
            return new MembershipImpl(path.pd.createAh(ud.ahAttr()), path.targets, endpoint,
                    java.net.InetAddress.getByName(group), options, ud.qpNum(), ud.qkey());
        } catch (RdmaException e) {
            throw failed(e);
        } catch (java.net.UnknownHostException e) {
            throw new PortCallException("ibv_create_ah", 22, "not an address: " + group, e);
        }
    }
}
