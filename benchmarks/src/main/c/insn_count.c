/*
 * A QEMU TCG plugin that counts the guest's instructions, kernel and user apart, and writes the
 * running totals each time the guest executes a window marker: so a benchmark window's work is
 * a count, not a time. Under TCG a guest's CPU times carry the host's noise (a vCPU thread the
 * host descheduled is still "running" for the guest); instruction counts do not.
 *
 *   gcc -O2 -Wall -shared -fPIC -o insn_count.so insn_count.c
 *   qemu-system-x86_64 ... -plugin ./insn_count.so,out=/path/marks.txt
 *
 * The markers are 7-byte NOPs (nopl disp32(%rax): 0f 1f 80 d0 d1 d2 d3) whose displacement spells
 * "RDMO" (a window opens) or "RDMC" (it closes); window.h and the Java benchmarks' Window execute
 * them, in user space. Each marker executed appends one line to out:
 *
 *   mark open|close kernel K user U kernel_blocks KB user_blocks UB kernel_translated KT user_translated UT
 *
 * K and U the instructions all vCPUs have executed since boot (each translation block's count
 * added when it starts, so a block left early by an interrupt counts whole: an overcount of a few
 * instructions per interrupt, the same for every program). Whole guest, not one process: the
 * windows run on an otherwise idle guest, and the kernel's RDMA work (rdma_rxe's tasklets and
 * workqueues) belongs to the connection whoever's thread runs it. KB and UB the translation blocks
 * executed (a block ends at each jump, call or return: TCG's cost per block is well above its cost
 * per instruction), KT and UT the instructions TCG translated (its own work, for code run the first
 * time or again after a write to its page; the JVM writes to its code cache when it compiles and
 * patches).
 *
 * With profile=DIR as well, every translation block's executions between an open and a close mark
 * are counted too, and the close mark writes DIR/prof-N.txt (N = 1, 2, ... per window): one line
 * "VADDR INSNS EXECUTIONS" per block executed in the window (a block translated more than once has
 * a line per translation). benchmarks/insn_profile.py turns them into instructions per symbol.
 *
 * Written against QEMU's plugin API version 1 (QEMU 7.2, Debian 12's qemu-system-x86). The few
 * declarations it needs are below, so building needs no QEMU source tree.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the part of QEMU's plugin API (version 1) this plugin uses ------------------------------ */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;   /* not read here */
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
enum { QEMU_PLUGIN_CB_NO_REGS = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  int flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
					    int flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
/* ----------------------------------------------------------------------------------------------- */

#define MAX_VCPUS 64
#define KERNEL_BIT (1ULL << 63)
#define KERNEL_START 0xffff800000000000ULL   /* x86_64: the upper half is the kernel's */

/* One vCPU thread writes each slot (MTTCG runs a thread per vCPU); a marker reads them all. */
struct vcpu_count {
	uint64_t kernel;
	uint64_t user;
	uint64_t kernel_blocks;   /* translation blocks executed */
	uint64_t user_blocks;
	char pad[32];   /* a cache line each */
};
static struct vcpu_count counts[MAX_VCPUS];
static FILE *out;

/* One per translation (never freed: a run translates a few million blocks at most). */
struct block {
	uint64_t vaddr;
	uint64_t n;         /* instructions, with KERNEL_BIT for a kernel block */
	uint64_t hits;      /* executions while a window is open (profile= only) */
	struct block *next;
};
/* Instructions translated, user [0] and kernel [1]: TCG's own work, which the guest's times include
 * and its instruction counts do not (code run for the first time, or again after a write to its
 * page threw its translations away: the JVM writes to its code cache when it compiles and patches). */
static uint64_t translated[2];
static const char *profile_dir;
static struct block *blocks;   /* every translation, newest first; pushed under blocks_lock */
static int blocks_lock;
static volatile int profiling;
static int windows;
static const unsigned char MARK_OPEN[7] = { 0x0f, 0x1f, 0x80, 'R', 'D', 'M', 'O' };
static const unsigned char MARK_CLOSE[7] = { 0x0f, 0x1f, 0x80, 'R', 'D', 'M', 'C' };

static void tb_exec(unsigned int vcpu, void *udata)
{
	uint64_t v = (uint64_t)(uintptr_t)udata;
	if (vcpu >= MAX_VCPUS)
		return;
	if (v & KERNEL_BIT) {
		counts[vcpu].kernel += v & ~KERNEL_BIT;
		counts[vcpu].kernel_blocks++;
	} else {
		counts[vcpu].user += v;
		counts[vcpu].user_blocks++;
	}
}

static void tb_exec_profiled(unsigned int vcpu, void *udata)
{
	struct block *b = udata;
	tb_exec(vcpu, (void *)(uintptr_t)b->n);
	if (profiling)
		__atomic_fetch_add(&b->hits, 1, __ATOMIC_RELAXED);
}

/* The close mark's vCPU writes the window's blocks; the others keep running (their hits after
 * profiling went off are not counted: a few blocks at most). */
static void write_profile(void)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof path, "%s/prof-%d.txt", profile_dir, ++windows);
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		return;
	}
	for (struct block *b = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE); b != NULL; b = b->next) {
		uint64_t hits = __atomic_exchange_n(&b->hits, 0, __ATOMIC_RELAXED);
		if (hits)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)(b->n & ~KERNEL_BIT), (unsigned long long)hits);
	}
	fclose(f);
}

