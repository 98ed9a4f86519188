/*
 * test_attr_diff.c - differential test of perf_event_open(2) errnos: the
 * host kernel against the simulated core.
 *
 * A deterministic generator makes thousands of attrs for PERF_TYPE_SOFTWARE
 * (plus unknown and clock types): sizes, flag and reserved bits,
 * sample_type, read_format, periods and frequencies, branch and register
 * masks, clockids, pids, cpus, group fds, open flags, and user memory that
 * faults. Each is opened with the real syscall and with the core, under
 * the host's settings (online CPUs, perf_event_paranoid, root ->
 * CAP_PERFMON), first as the current user, then in a child that dropped
 * to nobody. Errnos must match (success matches success); every
 * difference must fall under a reason of the allow-list in allowed_reason().
 *
 * With the open path built (HAVE_PERF_SYS_EVENT_OPEN) the core side is
 * perf_sys_event_open(). Without it the core side is the attr-check chain
 * of attr_check.h, and a case it passes whose host result depends on the
 * open path (group and pid lookup, contexts) is counted as "not comparable".
 */
#include <fcntl.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <grp.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim/core/tracepoints.h"
#include "syscall_shim/vfs.h"
#include "testsuite/attr/attr_test_util.h"

#define NR_PRIV_CASES   15000
#define NR_UNPRIV_CASES 5000
#define SEED            0x5eed1234abcdULL
#define PG              4096u
#define NONEXISTENT_PID 0x3ffffff0

/* ---- user memory: process_vm_readv on ourselves faults as the kernel's
 * copy_from_user does (PROT_NONE, unmapped) ---- */

