package org.rdmacm4j.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * {@code dup3} of {@code /dev/null} over a descriptor: the descriptor number stays taken (its
 * owner closes it later, harmlessly), while the open file it named loses this reference. Used for
 * one thing only, librdmacm's context on a removed device ({@link org.rdmacm4j.verbs.ibv.RemovedDeviceHold}).
 *
 * <p>Threads: any.
 */
public final class DevNull {
    private static final int O_RDWR = 02;
    private static final int O_CLOEXEC = 02000000;
    private static final MethodHandle OPEN = Native.errno(Libraries.libc(), "open",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle DUP3 = Native.errno(Libraries.libc(), "dup3",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = Native.plain(Libraries.libc(), "close",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private DevNull() {
    }

    /** Makes each of {@code fds} name /dev/null (atomically per descriptor: dup3 never leaves it closed). */
    public static void over(int... fds) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = Errno.state();
            int nul = (int) OPEN.invokeExact(st, arena.allocateFrom("/dev/null"), O_RDWR | O_CLOEXEC);
            if (nul < 0) {
                throw Native.errnoFailure("open(/dev/null)", st);
            }
            try {
                for (int fd : fds) {
                    if ((int) DUP3.invokeExact(st, nul, fd, O_CLOEXEC) < 0) {
                        throw Native.errnoFailure("dup3", st);
                    }
                }
            } finally {
                int ignored = (int) CLOSE.invokeExact(nul);
            }
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
