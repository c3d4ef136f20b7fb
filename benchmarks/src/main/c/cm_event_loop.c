/*
 * The C side of two CM benchmarks, built and run by benchmarks/run-all.sh in the guest:
 *
 *   cm_event_loop storm SERVER CLIENT PORT N
 *     One process, one event channel (non-blocking) watched by epoll and drained to EAGAIN on
 *     every wake-up: a listener on SERVER:PORT and N RC connections from CLIENT to it, all started
 *     at once (resolve addr -> resolve route -> create QP + connect; the listener side creates a
 *     QP and accepts), then all disconnected by the client, every id and QP destroyed on its
 *     DISCONNECTED event. Prints "events E seconds S events/s R": every CM event of both sides,
 *     from the first rdma_create_id to the last destroy; and "storm n N setup_s S teardown_s T":
 *     the first create id to the last client ESTABLISHED, then the first disconnect to the last destroy.
 *
 *   cm_event_loop latency SERVER CLIENT PORT K
 *     The same loop, one connection at a time, K times: prints "latency_us I T" per connection,
 *     T = rdma_create_id of the client id to its ESTABLISHED event (I = 0 is the cold one).
 *
 *   cm_event_loop warm SERVER CLIENT PORT K FROM N
 *     Issue 21's warm figures, one process: K lone connections as in latency (latency_us per
 *     connection), then a storm of N set up and torn down in the same, warm process. Over the
 *     window of connections FROM..K (1-based) it prints the whole process's CPU time (user, sys:
 *     /proc/self/stat) and its threads' run and run-queue wait (/proc/self/task/T/schedstat), per
 *     connection ("window ..." and "thread ..." lines, window.h), and it switches a perf
 *     counter on and off around the window when BENCH_PERF_CTL / BENCH_PERF_ACK name perf's control
 *     fifos (perf stat|record --control fifo:CTL,ACK -D -1); BENCH_WINDOW_STORM=1 puts the window
 *     around the storm instead (=setup or =teardown: around that half of it only). A window of at most 5 lone connections also prints each one's
 *     monotonic timestamps ("mark I connect_call_ns A connected_ns B close_call_ns B closed_ns C"),
 *     as CmBench does, for the timeline. The storm prints
 *     "storm n N setup_s S teardown_s T": first create id to the last client ESTABLISHED, then
 *     the first disconnect to the last destroy.
 *
 * The QP capabilities are cmtime's (1 send WR, 1 recv WR, 1 SGE each), as in rdmacm4j's twin.
 * Every wait has a deadline (60 s without any event: exit 3).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "window.h"

enum side { CLIENT_SIDE, SERVER_SIDE };

struct conn {
	enum side side;
	int index;
	struct timespec start;
};

static struct rdma_event_channel *channel;
static struct sockaddr_in server_addr, client_addr;
static long events, established, disconnected;
static int epfd, print_latency;
static struct rdma_cm_id **clients;   /* client ids by index, for the disconnects */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "cm_event_loop: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void create_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	if (rdma_create_qp(id, NULL, &attr))
		die("rdma_create_qp");
}

static void start_connect(int index)
{
	struct rdma_cm_id *id;
	struct conn *c = calloc(1, sizeof(*c));
	c->side = CLIENT_SIDE;
	c->index = index;
	clock_gettime(CLOCK_MONOTONIC, &c->start);
	if (rdma_create_id(channel, &id, c, RDMA_PS_TCP))
		die("rdma_create_id");
	clients[index] = id;
	if (rdma_resolve_addr(id, (struct sockaddr *)&client_addr, (struct sockaddr *)&server_addr, 2000))
		die("rdma_resolve_addr");
}

static void destroy(struct rdma_cm_id *id)
{
	free(id->context);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

/* Handles one event; the id may be destroyed only after the event is acked. */
static void handle(struct rdma_cm_event *e, struct rdma_cm_id **to_destroy)
{
	struct rdma_cm_id *id = e->id;
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1, .retry_count = 7 };
	struct conn *c;

	switch (e->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(id, 2000))
			die("rdma_resolve_route");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		create_qp(id);
		if (rdma_connect(id, &param))
			die("rdma_connect");
		break;
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		c = calloc(1, sizeof(*c));
		c->side = SERVER_SIDE;
		id->context = c;
		create_qp(id);
		if (rdma_accept(id, &param))
			die("rdma_accept");
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c = id->context;
		if (c->side == CLIENT_SIDE) {
			established++;
			if (print_latency) {
				struct timespec t;
				clock_gettime(CLOCK_MONOTONIC, &t);
				printf("latency_us %d %.1f\n", c->index,
				       (t.tv_sec - c->start.tv_sec) * 1e6 + (t.tv_nsec - c->start.tv_nsec) / 1e3);
			}
		}
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		disconnected++;
		*to_destroy = id;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		fprintf(stderr, "cm_event_loop: unexpected event %s (status %d)\n", rdma_event_str(e->event), e->status);
		exit(1);
	}
}