static int self_from(void *ctx, void *dst, uint64_t uaddr, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)(uintptr_t)uaddr, len };

	(void)ctx;
	if (!len)
		return 0;
	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static int self_to(void *ctx, uint64_t uaddr, const void *src, size_t len)
{
	struct iovec l = { (void *)src, len }, r = { (void *)(uintptr_t)uaddr, len };

	(void)ctx;
	if (!len)
		return 0;
	return process_vm_writev(getpid(), &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

static const struct perf_uaccess self_ua = { self_from, self_to, NULL };

/* ---- generator ---- */

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }
static bool chance(unsigned pct) { return rndn(100) < pct; }

#define PICK(arr) (arr[rndn(sizeof(arr) / sizeof(arr[0]))])

enum group_kind { G_NONE, G_NOT_PERF, G_LEADER };

/* The group_fds a case may name: a task leader (dummy, pid 0, cpu -1), a
 * CPU leader (pid -1, cpu 0: needs perf_allow_cpu), an inherit leader, a
 * sampling cpu-clock leader with read_format GROUP|ID, and a sibling of
 * the first (group_fd of a non-leader: EINVAL). */
enum { L_TASK, L_CPU, L_INHERIT, L_SAMPLING, L_SIBLING, NR_LEADERS };
enum tail_kind { T_NONE, T_ZERO, T_CONFIG3, T_BEYOND };

struct gcase {
	unsigned char bytes[5200];      /* what the user passes, from uattr */
	uint32_t size;                  /* attr.size as written */
	enum tail_kind tail;
	unsigned fault_at;              /* 0: none; else readable bytes from uattr */
	bool null_uattr;
	pid_t pid;                      /* NONEXISTENT_PID or symbolic below */
	int pid_kind;                   /* 0: 0, 1: -1, 2: own, 3: nonexistent, 4: parent */
	int cpu;
	enum group_kind group;
	unsigned leader;                /* which of the side's leaders (NR_LEADERS) */
	unsigned long flags;
};

/* A valid software attr with one targeted change: reaches the checks
 * that random attrs seldom get past perf_copy_attr to. */
static void gen_near_valid(struct gcase *c, unsigned nr_cpus, bool unpriv)
{
	struct perf_event_attr a;
	uint64_t *flagword = (uint64_t *)((char *)&a + 40);
	static const uint64_t safe_st[] = {
		PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR,
		PERF_SAMPLE_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD, PERF_SAMPLE_STREAM_ID,
		PERF_SAMPLE_RAW, PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_WEIGHT,
		PERF_SAMPLE_TRANSACTION, PERF_SAMPLE_CGROUP, PERF_SAMPLE_DATA_PAGE_SIZE,
		PERF_SAMPLE_CODE_PAGE_SIZE, PERF_SAMPLE_WEIGHT_STRUCT,
	};
	static const uint32_t sizes[] = { 0, 63, 64, 72, 80, 96, 104, 112, 120, 136, 4096, 4097 };

	memset(c, 0, sizeof(*c));
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = rndn(PERF_COUNT_SW_MAX);
	a.size = PERF_ATTR_SIZE_VER7;
	a.exclude_kernel = unpriv ? 1 : chance(50);
	a.exclude_hv = chance(50);
	a.disabled = chance(50);
	a.inherit = chance(30);
	if (chance(50)) {
		a.sample_period = 1 + rndn(100000);
		for (int i = 0; i < 3; i++)
			a.sample_type |= safe_st[rndn(sizeof(safe_st) / sizeof(safe_st[0]))];
		if ((a.sample_type & PERF_SAMPLE_WEIGHT) && (a.sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
			a.sample_type &= ~PERF_SAMPLE_WEIGHT;
	}
	a.read_format = rnd() & 0x1f;
	c->pid_kind = chance(70) ? 0 : 2;
	c->cpu = chance(60) ? -1 : (int)rndn(nr_cpus);
	c->group = chance(75) ? G_NONE : G_LEADER;

	switch (rndn(22)) {
	case 0: *flagword |= 1ULL << rndn(64); break;
	case 1: a.sample_type |= 1ULL << rndn(64); break;
	case 2: a.read_format |= 1ULL << rndn(64); break;
	case 3: a.size = PICK(sizes); break;
	case 4: a.freq = 1; a.sample_freq = chance(50) ? 100000 + rndn(3) - 1 : rnd(); break;
	case 5: a.freq = 0; a.sample_period = chance(50) ? 1ULL << 63 : rnd(); break;
	case 6: a.use_clockid = 1; a.clockid = (int)rndn(16) - 2; break;
	case 7:
		a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a.branch_sample_type = chance(50) ? 1ULL << rndn(21) : rnd() & 0x1fffff;
		break;
	case 8:
		a.sample_type |= chance(50) ? PERF_SAMPLE_REGS_USER : PERF_SAMPLE_REGS_INTR;
		a.sample_regs_user = a.sample_regs_intr = 1ULL << rndn(64);
		break;
	case 9:
		a.sample_type |= PERF_SAMPLE_STACK_USER;
		a.sample_stack_user = chance(50) ? (uint32_t)rndn(0x11000) : 0xfff8 + rndn(16);
		break;
	case 10:
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
		a.sample_max_stack = (uint16_t)(120 + rndn(16));
		break;
	case 11:
		a.inherit = 1;
		a.sample_type |= PERF_SAMPLE_READ | (chance(50) ? PERF_SAMPLE_TID : 0);
		break;
	case 12:
		a.sigtrap = chance(70);
		a.remove_on_exec = chance(70);
		a.enable_on_exec = chance(30);
		a.inherit_thread = chance(30);
		break;
	case 13: c->pid_kind = rndn(4); c->cpu = (int)rndn(nr_cpus + 2) - 1; break;
	case 14:
		c->group = G_LEADER;
		a.inherit = chance(50);
		a.pinned = chance(30);
		a.exclusive = chance(30);
		c->cpu = chance(50) ? -1 : 0;
		break;
	case 15: c->flags = 1UL << rndn(64); break;
	case 16: a.__reserved_3 = 1u << rndn(32); break;
	case 17: a.aux_output = chance(50); a.aux_sample_size = chance(50) ? 8 : 0; break;
	case 18: a.type = PERF_TYPE_CPU_CLOCK_SIM + rndn(2); a.config = rndn(3); break;
	case 19: a.precise_ip = rndn(4); a.exclusive = chance(50); a.pinned = chance(50); break;
	case 20: a.namespaces = 1; a.sample_type |= chance(50) ? PERF_SAMPLE_PHYS_ADDR : 0; break;
	default: a.exclude_kernel = 0; break;
	}
	c->size = a.size;
	memcpy(c->bytes, &a, sizeof(a));
	c->tail = c->size > sizeof(a) && c->size <= 4096 ? T_ZERO : T_NONE;
	c->leader = rndn(NR_LEADERS);
}

static void gen_case(struct gcase *c, unsigned nr_cpus, bool unpriv)
{
	if (chance(50)) {
		gen_near_valid(c, nr_cpus, unpriv);
		return;
	}

	struct perf_event_attr a;
	uint64_t *flagword = (uint64_t *)((char *)&a + 40);
	static const uint32_t sizes[] = {
		0, 1, 63, 64, 65, 72, 80, 96, 100, 104, 112, 120, 127, 129, 130, 136, 144,
		200, 4096, 4097, 5000,
	};
	static const int types[] = { 6, 7, 10, 11, 12, 100, 1000, -1, 0x7fffffff, 2, 5, 8, 9 };
	static const uint64_t periods[] = { 1, 2, 1000, 4000, 100000, 1ULL << 63, ~0ULL };
	static const uint64_t freqs[] = { 0, 1, 99, 4000, 99999, 100000, 100001, 1ULL << 63 };
	static const uint64_t regs[] = {
		1, (1 << 12), (1 << 15), (1 << 23), (1 << 24), (1ULL << 31), (1ULL << 32),
		(1ULL << 40), 0xff0fffULL, 0xffffffULL, 0x0ff0fffULL,
	};
	static const uint32_t stacks[] = { 0, 8, 12, 4096, 0xfff8, 0xfffe, 0xffff, 0x10000 };
	static const uint16_t max_stacks[] = { 0, 0, 0, 1, 127, 128, 1000 };
	static const int clocks[] = { 0, 1, 2, 3, 4, 5, 7, 11, -1, 12 };
	static const int cpus_extra[] = { 0, 1, 1000, -2, INT32_MIN };
	static const unsigned long open_flags[] = {
		PERF_FLAG_FD_CLOEXEC, PERF_FLAG_FD_NO_GROUP, PERF_FLAG_FD_OUTPUT,
		PERF_FLAG_PID_CGROUP, 1UL << 4, 1UL << 40,
		PERF_FLAG_FD_CLOEXEC | PERF_FLAG_FD_NO_GROUP,
	};

	memset(c, 0, sizeof(*c));
	memset(&a, 0, sizeof(a));

	/* type and config */
	if (chance(90)) {
		a.type = PERF_TYPE_SOFTWARE;
		if (chance(85))
			a.config = rndn(PERF_COUNT_SW_MAX + 1);
		else if (chance(50))
			a.config = rndn(64);
		else
			a.config = chance(50) ? (1ULL << 32) | rndn(12) : rnd();
	} else {
		a.type = (uint32_t)PICK(types);
		a.config = chance(70) ? rndn(3) : rnd();
	}

	/* flag bits: each defined bit now and then; exclude_kernel often, so
	 * that the unprivileged run gets past perf_allow_kernel */
	for (int b = 0; b < 38; b++)
		if (chance(5))
			*flagword |= 1ULL << b;
	a.exclude_kernel = unpriv ? chance(85) : chance(50);
	if (chance(3))
		*flagword |= 1ULL << (38 + rndn(26));
	if (chance(5))
		a.precise_ip = rndn(4);

	/* sample_type, read_format */
	if (chance(60)) {
		for (int b = 0; b < 25; b++)
			if (chance(10))
				a.sample_type |= 1ULL << b;
		if (chance(4))
			a.sample_type |= 1ULL << (25 + rndn(39));
	}
	if (chance(50)) {
		a.read_format = rnd() & 0x1f;
		if (chance(5))
			a.read_format |= 1ULL << (5 + rndn(59));
	}

	/* period or frequency */
	if (a.freq || chance(10)) {
		a.freq = 1;
		a.sample_freq = chance(20) ? rnd() : PICK(freqs);
	} else if (chance(40)) {
		a.sample_period = chance(10) ? rnd() : PICK(periods);
	}

	if ((a.sample_type & PERF_SAMPLE_BRANCH_STACK) || chance(5)) {
		for (int b = 0; b < 21; b++)
			if (chance(20))
				a.branch_sample_type |= 1ULL << b;
		if (chance(5))
			a.branch_sample_type |= rnd();
	}
	if (chance(30))
		a.sample_regs_user = chance(10) ? rnd() : PICK(regs);
	if (chance(20))
		a.sample_regs_intr = chance(10) ? rnd() : PICK(regs);
	if (chance(30))
		a.sample_stack_user = PICK(stacks);
	a.sample_max_stack = PICK(max_stacks);
	if (a.use_clockid || chance(10))
		a.clockid = PICK(clocks);
	if (chance(20))
		a.wakeup_events = rndn(100);
	if (chance(10))
		a.bp_type = rndn(8);
	if (chance(10))
		a.config1 = rnd();
	if (chance(10))
		a.aux_watermark = rndn(4096);
	if (chance(5))
		a.aux_sample_size = 8;
	if (chance(3))
		a.__reserved_2 = 1 + rndn(0xffff);
	if (chance(6))
		a.__reserved_3 = 1u << rndn(5);
	if (chance(10))
		a.sig_data = rnd();

	/* size and what lies past our struct */
	c->size = chance(40) ? PERF_ATTR_SIZE_VER7 : PICK(sizes);
	a.size = c->size;
	memcpy(c->bytes, &a, sizeof(a));
	if (c->size > sizeof(a) && c->size <= sizeof(c->bytes)) {
		unsigned span = (c->size < sizeof(c->bytes) ? c->size : sizeof(c->bytes)) - sizeof(a);
		unsigned r = rndn(4);

		if (r == 1 && c->size <= 4096) {
			c->tail = T_CONFIG3;
			c->bytes[sizeof(a) + rndn(span < 8 ? span : 8)] = 1 + rndn(255);
		} else if (r == 2 && span > 8 && c->size <= 4096) {
			c->tail = T_BEYOND;
			c->bytes[sizeof(a) + 8 + rndn(span - 8)] = 1 + rndn(255);
		} else {
			c->tail = T_ZERO;
		}
	}
	if (chance(2))
		c->fault_at = 2 + rndn(c->size > 8 ? c->size - 2 : 130);
	else if (chance(1))
		c->null_uattr = true;

	/* pid, cpu, group, flags */
	unsigned p = rndn(100);
	c->pid_kind = p < 50 ? 0 : p < 75 ? 1 : p < 88 ? 2 : p < 95 ? 3 : (unpriv ? 4 : 0);
	if (chance(50))
		c->cpu = -1;
	else if (chance(20))
		c->cpu = (int)nr_cpus;
	else if (chance(70))
		c->cpu = (int)rndn(nr_cpus);
	else
		c->cpu = PICK(cpus_extra);
	c->group = chance(80) ? G_NONE : chance(25) ? G_NOT_PERF : G_LEADER;
	c->flags = chance(75) ? 0 : PICK(open_flags);
	c->leader = rndn(NR_LEADERS);
}

/* ---- the two sides ---- */

struct side {
	int leader_fd[NR_LEADERS];      /* host: group leaders (-1: could not open) */
	int notperf_fd;                 /* host: /dev/null */
	pid_t parent;
	/* core */
	struct perf_core *core;
	struct perf_task *task;
	int leader_handle[NR_LEADERS];
	bool owned_core;
};

static unsigned char *area;             /* 3 pages: RW RW NONE */

static uint64_t place(const struct gcase *c)
{
	if (c->null_uattr)
		return 0;
	if (c->fault_at) {
		uint64_t u = (uint64_t)(uintptr_t)(area + 2 * PG) - c->fault_at;
		unsigned n = c->fault_at < sizeof(c->bytes) ? c->fault_at : sizeof(c->bytes);

		memcpy((void *)(uintptr_t)u, c->bytes, n);
		return u;
	}
	memset(area, 0, 2 * PG);
	memcpy(area, c->bytes, c->size > 2 * PG ? 2 * PG : (c->size > 128 ? c->size : 128));
	return (uint64_t)(uintptr_t)area;
}

static pid_t case_pid(const struct gcase *c, const struct side *s)
{
	switch (c->pid_kind) {
	case 1: return -1;
	case 2: return getpid();
	case 3: return NONEXISTENT_PID;
	case 4: return s->parent;
	default: return 0;
	}
}

static int host_open(const struct gcase *c, const struct side *s, uint32_t *size_back)
{
	uint64_t u = place(c);
	int group = c->group == G_LEADER ? s->leader_fd[c->leader] :
		    c->group == G_NOT_PERF ? s->notperf_fd : -1;
	long fd = syscall(SYS_perf_event_open, (void *)(uintptr_t)u, case_pid(c, s), c->cpu,
			  group, c->flags);
	int err = fd < 0 ? -errno : 0;

	*size_back = 0;
	if (u)
		(void)self_from(NULL, size_back, u + 4, 4);
	if (fd >= 0)
		close((int)fd);
	return err;
}

#ifdef HAVE_PERF_SYS_EVENT_OPEN
static int core_open(const struct gcase *c, const struct side *s, uint32_t *size_back,
		     bool *comparable)
{
	uint64_t u = place(c);
	int group = c->group == G_LEADER ? s->leader_handle[c->leader] :
		    c->group == G_NOT_PERF ? PERF_CORE_MAX_FILES - 1 : -1;
	int h = perf_sys_event_open(s->core, s->task, &self_ua, u, case_pid(c, s), c->cpu,
				    group, c->flags);

	*comparable = true;
	*size_back = 0;
	if (u)
		(void)self_from(NULL, size_back, u + 4, 4);
	if (h >= 0)
		perf_file_put(s->core, h);
	return h < 0 ? h : 0;
}
#else
/* The attr-check chain; *comparable is false when the chain passed and
 * the rest depends on the open path. */
static int core_open(const struct gcase *c, const struct side *s, uint32_t *size_back,
		     bool *comparable)
{
	uint64_t u = place(c);
	pid_t pid = case_pid(c, s);
	bool cgroup = c->flags & PERF_FLAG_PID_CGROUP;
	struct perf_event_attr attr;
	struct perf_event_init init;
	int err;

	*comparable = true;
	*size_back = 0;
	err = perf_open_check_flags(c->flags);
	if (!err)
		err = perf_copy_attr_as(s->core, s->task, &self_ua, u, &attr);
	if (u)
		(void)self_from(NULL, size_back, u + 4, 4);
	if (!err)
		err = perf_open_check_attr(s->core, s->task, &attr, pid, c->cpu, c->flags);
	if (err)
		return err;
	/* group_fd and pid lookups belong to the open path */
	if (c->group != G_NONE || (!cgroup && (c->pid_kind == 3 || c->pid_kind == 4))) {
		*comparable = false;
		return 0;
	}
	err = perf_event_init_attr_cgroup(s->core, &attr, c->cpu, pid != -1 && !cgroup,
					  cgroup ? pid : -1, &init);
	if (err)
		return err;
	*comparable = false;    /* contexts, validate_size, aux: the open path's */
	return 0;
}
#endif

/* ---- the allow-list: why the host may legitimately differ ---- */

enum allow_reason {
	ALLOW_NONE,
	/* Linux 6.3 added config3 (PERF_ATTR_SIZE_VER8, 136 bytes); the core
	 * implements the 128-byte ABI of its header, so non-zero bytes in
	 * 128..135 are a non-zero tail to it (E2BIG) and a field to the host. */
	ALLOW_CONFIG3,
	/* uprobe (8), msr (9): PMUs of the host that the simulated system
	 * does not have (-ENOENT there); a tracepoint (2) id its catalogue
	 * lacks (the host's ftrace "function" event, id 1, and events of
	 * other systems: -EINVAL from perf_trace_init there). Breakpoints (5)
	 * are compared. */
	ALLOW_ABSENT_PMU,
	/* HARDWARE, HW_CACHE, RAW and the model's own type: the simulated
	 * system has the model's PMU, the host VM has no hardware PMU
	 * (-ENOENT). The generator makes none of these unless the default
	 * model's type falls among its unknown types. */
	ALLOW_HW_PMU,
	ALLOW_NR
};

static const char *const allow_names[ALLOW_NR] = {
	[ALLOW_CONFIG3] = "config3 past the 128-byte ABI",
	[ALLOW_ABSENT_PMU] = "PMU absent from the simulated system",
	[ALLOW_HW_PMU] = "hardware PMU absent from the host",
};

static enum allow_reason allowed_reason(const struct side *s, const struct gcase *c,
				       int host, int ours)
{
	const struct perf_event_attr *a = (const void *)c->bytes;

	/* (whatever the host found further on: a fault past the tail, or a
	 * later check) */
	if (c->tail == T_CONFIG3 && ours == -E2BIG && !c->null_uattr)
		return ALLOW_CONFIG3;
	if ((a->type == 8 || a->type == 9) && ours == -ENOENT)
		return ALLOW_ABSENT_PMU;
	if (a->type == PERF_TYPE_TRACEPOINT && ours == -EINVAL &&
	    (a->config > UINT32_MAX || !tp_find_id((uint32_t)a->config)))
		return ALLOW_ABSENT_PMU;
	/* the model's PMUs beside cpu: cstate and uncore the host lacks; its
	 * msr has the model's events where the host's (an AMD VM: tsc alone)
	 * has fewer; msr/tsc/ (config 0) is compared */
	if (perf_core_is_side_type(s->core, a->type) && (host == -ENOENT || a->config != 0))
		return ALLOW_HW_PMU;
	if (host == -ENOENT && (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
				a->type == PERF_TYPE_RAW ||
				(perf_core_model(s->core) && a->type == perf_core_model(s->core)->pmu_type)))
		return ALLOW_HW_PMU;
	return ALLOW_NONE;
}

struct tally {
	unsigned n, equal, not_comparable, mismatches, size_back_ok, size_back_bad;
	unsigned allowed[ALLOW_NR];
	unsigned host_errno[160];       /* what the host answered, by errno (0: success) */
};

static void dump_case(const struct gcase *c, int host, int ours)
{
	const struct perf_event_attr *a = (const void *)c->bytes;

	fprintf(stderr,
		"  MISMATCH host %d core %d: type %u config %#llx size %u tail %d fault_at %u null %d"
		" flags %#llx st %#llx rf %#llx period %llu branch %#llx ru %#llx ri %#llx"
		" stack %u maxstack %u clock %d res2 %#x res3 %#x aux_ss %u"
		" pid_kind %d cpu %d group %d oflags %#lx\n",
		host, ours, a->type, (unsigned long long)a->config, c->size, c->tail, c->fault_at,
		c->null_uattr, (unsigned long long)*(const uint64_t *)((const char *)a + 40),
		(unsigned long long)a->sample_type, (unsigned long long)a->read_format,
		(unsigned long long)a->sample_period, (unsigned long long)a->branch_sample_type,
		(unsigned long long)a->sample_regs_user, (unsigned long long)a->sample_regs_intr,
		a->sample_stack_user, a->sample_max_stack, a->clockid, a->__reserved_2,
		a->__reserved_3, a->aux_sample_size, c->pid_kind, c->cpu, c->group, c->flags);
}

static void run_cases(struct side *s, unsigned n, bool unpriv, unsigned nr_cpus, struct tally *t)
{
	static struct gcase c;

	for (unsigned i = 0; i < n; i++) {
		uint32_t hsize, csize;
		bool comparable;
		int host, ours;
		enum allow_reason why;

		gen_case(&c, nr_cpus, unpriv);
		host = host_open(&c, s, &hsize);
		ours = core_open(&c, s, &csize, &comparable);
		t->n++;
		if (-host >= 0 && -host < 160)
			t->host_errno[-host]++;
		if (host == ours) {
			t->equal++;
			/* perf_copy_attr's E2BIG writes the kernel's own size back */
			if (host == -E2BIG && !c.null_uattr && !c.fault_at) {
				if (csize == sizeof(struct perf_event_attr) && hsize >= csize)
					t->size_back_ok++;
				else
					t->size_back_bad++;
			}
			continue;
		}
		if (!comparable && ours == 0) {
			t->not_comparable++;
			continue;
		}
		why = allowed_reason(s, &c, host, ours);
		if (why != ALLOW_NONE) {
			t->allowed[why]++;
			continue;
		}
		if (t->mismatches++ < 25)
			dump_case(&c, host, ours);
	}
}

static void print_tally(const char *who, const struct tally *t)
{
	printf("attr_diff[%s]: %u attrs, %u equal, %u allowed differences (%s: %u, %s: %u, %s: %u), "
	       "%u not comparable without the open path, %u mismatches; "
	       "E2BIG size write-back: %u as expected (ours 128, host its own), %u wrong\n",
	       who, t->n, t->equal,
	       t->allowed[ALLOW_CONFIG3] + t->allowed[ALLOW_ABSENT_PMU] + t->allowed[ALLOW_HW_PMU],
	       allow_names[ALLOW_CONFIG3], t->allowed[ALLOW_CONFIG3],
	       allow_names[ALLOW_ABSENT_PMU], t->allowed[ALLOW_ABSENT_PMU],
	       allow_names[ALLOW_HW_PMU], t->allowed[ALLOW_HW_PMU],
	       t->not_comparable, t->mismatches, t->size_back_ok, t->size_back_bad);
	printf("attr_diff[%s]: host answers:", who);
	for (int e = 0; e < 160; e++)
		if (t->host_errno[e])
			printf(" %s %u", e ? strerrorname_np(e) : "success", t->host_errno[e]);
	printf("\n");
	fflush(stdout);
}

/* ---- setting the two sides up like the host ---- */

static unsigned host_nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (unsigned)n : 1;
}

static int read_sysctl(const char *path, int dflt)
{
	FILE *f = fopen(path, "r");
	int v = dflt;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = dflt;
		fclose(f);
	}
	return v;
}

struct leader_spec {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	int group;                      /* index of its leader, or -1 */
};

static const struct leader_spec leader_specs[NR_LEADERS] = {
	[L_TASK] = { { .type = PERF_TYPE_SOFTWARE, .size = 128, .config = PERF_COUNT_SW_DUMMY,
		       .disabled = 1, .exclude_kernel = 1 }, 0, -1, -1 },
	[L_CPU] = { { .type = PERF_TYPE_SOFTWARE, .size = 128, .config = PERF_COUNT_SW_DUMMY,
		      .disabled = 1, .exclude_kernel = 1 }, -1, 0, -1 },
	[L_INHERIT] = { { .type = PERF_TYPE_SOFTWARE, .size = 128, .config = PERF_COUNT_SW_DUMMY,
			  .disabled = 1, .exclude_kernel = 1, .inherit = 1 }, 0, -1, -1 },
	[L_SAMPLING] = { { .type = PERF_TYPE_SOFTWARE, .size = 128,
			   .config = PERF_COUNT_SW_CPU_CLOCK, .disabled = 1, .exclude_kernel = 1,
			   .sample_period = 100000,
			   .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ,
			   .read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
					  PERF_FORMAT_TOTAL_TIME_ENABLED |
					  PERF_FORMAT_TOTAL_TIME_RUNNING }, 0, -1, -1 },
	[L_SIBLING] = { { .type = PERF_TYPE_SOFTWARE, .size = 128, .config = PERF_COUNT_SW_DUMMY,
			  .exclude_kernel = 1 }, 0, -1, L_TASK },
};

static void side_setup(struct side *s, bool unpriv, pid_t parent)
{
	struct perf_cred cred = { .uid = geteuid(), .cap_perfmon = geteuid() == 0 && !unpriv };
	int paranoid = read_sysctl("/proc/sys/kernel/perf_event_paranoid", 2);

	memset(s, 0, sizeof(*s));
	s->parent = parent;
	s->notperf_fd = open("/dev/null", O_RDONLY);
	assert_true(s->notperf_fd >= 0);
	for (int i = 0; i < NR_LEADERS; i++) {
		const struct leader_spec *l = &leader_specs[i];
		int g = l->group >= 0 ? s->leader_fd[l->group] : -1;
		long fd = syscall(SYS_perf_event_open, &l->attr, l->pid, l->cpu, g, 0);

		s->leader_fd[i] = fd < 0 ? -1 : (int)fd;
		s->leader_handle[i] = fd < 0 ? -errno : -1;   /* host errno until the core's */
	}
#ifdef HAVE_PERF_SYS_EVENT_OPEN
	struct perf_core_config cfg = {
		.model = pmu_model_default(),
		.nr_cpus = host_nr_cpus(),
		.paranoid = paranoid,
		.max_sample_rate = (unsigned)read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000),
		.max_stack = (unsigned)read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127),
		/* msr, cstate, uncore after the host's PMUs, as pmusim run
		 * numbers them: the host's msr and ours share a type */
		.first_side_type = vfs_first_side_type(pmu_model_default()),
	};
	assert_int_equal(perf_core_create(&cfg, NULL, &s->core), 0);
	s->owned_core = true;
	s->task = perf_task_create(s->core, getpid(), (pid_t)syscall(SYS_gettid), cred);
	assert_non_null(s->task);
	if (parent) {
		struct perf_cred root = { .uid = 0, .cap_perfmon = true };

		assert_non_null(perf_task_create(s->core, parent, parent, root));
	}
	for (int i = 0; i < NR_LEADERS; i++) {
		const struct leader_spec *l = &leader_specs[i];
		int g = l->group >= 0 ? s->leader_handle[l->group] : -1;
		int host = s->leader_fd[i] >= 0 ? 0 : s->leader_handle[i];
		int h = perf_sys_event_open(s->core, s->task, &perf_uaccess_direct,
					    (uint64_t)(uintptr_t)&l->attr, l->pid, l->cpu, g, 0);

		/* the leaders themselves are compared too */
		if ((h < 0 ? h : 0) != host)
			fail_msg("leader %d: host %d, core %d", i, host, h);
		s->leader_handle[i] = h < 0 ? -1 : h;
	}
