package org.rdmacm4j.benchmarks;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The window markers of {@code benchmarks/src/main/c/insn_count.c} (the QEMU plugin that counts
 * the guest's instructions): two 7-byte NOPs ({@code nopl disp32(%rax)}, displacement "RDMO" to
 * open a window, "RDMC" to close it) in a page of their own, each followed by {@code ret} and
 * called as a function. Without the plugin they are NOPs: a downcall's worth of time at each end
 * of a window. Off x86_64, or where the page cannot be made executable, they do nothing (the
 * plugin then finds no marks and its summary says so).
 */
final class InsnMark {
    private static final int PROT_READ = 1;
    private static final int PROT_WRITE = 2;
    private static final int PROT_EXEC = 4;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final long PAGE = 4096;
    private static final byte[] OPEN = {0x0f, 0x1f, (byte) 0x80, 'R', 'D', 'M', 'O', (byte) 0xc3};
    private static final byte[] CLOSE = {0x0f, 0x1f, (byte) 0x80, 'R', 'D', 'M', 'C', (byte) 0xc3};

    private static final MethodHandle OPEN_MARK;
    private static final MethodHandle CLOSE_MARK;

    static {
        MethodHandle open = null;
        MethodHandle close = null;
        if (System.getProperty("os.arch").equals("amd64")) {
            try {
                MemorySegment page = executablePage();
                Linker linker = Linker.nativeLinker();
                open = linker.downcallHandle(page, FunctionDescriptor.ofVoid(), Linker.Option.critical(false));
                close = linker.downcallHandle(page.asSlice(16), FunctionDescriptor.ofVoid(), Linker.Option.critical(false));
            } catch (Throwable t) {
                System.err.println("InsnMark: no window markers (" + t + ")");
            }
        }
        OPEN_MARK = open;
        CLOSE_MARK = close;
    }

    private InsnMark() { }

    /**
     * Makes the markers now, at a program's start: made at a window's first mark instead, their
     * downcall linking (hidden classes, tens of methods for C1 to compile afterwards) ran into the
     * window (s33-jit2: 30 of its 65 compilations).
     */
    static void prepare() {
        // the class initializer did the work
    }

    /** True if the markers were made (x86_64, an executable page): otherwise open/close do nothing. */
    static boolean available() {
        return OPEN_MARK != null && CLOSE_MARK != null;
    }

    static void open() {
        run(OPEN_MARK);
    }

    /**
     * Closes a window; with {@code INSN_MAPS} naming a directory, also copies this process's
     * {@code /proc/self/maps} there as {@code maps-PID.txt} (after the mark: outside the window),
     * which {@code benchmarks/insn_profile.py} needs to name the libraries of a profile's addresses.
     */
    static void close() {
        run(CLOSE_MARK);
        String dir = System.getenv("INSN_MAPS");
        if (dir != null && !dir.isEmpty()) {
            try {
                Files.copy(Path.of("/proc/self/maps"), Path.of(dir, "maps-" + ProcessHandle.current().pid() + ".txt"),
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                System.err.println("InsnMark: cannot copy /proc/self/maps to " + dir + ": " + e);
            }
        }
    }

    private static void run(MethodHandle mark) {
        if (mark == null) {
            return;
        }
        try {
            mark.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("window marker", t);
        }
    }

    /** One page with the two markers (at 0 and 16), mapped writable, written, then made read + exec. */
    private static MemorySegment executablePage() throws Throwable {
        Linker linker = Linker.nativeLinker();
        var libc = linker.defaultLookup();
        MethodHandle mmap = linker.downcallHandle(libc.findOrThrow("mmap"), FunctionDescriptor.of(ValueLayout.ADDRESS,
                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));
        MethodHandle mprotect = linker.downcallHandle(libc.findOrThrow("mprotect"), FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        MemorySegment page = (MemorySegment) mmap.invokeExact(MemorySegment.NULL, PAGE, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
        if (page.address() == -1L) {
            throw new IllegalStateException("mmap failed");
        }
        page = page.reinterpret(PAGE);   // never unmapped: the markers live as long as the process
        // Byte by byte, not MemorySegment.copy(MemorySegment.ofArray(...)): the first heap segment
        // of a process loads a second MemorySegment implementation, and C1 then throws away every
        // compiled method that assumed there was one (80 FFM methods deoptimized and compiled again
        // inside the window, in s33-jit1).
        for (int i = 0; i < OPEN.length; i++) {
            page.set(ValueLayout.JAVA_BYTE, i, OPEN[i]);
            page.set(ValueLayout.JAVA_BYTE, 16 + i, CLOSE[i]);
        }
        int rc = (int) mprotect.invokeExact(page, PAGE, PROT_READ | PROT_EXEC);
        if (rc != 0) {
            throw new IllegalStateException("mprotect failed");
        }
        return page;
    }
}
