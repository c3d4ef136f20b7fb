import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A pure-JDK workload for it/rig/jit-stress.sh ("churn"): keeps the JIT installing and patching
 * compiled code while every vCPU runs it. Threads (2 per processor) run a mix of JDK code
 * (formatting, regular expressions, streams, BigInteger, sorting, boxed collections) whose types
 * change over time, which keeps C1 and C2 compiling, deoptimizing and recompiling; they allocate
 * heavily, and a System.gc() every 2 s makes the collector arm every compiled method's entry
 * barrier (a write into the code) that the next call disarms. No native code, no rdmacm4j.
 *
 *   java JitChurn.java [SECONDS]   (default 60); prints "churn: N operations" and exits 0
 */
public class JitChurn {
    static final AtomicLong OPS = new AtomicLong();
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 60;
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        List<Function<Integer, Object>> tasks = List.of(
                i -> String.format("%08x-%s-%.3f", i, Integer.toString(i, 36), i / 7.0),
                i -> Pattern.compile("(\\d+)-(\\w+)").matcher(i + "-abc" + i).replaceAll("$2:$1"),
                i -> IntStream.range(0, 64 + i % 64).boxed().collect(Collectors.groupingBy(x -> x % 7, TreeMap::new, Collectors.counting())),
                i -> BigInteger.valueOf(i + 3L).modPow(BigInteger.valueOf(65537), BigInteger.valueOf(1_000_000_007L)),
                i -> { List<Integer> l = new ArrayList<>(); for (int k = 0; k < 200; k++) l.add(ThreadLocalRandom.current().nextInt()); l.sort(null); return l; },
                i -> { Map<String, Integer> m = new TreeMap<>(); for (int k = 0; k < 50; k++) m.merge("k" + (k * i % 13), k, Integer::sum); return m; },
                i -> new StringBuilder().append(i).append('/').append((double) i).reverse().toString().hashCode(),
                i -> List.of(i, i + 1L, "s" + i, (double) i).stream().map(Object::toString).collect(Collectors.joining(",")));
        int threads = 2 * Runtime.getRuntime().availableProcessors();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            workers.add(Thread.ofPlatform().name("churn-" + t).start(() -> {
                int i = seed;
                while (System.nanoTime() < end) {
                    // a window of the task list that moves over time: types and call sites change
                    for (int k = 0; k < 3; k++) {
                        sink = tasks.get((i / 5000 + seed + k) % tasks.size()).apply(i);
                    }
                    i++;
                    OPS.incrementAndGet();
                }
            }));
        }
        while (System.nanoTime() < end) {
            Thread.sleep(2000);
            System.gc();
        }
        for (Thread w : workers) {
            w.join();
        }
        System.out.println("churn: " + OPS.get() + " operations in " + seconds + " s on " + threads + " threads");
    }
}