static void mark(unsigned int vcpu, void *udata)
{
	uint64_t kernel = 0, user = 0, kernel_blocks = 0, user_blocks = 0;
	(void)vcpu;
	for (int i = 0; i < MAX_VCPUS; i++) {
		kernel += __atomic_load_n(&counts[i].kernel, __ATOMIC_RELAXED);
		user += __atomic_load_n(&counts[i].user, __ATOMIC_RELAXED);
		kernel_blocks += __atomic_load_n(&counts[i].kernel_blocks, __ATOMIC_RELAXED);
		user_blocks += __atomic_load_n(&counts[i].user_blocks, __ATOMIC_RELAXED);
	}
	if (profile_dir != NULL && strcmp(udata, "close") == 0) {
		profiling = 0;
		write_profile();
	}
	fprintf(out, "mark %s kernel %llu user %llu kernel_blocks %llu user_blocks %llu"
		" kernel_translated %llu user_translated %llu\n", (const char *)udata,
		(unsigned long long)kernel, (unsigned long long)user, (unsigned long long)kernel_blocks,
		(unsigned long long)user_blocks, (unsigned long long)__atomic_load_n(&translated[1], __ATOMIC_RELAXED),
		(unsigned long long)__atomic_load_n(&translated[0], __ATOMIC_RELAXED));
	fflush(out);
	if (profile_dir != NULL && strcmp(udata, "open") == 0)
		profiling = 1;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t kernel = qemu_plugin_tb_vaddr(tb) >= KERNEL_START ? KERNEL_BIT : 0;
	(void)id;
	__atomic_fetch_add(&translated[kernel ? 1 : 0], n, __ATOMIC_RELAXED);
	if (profile_dir == NULL) {
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)(n | kernel));
	} else {
		struct block *b = calloc(1, sizeof *b);
		if (b == NULL)
			abort();
		b->vaddr = qemu_plugin_tb_vaddr(tb);
		b->n = n | kernel;
		while (__atomic_exchange_n(&blocks_lock, 1, __ATOMIC_ACQUIRE))
			;
		b->next = blocks;
		__atomic_store_n(&blocks, b, __ATOMIC_RELEASE);
		__atomic_store_n(&blocks_lock, 0, __ATOMIC_RELEASE);
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec_profiled, QEMU_PLUGIN_CB_NO_REGS, b);
	}
	if (kernel)
		return;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		if (qemu_plugin_insn_size(insn) != sizeof MARK_OPEN)
			continue;
		const void *bytes = qemu_plugin_insn_data(insn);
		if (memcmp(bytes, MARK_OPEN, sizeof MARK_OPEN) == 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark, QEMU_PLUGIN_CB_NO_REGS, "open");
		else if (memcmp(bytes, MARK_CLOSE, sizeof MARK_CLOSE) == 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark, QEMU_PLUGIN_CB_NO_REGS, "close");
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	mark(0, "exit");
	fclose(out);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;
	(void)info;
	for (int i = 0; i < argc; i++)
		if (strncmp(argv[i], "out=", 4) == 0)
			path = argv[i] + 4;
		else if (strncmp(argv[i], "profile=", 8) == 0)
			profile_dir = argv[i] + 8;
	if (path == NULL) {
		fprintf(stderr, "insn_count: give out=FILE\n");
		return -1;
	}
	out = fopen(path, "w");
	if (out == NULL) {
		perror(path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
