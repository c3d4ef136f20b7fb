package org.rdmacm4j.verbs.ibv;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.rdmacm4j.verbs.internal.DevNull;

/**
 * librdmacm's own context on a device that is being removed, and the one way to let the kernel
 * finish that removal while no RDMA device is listed.
 *
 * <p>Why (rdma-core 44, {@code librdmacm/cma.c}; the same upstream today): librdmacm opens one
 * {@code ibv_context} per device it binds an id to ({@code ucma_get_device} -> {@code ucma_init_device})
 * and closes it only in {@code sync_devices_list}, when {@code ibv_get_device_list} no longer
 * lists the device; but that function returns ENODEV, changing nothing, when the list is empty.
 * A driver without {@code disassociate_ucontext} (rxe, siw) makes the kernel's unregister wait
 * for every open uverbs file of the device ({@code ib_uverbs_remove_one}). So when the only device
 * is removed, {@code rdma link delete} (or a driver unload) waits until the process exits, and
 * the device cannot be added back (its name and netdev are still taken).
 *
 * <p>{@link #replaceFiles()} ends that wait: it makes the context's two descriptors
 * ({@code cmd_fd}, {@code async_fd}) name {@code /dev/null} with {@code dup3}, so the kernel's
 * uverbs file loses its last reference and the unregister completes, while the descriptor
 * numbers stay taken: librdmacm closes them later (when it syncs its list against a device
 * that is back), harmlessly. It is safe only while librdmacm cannot have closed the context
 * itself, that is while no device at all is listed (checked here, and the descriptors must
 * still name what they named when this hold was taken), and only once nothing of the caller's
 * (QP, CQ, completion channel, PD, MR) is left on the context: a mapped queue keeps the file
 * alive anyway, and later calls on the context would fail.
 *
 * <p>Threads: the owner's (in rdmacm4j, the CM dispatcher).
 */
public final class RemovedDeviceHold {
    /** What {@link #replaceFiles()} did. */
    public enum Outcome {
        /** The descriptors name /dev/null now: the kernel can finish the removal. */
        REPLACED,
        /** Some device is listed: librdmacm drops the context itself when it next syncs (rdma_get_devices). */
        DEVICE_LISTED,
        /** The descriptors no longer name the context's files: librdmacm closed it already. Nothing done. */
        ALREADY_CLOSED
    }

    private static final String DELETED = " (deleted)";

    private final String deviceName;
    private final long handle;
    private final int cmdFd;
    private final int asyncFd;
    private final String cmdFile;
    private final String asyncFile;

    private RemovedDeviceHold(DeviceContext context) {
        this.deviceName = context.deviceName();
        this.handle = context.handle();
        this.cmdFd = context.cmdFd();
        this.asyncFd = context.asyncFd();
        this.cmdFile = fileOf(cmdFd);
        this.asyncFile = fileOf(asyncFd);
    }

    /**
     * Takes note of librdmacm's context on a device that was just removed (an id's
     * {@link org.rdmacm4j.verbs.cm.CmId#context()} when its DEVICE_REMOVAL arrives). Throws
     * IllegalArgumentException for a context of the caller's own (only librdmacm's is held this way).
     */
    public static RemovedDeviceHold of(DeviceContext librdmacmContext) {
        if (!librdmacmContext.isBorrowed()) {
            throw new IllegalArgumentException(librdmacmContext + " is not librdmacm's: close it instead");
        }
        return new RemovedDeviceHold(librdmacmContext);
    }

    /** The removed device's name. */
    public String deviceName() {
        return deviceName;
    }

    /** The context's native address ({@link DeviceContext#handle()}). */
    public long handle() {
        return handle;
    }

    /**
     * Lets the kernel finish the removal if no device is listed (see the class comment); otherwise
     * says why it did nothing. The caller must have closed everything of its own on the context.
     */
    public Outcome replaceFiles() {
        List<String> listed = DeviceContext.deviceNames();
        if (!listed.isEmpty()) {
            return Outcome.DEVICE_LISTED;
        }
        if (cmdFile == null || !cmdFile.equals(fileOf(cmdFd)) || !asyncFile.equals(fileOf(asyncFd))) {
            return Outcome.ALREADY_CLOSED;
        }
        DevNull.over(cmdFd, asyncFd);
        return Outcome.REPLACED;
    }

    /**
     * What {@code fd} names ({@code /proc/self/fd}, without the " (deleted)" the kernel appends once
     * the device node is gone), or null if it is closed or unreadable.
     */
    private static String fileOf(int fd) {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd", Integer.toString(fd))).toString();
            return target.endsWith(DELETED) ? target.substring(0, target.length() - DELETED.length()) : target;
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "RemovedDeviceHold(" + deviceName + ", cmd_fd " + cmdFd + " " + cmdFile + ", async_fd " + asyncFd
                + " " + asyncFile + ")";
    }
}
