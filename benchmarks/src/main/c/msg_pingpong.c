/*
 * The C side of the message round-trip benchmark, built and run by benchmarks/run-all.sh in the
 * guest (rdmacm4j's side: CmBench pingpong, same wire, either role against either):
 *
 *   msg_pingpong server BIND PORT SIZE
 *     Listens on BIND:PORT, accepts one RC connection (no private data) and echoes every message
 *     back from the buffer it arrived in: RECV completion of buffer i -> SEND from buffer i ->
 *     its SEND completion -> buffer i re-posted. Exits 0 when the client disconnects.
 *
 *   msg_pingpong client SERVER BIND PORT SIZE WARMUP COUNT
 *     Connects from BIND to SERVER:PORT, then WARMUP untimed and COUNT timed round trips, one at a
 *     time: a SIZE-byte SEND answered by the server's SIZE-byte SEND into a pre-posted RECV. A
 *     round trip is timed with clock_gettime(CLOCK_MONOTONIC) from just before ibv_post_send to the
 *     moment both its SEND completion and the reply's RECV completion have been polled (the next
 *     round trip needs both). Prints
 *       rtt_us min A p50 B p99 C max D     (nearest-rank percentiles of the COUNT round trips)
 *       round_trips/s R                    (COUNT / the timed loop's wall time)
 *       wakeups_per_round_trip W           (completion-channel wake-ups that polled a completion,
 *                                           per timed round trip: 1 if SEND and RECV completions
 *                                           came together, 2 if apart)
 *
 * Completion handling is event-driven, as rping and ucmatose do it and as rdmacm4j's completion
 * poller does (one thread, epoll over the completion channels): a completion channel per CQ,
 * ibv_req_notify_cq, wait for the channel's fd (poll(2), so the wait is bounded),
 * ibv_get_cq_event + ibv_ack_cq_events, re-arm, then ibv_poll_cq until the CQ is empty. No busy
 * polling. Every wait has a deadline (WAIT_MS without an event: exit 3); a failure exits non-zero.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 60000
#define SERVER_BUFFERS 4   /* the client has one message in flight; a few spare receives are enough */
#define RECV_ID 0x10000ULL /* wr_id of a receive: RECV_ID + buffer index; a send's: the buffer index */

static struct rdma_event_channel *cm_channel;
static struct ibv_comp_channel *comp_channel;
static struct ibv_cq *cq;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static char *buffers;
static int size, nbuffers;

static void fail(const char *what)
{
	fprintf(stderr, "msg_pingpong: %s: %s\n", what, errno ? strerror(errno) : "failed");
	exit(1);
}

static void timeout_exit(const char *what)
{
	fprintf(stderr, "msg_pingpong: no %s within %d ms\n", what, WAIT_MS);
	exit(3);
}

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Waits (bounded) for fd to become readable. */
static void await_fd(int fd, const char *what)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;
	do {
		n = poll(&p, 1, WAIT_MS);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		fail("poll");
	if (n == 0)
		timeout_exit(what);
}

/* The next CM event, which must be of type expected (bounded wait). */
static struct rdma_cm_event *cm_event(enum rdma_cm_event_type expected)
{
	struct rdma_cm_event *e;
	await_fd(cm_channel->fd, rdma_event_str(expected));
	if (rdma_get_cm_event(cm_channel, &e))
		fail("rdma_get_cm_event");
	if (e->event != expected) {
		fprintf(stderr, "msg_pingpong: %s (status %d) while waiting for %s\n", rdma_event_str(e->event),
			e->status, rdma_event_str(expected));
		exit(1);
	}
	return e;
}

static void resolve(const char *host, const char *port, struct sockaddr_storage *out)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *ai;
	if (getaddrinfo(host, port, &hints, &ai)) {
		fprintf(stderr, "msg_pingpong: cannot resolve %s\n", host);
		exit(2);
	}
	memcpy(out, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
}

