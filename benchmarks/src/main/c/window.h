/*
 * A measurement window over a run of connections, for issue 21's warm figures (cm_event_loop warm;
 * CmBench's Window.java reads the same files the same way, so C and Java are measured alike):
 *
 *   - the whole process's CPU time, user and sys: /proc/self/stat fields 14 and 15 (clock ticks,
 *     USER_HZ = 100 on Linux; over a window of 1,000 connections that is fine enough);
 *   - per thread, the time on a CPU, the time runnable but waiting for one (the run-queue wait:
 *     "time nobody runs") and the number of times it ran: /proc/self/task/T/schedstat (ns);
 *   - the file descriptors that point to /dev/infiniband (which write(2) is a CM or verbs command,
 *     for reading a perf record of the window);
 *   - perf switched on at the start and off at the end, when BENCH_PERF_CTL and BENCH_PERF_ACK
 *     name the control and ack fifos of a perf stat|record started with -D -1 --control.
 *
 * Prints, at window_close, per connection of the window:
 *   window connections W wall_us X cpu_user_us U cpu_sys_us S run_us R runq_us Q
 *   thread COMM TID run_us R runq_us Q slices C
 * A wait on perf's ack has a deadline (10 s: then the program says so and goes on).
 * Each end also executes a marker NOP that insn_count.c (the QEMU plugin of benchmarks/insn-count.sh)
 * recognises: the guest's instruction counts at the window's two ends.
 */
#ifndef CM_WINDOW_H
#define CM_WINDOW_H

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WINDOW_MAX_THREADS 64

/* nopl disp32(%rax) with the displacement "RDMO" / "RDMC": a NOP unless insn_count.c is loaded. */
#if defined(__x86_64__)
#define WINDOW_INSN_MARK(kind) __asm__ volatile(".byte 0x0f, 0x1f, 0x80, 0x52, 0x44, 0x4d, %c0" :: "i"(kind) : "memory")
#else
#define WINDOW_INSN_MARK(kind) do { } while (0)
#endif

struct window_thread {
	int tid;
	char comm[32];
	unsigned long long run_ns, wait_ns, slices;
};

struct window {
	double start_s;
	unsigned long long utime, stime;
	int nthreads;
	struct window_thread threads[WINDOW_MAX_THREADS];
};

static double window_now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* utime and stime of the whole process (ticks) from /proc/self/stat */
static void window_stat(unsigned long long *utime, unsigned long long *stime)
{
	char buf[2048], *p;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n;
	*utime = *stime = 0;
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');   /* comm may hold spaces; the fields follow its closing parenthesis */
	if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", utime, stime) != 2)
		*utime = *stime = 0;
}

static int window_threads(struct window_thread *out)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < WINDOW_MAX_THREADS) {
		char path[300];
		FILE *f;
		if (e->d_name[0] == '.')
			continue;
		out[n].tid = atoi(e->d_name);
		out[n].run_ns = out[n].wait_ns = out[n].slices = 0;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%llu %llu %llu", &out[n].run_ns, &out[n].wait_ns, &out[n].slices) != 3)
				out[n].run_ns = out[n].wait_ns = out[n].slices = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		strcpy(out[n].comm, "?");
		if ((f = fopen(path, "r"))) {
			if (fgets(out[n].comm, sizeof(out[n].comm), f))
				out[n].comm[strcspn(out[n].comm, "\n")] = 0;
			fclose(f);
		}
		for (char *c = out[n].comm; *c; c++)
			if (*c == ' ')
				*c = '_';
		n++;
	}
	closedir(d);
	return n;
}

/* Sends "enable" or "disable" to perf's control fifo and waits (10 s at most) for its "ack". */
static void window_perf(const char *command)
{
	const char *ctl = getenv("BENCH_PERF_CTL"), *ack = getenv("BENCH_PERF_ACK");
	char buf[8];
	int fd;
	struct pollfd p;
	if (!ctl || !ack || !*ctl || !*ack)
		return;
	fd = open(ctl, O_WRONLY);
	if (fd < 0 || write(fd, command, strlen(command)) < 0)
		fprintf(stderr, "window: cannot write perf's control fifo %s\n", ctl);
	if (fd >= 0)
		close(fd);
	fd = open(ack, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "window: cannot open perf's ack fifo %s\n", ack);
		return;
	}
	p.fd = fd;
	p.events = POLLIN;
	if (poll(&p, 1, 10000) != 1 || read(fd, buf, sizeof(buf)) <= 0)
		fprintf(stderr, "window: no ack from perf for %s", command);
	close(fd);
}

static void window_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[300], target[256];
		ssize_t n;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strstr(target, "/dev/infiniband/"))
			printf("fd %s %s\n", e->d_name, target);
	}
	closedir(d);
}

static void window_open(struct window *w)
{
	fflush(stdout);
	window_fds();
	window_stat(&w->utime, &w->stime);
	w->nthreads = window_threads(w->threads);
	window_perf("enable\n");
	WINDOW_INSN_MARK('O');
	w->start_s = window_now_s();
	printf("window_start_monotonic_ns %.0f\n", w->start_s * 1e9);
}

static void window_close(struct window *w, long connections)
{
	struct window_thread now[WINDOW_MAX_THREADS];
	unsigned long long utime, stime, run = 0, wait = 0;
	double wall = window_now_s() - w->start_s, per = connections;
	int n, i, j;
	WINDOW_INSN_MARK('C');
	window_perf("disable\n");
	window_stat(&utime, &stime);
	n = window_threads(now);
	printf("window_end_monotonic_ns %.0f\n", (w->start_s + wall) * 1e9);
	for (i = 0; i < n; i++) {
		struct window_thread before = { 0 };
		for (j = 0; j < w->nthreads; j++)
			if (w->threads[j].tid == now[i].tid)
				before = w->threads[j];
		run += now[i].run_ns - before.run_ns;
		wait += now[i].wait_ns - before.wait_ns;
		printf("thread %s %d run_us %.1f runq_us %.1f slices %.2f\n", now[i].comm, now[i].tid,
		       (now[i].run_ns - before.run_ns) / 1e3 / per, (now[i].wait_ns - before.wait_ns) / 1e3 / per,
		       (now[i].slices - before.slices) / per);
	}
	printf("window connections %ld wall_us %.1f cpu_user_us %.1f cpu_sys_us %.1f run_us %.1f runq_us %.1f\n",
	       connections, wall * 1e6 / per, (utime - w->utime) * 1e4 / per, (stime - w->stime) * 1e4 / per,
	       run / 1e3 / per, wait / 1e3 / per);
	fflush(stdout);
}

#endif