#else
	s->core = attr_test_core(NULL, host_nr_cpus(), paranoid);
	s->core->cfg.max_sample_rate =
		(unsigned)read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate", 100000);
	s->core->cfg.max_stack = (unsigned)read_sysctl("/proc/sys/kernel/perf_event_max_stack", 127);
	s->task = calloc(1, sizeof(*s->task));
	assert_non_null(s->task);
	s->task->core = s->core;
	s->task->pid = s->task->tid = getpid();
	s->task->cred = cred;
	for (int i = 0; i < NR_LEADERS; i++)
		s->leader_handle[i] = -1;
#endif
}

static void side_teardown(struct side *s)
{
	for (int i = NR_LEADERS - 1; i >= 0; i--) {
		if (s->leader_fd[i] >= 0)
			close(s->leader_fd[i]);
#ifdef HAVE_PERF_SYS_EVENT_OPEN
		if (s->leader_handle[i] >= 0)
			perf_file_put(s->core, s->leader_handle[i]);
#endif
	}
	close(s->notperf_fd);
#ifdef HAVE_PERF_SYS_EVENT_OPEN
	perf_core_destroy(s->core);
#else
	free(s->task);
	free(s->core);
#endif
}

/* The expected answers follow Linux 6.18 (the project's host kernel).
 * Another kernel answers some attrs differently for its own reasons (its
 * attr size, newer or older rules), so the comparison is skipped there,
 * as it is where perf_event_open(2) is not usable at all. */
