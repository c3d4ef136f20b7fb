package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmacm4j.verbs.cm.CmEventType;
import org.rdmacm4j.verbs.cm.McJoinFlag;
import org.rdmacm4j.verbs.cm.PortSpace;
import org.rdmacm4j.verbs.ibv.Access;
import org.rdmacm4j.verbs.ibv.AsyncEventType;
import org.rdmacm4j.verbs.ibv.Mtu;
import org.rdmacm4j.verbs.ibv.PortAttributes;
import org.rdmacm4j.verbs.ibv.PortState;
import org.rdmacm4j.verbs.ibv.QpAttrMask;
import org.rdmacm4j.verbs.ibv.QpState;
import org.rdmacm4j.verbs.ibv.QpType;
import org.rdmacm4j.verbs.ibv.SendFlags;
import org.rdmacm4j.verbs.ibv.WcFlags;
import org.rdmacm4j.verbs.ibv.WcOpcode;
import org.rdmacm4j.verbs.ibv.WcStatus;
import org.rdmacm4j.verbs.ibv.WrOpcode;

/**
 * The bindings against the installed headers: a C program generated from the Java side's own
 * lists ({@link Layouts#all()}, every enum constant, every flag field, every errno name) is
 * compiled with gcc and run; every sizeof, _Alignof, offsetof, member size and constant value
 * it prints must equal the Java one. A mismatch fails with the name and both values.
 */
class LayoutConformanceTest {

    /** C name to the Java value, in a stable order. */
    static Map<String, Long> javaConstants() {
        Map<String, Long> c = new LinkedHashMap<>();
        addEnum(c, CmEventType.values(), CmEventType::cName, CmEventType::value);
        addEnum(c, PortSpace.values(), PortSpace::cName, PortSpace::value);
        addEnum(c, WcStatus.values(), WcStatus::cName, WcStatus::value);
        addEnum(c, WcOpcode.values(), WcOpcode::cName, WcOpcode::value);
        addEnum(c, WrOpcode.values(), WrOpcode::cName, WrOpcode::value);
        addEnum(c, QpState.values(), QpState::cName, QpState::value);
        addEnum(c, QpType.values(), QpType::cName, QpType::value);
        addEnum(c, Mtu.values(), Mtu::cName, Mtu::value);
        addEnum(c, PortState.values(), PortState::cName, PortState::value);
        addEnum(c, AsyncEventType.values(), AsyncEventType::cName, AsyncEventType::value);
        addFlags(c, Access.class, "IBV_ACCESS_", "ALL_REMOTE");
        addFlags(c, SendFlags.class, "IBV_SEND_");
        addFlags(c, WcFlags.class, "IBV_WC_");
        addFlags(c, QpAttrMask.class, "IBV_QP_");
        c.put("IBV_LINK_LAYER_ETHERNET", (long) PortAttributes.LINK_LAYER_ETHERNET);
        c.put("IBV_LINK_LAYER_INFINIBAND", (long) PortAttributes.LINK_LAYER_INFINIBAND);
        c.put("IBV_ACCESS_OPTIONAL_RANGE", (long) IbvLib.ACCESS_OPTIONAL_RANGE);
        c.put("(long long)(intptr_t)__VERBS_ABI_IS_EXTENDED", IbvLib.VERBS_ABI_IS_EXTENDED);
        c.put("IBV_SRQ_MAX_WR", (long) IbvLib.IBV_SRQ_MAX_WR);
        c.put("IBV_SRQ_LIMIT", (long) IbvLib.IBV_SRQ_LIMIT);
        c.put("RDMA_OPTION_ID", (long) CmLib.RDMA_OPTION_ID);
        c.put("RDMA_OPTION_ID_TOS", (long) CmLib.RDMA_OPTION_ID_TOS);
        c.put("RDMA_OPTION_ID_REUSEADDR", (long) CmLib.RDMA_OPTION_ID_REUSEADDR);
        c.put("RDMA_OPTION_ID_AFONLY", (long) CmLib.RDMA_OPTION_ID_AFONLY);
        c.put("RDMA_OPTION_ID_ACK_TIMEOUT", (long) CmLib.RDMA_OPTION_ID_ACK_TIMEOUT);
        c.put("RDMA_UDP_QKEY", (long) CmLib.RDMA_UDP_QKEY);
        c.put("RDMA_CM_JOIN_MC_ATTR_ADDRESS", (long) CmLib.RDMA_CM_JOIN_MC_ATTR_ADDRESS);
        c.put("RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS", (long) CmLib.RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS);
        addEnum(c, McJoinFlag.values(), McJoinFlag::cName, McJoinFlag::value);
        c.put("AF_INET", (long) Sockaddrs.AF_INET);
        c.put("AF_INET6", (long) Sockaddrs.AF_INET6);
        c.put("F_GETFL", (long) Libc.F_GETFL);
        c.put("F_SETFL", (long) Libc.F_SETFL);
        c.put("O_NONBLOCK", (long) Libc.O_NONBLOCK);
        c.put("POLLIN", (long) Libc.POLLIN);
        c.put("EINTR", (long) Libc.EINTR);
        c.put("EAGAIN", (long) Libc.EAGAIN);
        c.put("EPOLLIN", (long) SysLib.EPOLLIN);
        c.put("EPOLLERR", (long) SysLib.EPOLLERR);
        c.put("EPOLLHUP", (long) SysLib.EPOLLHUP);
        c.put("EPOLL_CTL_ADD", (long) SysLib.EPOLL_CTL_ADD);
        c.put("EPOLL_CTL_DEL", (long) SysLib.EPOLL_CTL_DEL);
        c.put("EPOLL_CLOEXEC", (long) SysLib.EPOLL_CLOEXEC);
        c.put("EFD_NONBLOCK", (long) SysLib.EFD_NONBLOCK);
        c.put("EFD_CLOEXEC", (long) SysLib.EFD_CLOEXEC);
        ErrnoNames.all().forEach((n, name) -> c.put(name, (long) n));
        return c;
    }