/* CQ, QP and buffers on the id's device: the CQ has room for every receive and send at once. */
static void setup_qp(struct rdma_cm_id *id, int buffer_count)
{
	nbuffers = buffer_count;
	pd = ibv_alloc_pd(id->verbs);
	comp_channel = ibv_create_comp_channel(id->verbs);
	if (!pd || !comp_channel)
		fail("ibv_alloc_pd / ibv_create_comp_channel");
	cq = ibv_create_cq(id->verbs, 2 * nbuffers + 2, NULL, comp_channel, 0);
	if (!cq || ibv_req_notify_cq(cq, 0))
		fail("ibv_create_cq / ibv_req_notify_cq");
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = nbuffers, .max_recv_wr = nbuffers, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	if (rdma_create_qp(id, pd, &attr))
		fail("rdma_create_qp");
	buffers = aligned_alloc(64, (size_t)nbuffers * ((size + 63) / 64 * 64));
	if (!buffers)
		fail("aligned_alloc");
	memset(buffers, 0x5a, (size_t)nbuffers * ((size + 63) / 64 * 64));
	mr = ibv_reg_mr(pd, buffers, (size_t)nbuffers * ((size + 63) / 64 * 64), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		fail("ibv_reg_mr");
}

static char *buffer(int i)
{
	return buffers + (size_t)i * ((size + 63) / 64 * 64);
}

static void post_recv(struct rdma_cm_id *id, int i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buffer(i), .length = size, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = RECV_ID + i, .sg_list = &sge, .num_sge = 1 }, *bad;
	if (ibv_post_recv(id->qp, &wr, &bad))
		fail("ibv_post_recv");
}

static void post_send(struct rdma_cm_id *id, int i, int length)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buffer(i), .length = length, .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	if (ibv_post_send(id->qp, &wr, &bad))
		fail("ibv_post_send");
}

/*
 * Waits (bounded) for the CQ's next event, re-arms it and polls it empty into wc; returns the
 * number polled (0 is possible: a completion may have been polled after an earlier re-arm).
 * When the CM channel is given, a CM event (the peer's disconnect) ends the wait too: returns -1.
 */
static int await_completions(struct ibv_wc *wc, int max, int watch_cm)
{
	struct pollfd p[2] = { { .fd = comp_channel->fd, .events = POLLIN }, { .fd = cm_channel->fd, .events = POLLIN } };
	int n;
	do {
		n = poll(p, watch_cm ? 2 : 1, WAIT_MS);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		fail("poll");
	if (n == 0)
		timeout_exit("completion");
	if (!(p[0].revents & POLLIN))
		return -1;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	if (ibv_get_cq_event(comp_channel, &ev_cq, &ev_ctx))
		fail("ibv_get_cq_event");
	ibv_ack_cq_events(ev_cq, 1);
	if (ibv_req_notify_cq(cq, 0))
		fail("ibv_req_notify_cq");
	int total = 0, got;
	while (total < max && (got = ibv_poll_cq(cq, max - total, wc + total)) > 0)
		total += got;
	if (got < 0)
		fail("ibv_poll_cq");
	for (int i = 0; i < total; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "msg_pingpong: work completion %s (wr_id %llu)\n", ibv_wc_status_str(wc[i].status),
				(unsigned long long)wc[i].wr_id);
			exit(1);
		}
	}
	return total;
}

static int positive(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v < 1 || v > (1 << 30)) {
		fprintf(stderr, "msg_pingpong: expected a positive number, was %s\n", s);
		exit(2);
	}
	return (int)v;
}

static int server(const char *bind, const char *port)
{
	struct rdma_cm_id *listen_id, *id;
	struct sockaddr_storage addr;
	resolve(bind, port, &addr);
	if (rdma_create_id(cm_channel, &listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(listen_id, (struct sockaddr *)&addr) || rdma_listen(listen_id, 1))
		fail("rdma_create_id / rdma_bind_addr / rdma_listen");
	printf("msg_pingpong: listening on %s:%s\n", bind, port);
	fflush(stdout);
	struct rdma_cm_event *e = cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
	id = e->id;
	rdma_ack_cm_event(e);
	setup_qp(id, SERVER_BUFFERS);
	for (int i = 0; i < nbuffers; i++)   /* posted before the accept: the first message never waits */
		post_recv(id, i);
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
					 .rnr_retry_count = 7 };
	if (rdma_accept(id, &param))
		fail("rdma_accept");
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_ESTABLISHED));
	struct ibv_wc wc[2 * SERVER_BUFFERS];
	long echoed = 0;
	for (;;) {
		int n = await_completions(wc, 2 * SERVER_BUFFERS, 1);
		if (n < 0)
			break;   /* a CM event: the client's disconnect */
		for (int i = 0; i < n; i++) {
			if (wc[i].opcode == IBV_WC_RECV) {
				post_send(id, (int)(wc[i].wr_id - RECV_ID), wc[i].byte_len);
				echoed++;
			} else {
				post_recv(id, (int)wc[i].wr_id);
			}
		}
	}
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_DISCONNECTED));
	printf("msg_pingpong: echoed %ld messages\n", echoed);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	rdma_destroy_id(id);
	rdma_destroy_id(listen_id);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least p of the samples at or below it. */