static bool host_is_baseline(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = 128,
				     .config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1 };
	struct utsname u;
	long fd;

	if (uname(&u) || strncmp(u.release, "6.18.", 5)) {
		printf("attr_diff: host kernel %s is not the 6.18 baseline: skipped\n",
		       uname(&u) ? "?" : u.release);
		return false;
	}
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		printf("attr_diff: perf_event_open(2) unusable here (%s): skipped\n",
		       strerror(errno));
		return false;
	}
	close((int)fd);
	return true;
}

static void test_diff_privileged(void **state)
{
	(void)state;
	struct side s;
	struct tally t = { 0 };

	if (!host_is_baseline())
		skip();
	rng = SEED;
	side_setup(&s, false, 0);
	run_cases(&s, NR_PRIV_CASES, false, host_nr_cpus(), &t);
	side_teardown(&s);
	print_tally(geteuid() == 0 ? "root" : "user", &t);
	assert_true(t.n >= 5000);
	assert_int_equal(t.mismatches, 0);
	assert_int_equal(t.size_back_bad, 0);
}

/* The same from a child that gave up root: perf_allow_kernel, namespaces,
 * PHYS_ADDR, branch privilege levels, and (with the open path)
 * perf_allow_cpu and the ptrace check on another user's task. */
static void test_diff_unprivileged(void **state)
{
	(void)state;
	pid_t parent = getpid(), child;
	int status;

	if (geteuid() != 0 || !host_is_baseline())
		skip();
	fflush(stdout);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct side s;
		struct tally t = { 0 };

		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(100);
		rng = SEED ^ 0x9e3779b97f4a7c15ULL;
		side_setup(&s, true, parent);
		run_cases(&s, NR_UNPRIV_CASES, true, host_nr_cpus(), &t);
		side_teardown(&s);
		print_tally("nobody", &t);
		_exit(t.mismatches || t.size_back_bad ? 1 : 0);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A host event the generator opens with sigtrap=1 and a period can
 * overflow before it is closed: perf sends SIGTRAP (TRAP_PERF). Take it. */
static volatile sig_atomic_t perf_sigtraps;

static void on_sigtrap(int sig)
{
	(void)sig;
	perf_sigtraps++;
}

static int setup_area(void **state)
{
	struct sigaction sa = { .sa_handler = on_sigtrap };

	(void)state;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTRAP, &sa, NULL))
		return -1;
	area = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED)
		return -1;
	return mprotect(area + 2 * PG, PG, PROT_NONE);
}

static int teardown_area(void **state)
{
	(void)state;
	return munmap(area, 3 * PG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diff_privileged),
		cmocka_unit_test(test_diff_unprivileged),
	};
	return cmocka_run_group_tests_name("attr_diff", tests, setup_area, teardown_area);
}
