/* The C baseline of DowncallBenchmark: the same call (ibv_wc_status_str through the PLT into
 * libibverbs.so.1), the same count per sample, timed with clock_gettime(CLOCK_MONOTONIC).
 * Usage: downcall_loop SAMPLES CALLS_PER_SAMPLE -> one "ns/call" figure per line. */
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

int main(int argc, char **argv) {
    int samples = argc > 1 ? atoi(argv[1]) : 10;
    long calls = argc > 2 ? atol(argv[2]) : 100000000L;
    volatile uintptr_t sink = 0;
    for (int s = 0; s < samples; s++) {
        uintptr_t acc = 0;
        double t0 = now_ns();
        for (long i = 0; i < calls; i++) {
            acc ^= (uintptr_t) ibv_wc_status_str((enum ibv_wc_status) (i & 15));
        }
        double t1 = now_ns();
        sink ^= acc;
        printf("%.4f\n", (t1 - t0) / (double) calls);
    }
    return sink == 42 ? 1 : 0;
}