/* epoll_wait, then drain the channel to EAGAIN; 60 s without an event is a failure. */
static void pump(void)
{
	struct epoll_event ev;
	int n = epoll_wait(epfd, &ev, 1, 60000);
	if (n < 0 && errno != EINTR)
		die("epoll_wait");
	if (n == 0) {
		fprintf(stderr, "cm_event_loop: no CM event for 60 s (established %ld, disconnected %ld)\n",
			established, disconnected);
		exit(3);
	}
	for (;;) {
		struct rdma_cm_event *e;
		struct rdma_cm_id *to_destroy = NULL;
		if (rdma_get_cm_event(channel, &e)) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			die("rdma_get_cm_event");
		}
		events++;
		handle(e, &to_destroy);
		rdma_ack_cm_event(e);
		if (to_destroy) {
			/* The client side disconnected first; the server side answers when it sees it. */
			if (((struct conn *)to_destroy->context)->side == SERVER_SIDE)
				rdma_disconnect(to_destroy);
			destroy(to_destroy);
		}
	}
}

static void address(struct sockaddr_in *a, const char *ip, int port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	if (inet_pton(AF_INET, ip, &a->sin_addr) != 1) {
		fprintf(stderr, "cm_event_loop: bad address %s\n", ip);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *listener;
	struct epoll_event ev = { .events = EPOLLIN };
	long n, i;
	int storm, warm;
	long from = 0, storm_n = 0;
	double t0, t1;

	warm = argc == 8 && !strcmp(argv[1], "warm");
	if (!warm && (argc != 6 || (strcmp(argv[1], "storm") && strcmp(argv[1], "latency")))) {
		fprintf(stderr, "usage: cm_event_loop storm|latency SERVER CLIENT PORT N | warm SERVER CLIENT PORT K FROM N\n");
		return 2;
	}
	storm = !strcmp(argv[1], "storm");
	n = atol(argv[5]);
	if (warm) {
		from = atol(argv[6]);
		storm_n = atol(argv[7]);
	}
	if (n < 1 || (warm && (from < 1 || from > n || storm_n < 1))) {
		fprintf(stderr, "cm_event_loop: N must be at least 1 (warm: 1 <= FROM <= K, N >= 1)\n");
		return 2;
	}
	address(&server_addr, argv[2], atoi(argv[4]));
	address(&client_addr, argv[3], 0);
	channel = rdma_create_event_channel();
	if (!channel)
		die("rdma_create_event_channel");
	if (fcntl(channel->fd, F_SETFL, fcntl(channel->fd, F_GETFL) | O_NONBLOCK))
		die("fcntl");
	epfd = epoll_create1(0);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, channel->fd, &ev))
		die("epoll");
	if (rdma_create_id(channel, &listener, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_bind_addr(listener, (struct sockaddr *)&server_addr) || rdma_listen(listener, 4096))
		die("listen");
	clients = calloc(n + storm_n, sizeof(*clients));

	t0 = now_s();
	if (storm) {
		double s1;
		for (i = 0; i < n; i++)
			start_connect(i);
		while (established < n)
			pump();
		s1 = now_s();
		for (i = 0; i < n; i++)
			if (rdma_disconnect(clients[i]))
				die("rdma_disconnect");
		while (disconnected < 2 * n)
			pump();
		printf("storm n %ld setup_s %.6f teardown_s %.6f\n", n, s1 - t0, now_s() - s1);
	} else {
		struct window w;
		const char *on_storm = getenv("BENCH_WINDOW_STORM");
		/* 1: the window spans the storm; 2: its setup only; 3: its teardown only */
		int window_on_storm = !on_storm ? 0 : !strcmp(on_storm, "1") ? 1 : !strcmp(on_storm, "setup") ? 2
				      : !strcmp(on_storm, "teardown") ? 3 : 0;
		int marks = warm && !window_on_storm && n - from + 1 <= 5;
		double m0 = 0, m1 = 0;
		print_latency = 1;
		for (i = 0; i < n; i++) {
			if (warm && !window_on_storm && i == from - 1)
				window_open(&w);
			m0 = now_s();
			start_connect(i);
			while (established < i + 1)
				pump();
			m1 = now_s();
			if (rdma_disconnect(clients[i]))
				die("rdma_disconnect");
			while (disconnected < 2 * (i + 1))
				pump();
			if (marks && i >= from - 1)
				printf("mark %ld connect_call_ns %.0f connected_ns %.0f close_call_ns %.0f closed_ns %.0f\n",
				       i, m0 * 1e9, m1 * 1e9, m1 * 1e9, now_s() * 1e9);
		}
		if (warm) {
			double s0, s1, s2;
			if (!window_on_storm)
				window_close(&w, n - from + 1);
			else if (window_on_storm != 3)
				window_open(&w);
			/* the warm storm: all N connects at once, then all disconnected by the client */
			s0 = now_s();
			for (i = n; i < n + storm_n; i++)
				start_connect(i);
			while (established < n + storm_n)
				pump();
			s1 = now_s();
			if (window_on_storm == 2)
				window_close(&w, storm_n);
			else if (window_on_storm == 3)
				window_open(&w);
			for (i = n; i < n + storm_n; i++)
				if (rdma_disconnect(clients[i]))
					die("rdma_disconnect");
			while (disconnected < 2 * (n + storm_n))
				pump();
			s2 = now_s();
			if (window_on_storm == 1 || window_on_storm == 3)
				window_close(&w, storm_n);
			printf("storm n %ld setup_s %.6f teardown_s %.6f\n", storm_n, s1 - s0, s2 - s1);
		}
	}
	t1 = now_s();
	printf("events %ld seconds %.6f events/s %.1f\n", events, t1 - t0, events / (t1 - t0));
	free(clients);
	rdma_destroy_id(listener);
	close(epfd);
	rdma_destroy_event_channel(channel);
	return 0;
}
