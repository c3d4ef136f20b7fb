package org.rdmacm4j.verbs.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every downcall handle of the bindings has its shapes' call sites linked by {@link CallSiteShapes}:
 * a fresh JVM that runs only {@code CallSiteShapes.link()} under the JDK's lambda-form trace must
 * resolve the {@code invokeExact} linker of each handle's basic type and of its raw call into the
 * native stub. A handle added with a new shape and no site fails here, naming it.
 */
class CallSiteShapesTest {

    /**
     * The child JVM: links the shapes' call sites, and nothing else before the line "sites N"; then
     * links the bindings and prints each handle's two linker signatures ("expect SIG HANDLE"). The
     * linking happens here, not in the test's JVM, whose other tests check what is not yet linked.
     */
    public static final class Main {
        public static void main(String[] args) throws IllegalAccessException {
            System.out.println("sites " + CallSiteShapes.link());
            linkerSignatures().forEach((sig, handles) -> System.out.println("expect " + sig + " " + handles));
        }
    }

    @Test
    void aFreshJvmLinksTheCallSiteOfEveryHandlesShape() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-Djava.lang.invoke.MethodHandle.TRACE_RESOLVE=true",
                "-cp", System.getProperty("java.class.path"), Main.class.getName())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        int sitesEnd = out.indexOf("sites ");
        assertThat(sitesEnd).as(out).isPositive();

        Set<String> resolved = new TreeSet<>();
        out.substring(0, sitesEnd).lines().filter(l -> l.contains("Invokers$Holder invokeExact_MT "))
                .forEach(l -> resolved.add(l.split(" ")[3]));
        TreeMap<String, String> expected = new TreeMap<>();
        out.lines().filter(l -> l.startsWith("expect ")).forEach(l -> {
            String[] f = l.split(" ", 3);
            expected.put(f[1], f[2]);
        });
        assertThat(expected).as("the bindings' handle shapes, ours and raw").hasSizeGreaterThanOrEqualTo(50);
        List<String> missing = new ArrayList<>();
        expected.forEach((sig, handles) -> {
            if (!resolved.contains(sig)) {
                missing.add(sig + " " + handles);
            }
        });
        assertThat(missing).as("handle shapes with no call site in CallSiteShapes (linker signature, handles)").isEmpty();
    }

    @Test
    void linkerSignaturesAreSpelledAsTheJdkTracesThem() {
        // Seen in the JDK's trace: strlen (ADDRESS)long -> L3_J, labs (long)long -> LJL_J; the raw call
        // into ibv_create_cq's stub (a capturing handle) at a first connection -> LJ3IJJIL_J.
        assertThat(linkerSignature(MethodType.methodType(long.class, Object.class))).isEqualTo("L3_J");
        assertThat(linkerSignature(MethodType.methodType(long.class, long.class))).isEqualTo("LJL_J");
        assertThat(linkerSignature(MethodType.methodType(void.class, Object.class, int.class))).isEqualTo("LLIL_V");
        assertThat(linkerSignature(MethodType.methodType(int.class, Object.class, Object.class, Object.class,
                Object.class, int.class))).isEqualTo("L5IL_I");
        assertThat(linkerSignature(rawType(MethodType.methodType(Object.class, Object.class, Object.class, int.class,
                Object.class, Object.class, int.class)))).isEqualTo("LJ3IJJIL_J");
    }

    /** The invokeExact linker signature of every static MethodHandle of the bindings, with the handles. */
    private static TreeMap<String, List<String>> linkerSignatures() throws IllegalAccessException {
        TreeMap<String, List<String>> m = new TreeMap<>();
        for (Class<?> c : Linking.bindingClasses()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getType() == MethodHandle.class && Modifier.isStatic(f.getModifiers())) {
                    f.setAccessible(true);
                    MethodHandle h = (MethodHandle) f.get(null);
                    if (h != null) {
                        String name = c.getSimpleName() + "." + f.getName();
                        m.computeIfAbsent(linkerSignature(h.type()), k -> new ArrayList<>()).add(name);
                        m.computeIfAbsent(linkerSignature(rawType(h.type())), k -> new ArrayList<>()).add(name + " (raw)");
                    }
                }
            }
        }
        return m;
    }

    /**
     * The type of the JDK's call into the native stub behind a downcall handle of type t (JDK 25): the
     * target's address, then each argument with addresses (every reference type here is a
     * MemorySegment) as long; an address result as long.
     */
    private static MethodType rawType(MethodType t) {
        MethodType r = MethodType.methodType(t.returnType().isPrimitive() ? t.returnType() : long.class, long.class);
        for (Class<?> p : t.parameterList()) {
            r = r.appendParameterTypes(p.isPrimitive() ? p : long.class);
        }
        return r;
    }

    /**
     * The JDK's short basic-type signature of the linker of an invokeExact call site of type t: the
     * handle, the arguments and the appended MethodType, '_', the return; a run of three or more of
     * one letter written as the letter and its count.
     */
    private static String linkerSignature(MethodType t) {
        StringBuilder raw = new StringBuilder("L");
        for (Class<?> c : t.parameterList()) {
            raw.append(basic(c));
        }
        raw.append('L');
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < raw.length(); ) {
            int j = i;
            while (j < raw.length() && raw.charAt(j) == raw.charAt(i)) {
                j++;
            }
            s.append(raw.charAt(i));
            if (j - i >= 3) {
                s.append(j - i);
            } else if (j - i == 2) {
                s.append(raw.charAt(i));
            }
            i = j;
        }
        return s.append('_').append(basic(t.returnType())).toString();
    }

    private static char basic(Class<?> c) {
        if (!c.isPrimitive()) {
            return 'L';
        }
        if (c == long.class) {
            return 'J';
        }
        if (c == float.class) {
            return 'F';
        }
        if (c == double.class) {
            return 'D';
        }
        return c == void.class ? 'V' : 'I';
    }
}