static double percentile(const double *sorted, int n, double p)
{
	int rank = (int)(p * n + 0.999999);
	if (rank < 1)
		rank = 1;
	return sorted[rank > n ? n - 1 : rank - 1];
}

static int client(const char *srv, const char *bind, const char *port, int warmup, int count)
{
	struct rdma_cm_id *id;
	struct sockaddr_storage dst, src;
	resolve(srv, port, &dst);
	resolve(bind, "0", &src);
	if (rdma_create_id(cm_channel, &id, NULL, RDMA_PS_TCP))
		fail("rdma_create_id");
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&dst, 2000))
		fail("rdma_resolve_addr");
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 2000))
		fail("rdma_resolve_route");
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_ROUTE_RESOLVED));
	setup_qp(id, 2);   /* buffer 0 sends, buffer 1 receives */
	post_recv(id, 1);
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
					 .rnr_retry_count = 7 };
	if (rdma_connect(id, &param))
		fail("rdma_connect");
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_ESTABLISHED));
	double *rtt = malloc(sizeof(double) * count);
	if (!rtt)
		fail("malloc");
	struct ibv_wc wc[4];
	double loop0 = 0;
	long wakeups = 0;
	for (int r = 0; r < warmup + count; r++) {
		if (r == warmup)
			loop0 = now_us();
		double t0 = now_us();
		post_send(id, 0, size);
		int sent = 0, replied = 0;
		while (!sent || !replied) {
			int n = await_completions(wc, 4, 0);
			if (n > 0 && r >= warmup)
				wakeups++;
			for (int i = 0; i < n; i++) {
				if (wc[i].opcode == IBV_WC_SEND) {
					sent = 1;
				} else if (wc[i].byte_len != (uint32_t)size) {
					fprintf(stderr, "msg_pingpong: reply of %u bytes, expected %d\n", wc[i].byte_len, size);
					return 1;
				} else {
					replied = 1;
					post_recv(id, 1);   /* before the next send: the next reply always finds it */
				}
			}
		}
		if (r >= warmup)
			rtt[r - warmup] = now_us() - t0;
	}
	double loop_s = (now_us() - loop0) / 1e6;
	qsort(rtt, count, sizeof(double), cmp_double);
	printf("pingpong size %d warmup %d count %d\n", size, warmup, count);
	printf("rtt_us min %.2f p50 %.2f p99 %.2f max %.2f\n", rtt[0], percentile(rtt, count, 0.50),
	       percentile(rtt, count, 0.99), rtt[count - 1]);
	printf("round_trips/s %.1f\n", count / loop_s);
	printf("wakeups_per_round_trip %.2f\n", (double)wakeups / count);
	fflush(stdout);
	if (rdma_disconnect(id))
		fail("rdma_disconnect");
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_DISCONNECTED));
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	rdma_destroy_id(id);
	return 0;
}

static void open_cm_channel(void)
{
	cm_channel = rdma_create_event_channel();
	if (!cm_channel)
		fail("rdma_create_event_channel");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the arguments are checked before any native call */
	if (argc == 5 && !strcmp(argv[1], "server")) {
		size = positive(argv[4]);
		open_cm_channel();
		return server(argv[2], argv[3]);
	}
	if (argc == 8 && !strcmp(argv[1], "client")) {
		size = positive(argv[5]);
		char *end;
		long warmup = strtol(argv[6], &end, 10);
		int count = positive(argv[7]);
		if (*end || warmup < 0 || warmup > (1 << 30)) {
			fprintf(stderr, "msg_pingpong: WARMUP must be a number >= 0, was %s\n", argv[6]);
			return 2;
		}
		open_cm_channel();
		return client(argv[2], argv[3], argv[4], (int)warmup, count);
	}
	fprintf(stderr, "usage: msg_pingpong server BIND PORT SIZE | client SERVER BIND PORT SIZE WARMUP COUNT\n");
	return 2;
}