    private static <E> void addEnum(Map<String, Long> c, E[] values, Function<E, String> name, ToIntFunction<E> value) {
        for (E e : values) {
            c.put(name.apply(e), (long) value.applyAsInt(e));
        }
    }

    private static void addFlags(Map<String, Long> c, Class<?> holder, String prefix, String... skip) {
        for (Field f : holder.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class && !List.of(skip).contains(f.getName())) {
                try {
                    c.put(prefix + f.getName(), (long) f.getInt(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    static List<CStruct> structs() {
        List<CStruct> all = new ArrayList<>(Layouts.all());
        all.add(Libc.POLLFD);
        all.add(SysLib.EPOLL_EVENT);
        return all;
    }

    static String program() {
        return program(structs(), javaConstants());
    }

    static String program(List<CStruct> structs, Map<String, Long> constants) {
        StringBuilder c = new StringBuilder("""
                #include <errno.h>
                #include <fcntl.h>
                #include <poll.h>
                #include <stddef.h>
                #include <stdint.h>
                #include <stdio.h>
                #include <sys/epoll.h>
                #include <sys/eventfd.h>
                #include <sys/socket.h>
                #include <netinet/in.h>
                #include <infiniband/verbs.h>
                #include <rdma/rdma_cma.h>
                #define F(T, M) printf("F|%s|%s|%zu|%zu\\n", #T, #M, offsetof(T, M), sizeof(((T *)0)->M))
                int main(void) {
                """);
        for (CStruct s : structs) {
            c.append("  printf(\"S|%s|%zu|%zu\\n\", \"").append(s.cName()).append("\", sizeof(").append(s.cName())
                    .append("), _Alignof(").append(s.cName()).append("));\n");
            for (CStruct.Field f : s.fields()) {
                if (!f.path().startsWith("_unused")) {
                    c.append("  F(").append(s.cName()).append(", ").append(f.path()).append(");\n");
                }
            }
        }
        for (String name : constants.keySet()) {
            c.append("  printf(\"C|%s|%lld\\n\", \"").append(name.replace("\"", "\\\"")).append("\", (long long)(")
                    .append(name).append("));\n");
        }
        return c.append("  return 0;\n}\n").toString();
    }

    static List<String> output;

    @BeforeAll
    static void compileAndRun(@TempDir Path dir) throws IOException, InterruptedException {
        output = compileAndRun(dir, program());
    }

    static List<String> compileAndRun(Path dir, String program) throws IOException, InterruptedException {
        Path src = dir.resolve("layouts.c");
        Path exe = dir.resolve("layouts");
        Files.writeString(src, program);
        Process gcc = new ProcessBuilder("gcc", "-std=gnu11", "-Wall", "-Werror", "-o", exe.toString(), src.toString())
                .redirectErrorStream(true).start();
        String gccOut = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gcc.waitFor(60, TimeUnit.SECONDS)).as("gcc finished").isTrue();
        if (gcc.exitValue() != 0) {
            fail("gcc failed on the generated program " + src + " (install gcc, libibverbs-dev, librdmacm-dev):\n"
                    + gccOut);
        }
        Process run = new ProcessBuilder(exe.toString()).redirectErrorStream(true).start();
        String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(run.exitValue()).as(out).isZero();
        return out.lines().toList();
    }

    @Test
    void everyStructSizeAlignmentMemberOffsetAndMemberSizeMatchesGcc() {
        List<String> mismatches = new ArrayList<>();
        int checked = compareLayouts(structs(), output, mismatches);
        System.out.println("layout conformance: " + checked + " structs and members checked");
        assertThat(checked).isGreaterThan(300);
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " layout mismatches (Java vs gcc):\n" + String.join("\n", mismatches));
        }
    }

    /** The checker itself: a deliberately wrong transcription must be reported with both values. */
    @Test
    void aWrongTranscriptionIsReportedWithTheNameAndBothValues(@TempDir Path dir) throws Exception {
        CStruct wrong = CStruct.struct("struct ibv_sge").field("addr", java.lang.foreign.ValueLayout.JAVA_LONG)
                .field("lkey", java.lang.foreign.ValueLayout.JAVA_INT)
                .field("length", java.lang.foreign.ValueLayout.JAVA_INT).build();
        List<String> out = compileAndRun(dir, program(List.of(wrong), Map.of("IBV_SEND_INLINE", 4L)));
        List<String> mismatches = new ArrayList<>();
        compareLayouts(List.of(wrong), out, mismatches);
        assertThat(mismatches).containsExactlyInAnyOrder(
                "  offsetof(struct ibv_sge, lkey): Java 8, C 12",
                "  offsetof(struct ibv_sge, length): Java 12, C 8");
        List<String> constants = new ArrayList<>();
        for (String line : out) {
            String[] p = line.split("\\|");
            if (p[0].equals("C")) {
                compare(constants, p[1], 4L, Long.parseLong(p[2]));
            }
        }
        assertThat(constants).containsExactly("  IBV_SEND_INLINE: Java 4, C 8");
    }

    static int compareLayouts(List<CStruct> structs, List<String> lines, List<String> mismatches) {
        Map<String, CStruct> byName = new LinkedHashMap<>();
        structs.forEach(s -> byName.put(s.cName(), s));
        int checked = 0;
        for (String line : lines) {
            String[] p = line.split("\\|");
            if (p[0].equals("S")) {
                CStruct s = byName.get(p[1]);
                checked++;
                compare(mismatches, "sizeof(" + p[1] + ")", s.size(), Long.parseLong(p[2]));
                compare(mismatches, "_Alignof(" + p[1] + ")", s.alignment(), Long.parseLong(p[3]));
            } else if (p[0].equals("F")) {
                CStruct s = byName.get(p[1]);
                CStruct.Field f = s.fields().stream().filter(x -> x.path().equals(p[2])).findFirst().orElseThrow();
                checked++;
                compare(mismatches, "offsetof(" + p[1] + ", " + p[2] + ")", f.offset(), Long.parseLong(p[3]));
                compare(mismatches, "sizeof(" + p[1] + "." + p[2] + ")", f.size(), Long.parseLong(p[4]));
            }
        }
        return checked;
    }

    @Test
    void everyEnumConstantFlagAndErrnoMatchesTheHeaders() {
        Map<String, Long> expected = javaConstants();
        List<String> mismatches = new ArrayList<>();
        int checked = 0;
        for (String line : output) {
            String[] p = line.split("\\|");
            if (p[0].equals("C")) {
                checked++;
                compare(mismatches, p[1], expected.get(p[1]), Long.parseLong(p[2]));
            }
        }
        System.out.println("constant conformance: " + checked + " constants checked");
        assertThat(checked).isEqualTo(expected.size());
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " constant mismatches (Java vs C):\n" + String.join("\n", mismatches));
        }
    }

    private static void compare(List<String> mismatches, String what, long java, long c) {
        if (java != c) {
            mismatches.add("  " + what + ": Java " + java + ", C " + c);
        }
    }
}
