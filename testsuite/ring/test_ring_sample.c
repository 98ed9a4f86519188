/*
 * test_ring_sample.c - PERF_RECORD_SAMPLE layouts and the sample_id_all
 * trailer, read back from the mmapped ring by a parser written from the
 * ABI comments of <linux/perf_event.h>.
 *
 * Expected sizes are worked by hand from perf_prepare_sample() for the
 * fixed inputs below; expected values are the inputs, or the core's clock
 * and ids, or (PERF_SAMPLE_READ) what read(2) of the same event returns.
 */
#include "testsuite/ring/ring_test_util.h"

/* ---- fixed inputs ---- */

static const uint64_t CALLCHAIN[3] = { PERF_CONTEXT_USER, 0x401000, 0x401100 };
static const char RAW[13] = "ABCDEFGHIJKLM";
static const struct perf_branch_entry BRANCHES[2] = {
	{ .from = 0x401010, .to = 0x401200, .mispred = 1 },
	{ .from = 0x401210, .to = 0x401020, .predicted = 1, .cycles = 7 },
};
static uint8_t STACK[100];

/* x86 perf_regs numbering: AX 0, SP 7, IP 8, R8 16; BX 1, CX 2 */
#define REGS_USER_MASK ((1ull << 0) | (1ull << 7) | (1ull << 8) | (1ull << 16))
#define REGS_INTR_MASK ((1ull << 1) | (1ull << 2))

static void fill_data(struct perf_sample_data *d)
{
	memset(d, 0, sizeof(*d));
	d->ip = 0x401000;
	d->addr = 0xdead000;
	d->callchain = CALLCHAIN;
	d->callchain_nr = 3;
	d->raw = RAW;
	d->raw_size = sizeof(RAW);
	d->branches = BRANCHES;
	d->branches_nr = 2;
	d->branches_hw_idx = 9;
	d->regs_user.abi = PERF_SAMPLE_REGS_ABI_64;
	d->regs_intr.abi = PERF_SAMPLE_REGS_ABI_64;
	for (unsigned i = 0; i < PERF_SAMPLE_MAX_REGS; i++) {
		d->regs_user.regs[i] = 0x1000 + i;
		d->regs_intr.regs[i] = 0x2000 + i;
	}
	for (unsigned i = 0; i < sizeof(STACK); i++)
		STACK[i] = (uint8_t)(0xa0 + i);
	d->stack_user = STACK;
	d->stack_user_size = 40;
	d->weight.full = 0x55;
	d->data_src = 0x66;
	d->transaction = 0x77;
	d->phys_addr = 0x88;
	d->cgroup = 0x99;
	d->data_page_size = 4096;
	d->code_page_size = 2u << 20;
	d->cpumode = PERF_RECORD_MISC_USER;
	d->exact_ip = 1;
}

/* ---- the parser ---- */

struct psample {
	uint64_t identifier, ip, time, addr, id, stream_id, period;
	uint32_t pid, tid, cpu, res;
	const uint8_t *read; size_t read_len;
	uint64_t cc_nr; const uint8_t *cc;
	uint32_t raw_size; const uint8_t *raw;
	uint64_t br_nr, br_hw_idx; const uint8_t *br;
	uint64_t ru_abi; uint64_t ru[64]; unsigned ru_n;
	uint64_t su_size, su_dyn; const uint8_t *su;
	uint64_t weight, data_src, txn;
	uint64_t ri_abi; uint64_t ri[64]; unsigned ri_n;
	uint64_t phys, cgroup, dps, cps, aux_size;
};

static size_t read_format_size(uint64_t rf, unsigned nr)
{
	size_t entry = 8 + ((rf & PERF_FORMAT_ID) ? 8 : 0) + ((rf & PERF_FORMAT_LOST) ? 8 : 0);
	size_t times = ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		       ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);

	if (rf & PERF_FORMAT_GROUP)
		return 8 + times + nr * entry;
	return times + entry;
}

static void parse_sample(const struct perf_event_header *h, const struct perf_event_attr *a,
			 unsigned group_nr, struct psample *s)
{
	uint64_t st = a->sample_type;
	struct rd r = { (const uint8_t *)(h + 1), (const uint8_t *)h + h->size };

	memset(s, 0, sizeof(*s));
	assert_int_equal(h->type, PERF_RECORD_SAMPLE);
	if (st & PERF_SAMPLE_IDENTIFIER)
		s->identifier = rd_u64(&r);
	if (st & PERF_SAMPLE_IP)
		s->ip = rd_u64(&r);
	if (st & PERF_SAMPLE_TID) {
		s->pid = rd_u32(&r);
		s->tid = rd_u32(&r);
	}
	if (st & PERF_SAMPLE_TIME)
		s->time = rd_u64(&r);
	if (st & PERF_SAMPLE_ADDR)
		s->addr = rd_u64(&r);
	if (st & PERF_SAMPLE_ID)
		s->id = rd_u64(&r);
	if (st & PERF_SAMPLE_STREAM_ID)
		s->stream_id = rd_u64(&r);
	if (st & PERF_SAMPLE_CPU) {
		s->cpu = rd_u32(&r);
		s->res = rd_u32(&r);
	}
	if (st & PERF_SAMPLE_PERIOD)
		s->period = rd_u64(&r);
	if (st & PERF_SAMPLE_READ) {
		s->read_len = read_format_size(a->read_format, group_nr);
		s->read = rd_bytes(&r, s->read_len);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		s->cc_nr = rd_u64(&r);
		s->cc = rd_bytes(&r, s->cc_nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		s->raw_size = rd_u32(&r);
		s->raw = rd_bytes(&r, s->raw_size);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		s->br_nr = rd_u64(&r);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			s->br_hw_idx = rd_u64(&r);
		s->br = rd_bytes(&r, s->br_nr * sizeof(struct perf_branch_entry));
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		s->ru_abi = rd_u64(&r);
		if (s->ru_abi)
			for (unsigned b = 0; b < 64; b++)
				if (a->sample_regs_user & (1ull << b))
					s->ru[s->ru_n++] = rd_u64(&r);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		s->su_size = rd_u64(&r);
		if (s->su_size) {
			s->su = rd_bytes(&r, s->su_size);
			s->su_dyn = rd_u64(&r);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = rd_u64(&r);
	if (st & PERF_SAMPLE_DATA_SRC)
		s->data_src = rd_u64(&r);
	if (st & PERF_SAMPLE_TRANSACTION)
		s->txn = rd_u64(&r);
	if (st & PERF_SAMPLE_REGS_INTR) {
		s->ri_abi = rd_u64(&r);
		if (s->ri_abi)
			for (unsigned b = 0; b < 64; b++)
				if (a->sample_regs_intr & (1ull << b))
					s->ri[s->ri_n++] = rd_u64(&r);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		s->phys = rd_u64(&r);
	if (st & PERF_SAMPLE_CGROUP)
		s->cgroup = rd_u64(&r);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->dps = rd_u64(&r);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->cps = rd_u64(&r);
	if (st & PERF_SAMPLE_AUX) {
		s->aux_size = rd_u64(&r);
		rd_bytes(&r, s->aux_size);
	}
	/* the record ends exactly where its header says */
	assert_ptr_equal(r.p, r.end);
}

/* Checks every parsed field of a sample against the inputs. */
static void check_sample(struct rig *rg, int fd, const struct perf_event_attr *a,
			 const struct psample *s, uint64_t now)
{
	struct perf_event *e = ev(rg, fd);
	uint64_t st = a->sample_type;

	if (st & PERF_SAMPLE_IDENTIFIER)
		assert_int_equal(s->identifier, e->id);
	if (st & PERF_SAMPLE_IP)
		assert_int_equal(s->ip, 0x401000);
	if (st & PERF_SAMPLE_TID) {
		assert_int_equal(s->pid, 100);
		assert_int_equal(s->tid, 100);
	}
	if (st & PERF_SAMPLE_TIME)
		assert_int_equal(s->time, now);
	if (st & PERF_SAMPLE_ADDR)
		assert_int_equal(s->addr, 0xdead000);
	if (st & PERF_SAMPLE_ID)
		assert_int_equal(s->id, e->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		assert_int_equal(s->stream_id, e->id);
	if (st & PERF_SAMPLE_CPU) {
		assert_int_equal(s->cpu, 0);
		assert_int_equal(s->res, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		assert_int_equal(s->period, 4242);
	if (st & PERF_SAMPLE_READ) {
		uint8_t buf[256];
		ssize_t n = perf_sys_read(rg->core, fd, buf, sizeof(buf));

		/* one event: the sample's read_format block equals read(2) */
		assert_int_equal((size_t)n, s->read_len);
		assert_memory_equal(buf, s->read, s->read_len);
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		assert_int_equal(s->cc_nr, 3);
		assert_memory_equal(s->cc, CALLCHAIN, sizeof(CALLCHAIN));
	}
	if (st & PERF_SAMPLE_RAW) {
		/* round_up(13 + 4, 8) - 4 */
		assert_int_equal(s->raw_size, 20);
		assert_memory_equal(s->raw, RAW, sizeof(RAW));
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		assert_int_equal(s->br_nr, 2);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			assert_int_equal(s->br_hw_idx, 9);
		assert_memory_equal(s->br, BRANCHES, sizeof(BRANCHES));
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		assert_int_equal(s->ru_abi, PERF_SAMPLE_REGS_ABI_64);
		assert_int_equal(s->ru_n, 4);
		assert_int_equal(s->ru[0], 0x1000);
		assert_int_equal(s->ru[1], 0x1007);
		assert_int_equal(s->ru[2], 0x1008);
		assert_int_equal(s->ru[3], 0x1010);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		assert_int_equal(s->su_size, a->sample_stack_user);
		assert_int_equal(s->su_dyn, 40);
		assert_memory_equal(s->su, STACK, 40);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		assert_int_equal(s->weight, 0x55);
	if (st & PERF_SAMPLE_DATA_SRC)
		assert_int_equal(s->data_src, 0x66);
	if (st & PERF_SAMPLE_TRANSACTION)
		assert_int_equal(s->txn, 0x77);
	if (st & PERF_SAMPLE_REGS_INTR) {
		assert_int_equal(s->ri_abi, PERF_SAMPLE_REGS_ABI_64);
		assert_int_equal(s->ri_n, 2);
		assert_int_equal(s->ri[0], 0x2001);
		assert_int_equal(s->ri[1], 0x2002);
	}
	if (st & PERF_SAMPLE_PHYS_ADDR)
		assert_int_equal(s->phys, 0x88);
	if (st & PERF_SAMPLE_CGROUP)
		assert_int_equal(s->cgroup, 0x99);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		assert_int_equal(s->dps, 4096);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		assert_int_equal(s->cps, 2u << 20);
	if (st & PERF_SAMPLE_AUX)
		assert_int_equal(s->aux_size, 0);
}

/* ---- every sample_type bit alone, and combinations ---- */

#define RF_ALL (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
		PERF_FORMAT_ID | PERF_FORMAT_LOST)
#define ALL_BITS (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		  PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
		  PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | \
		  PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | \
		  PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | \
		  PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | \
		  PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

struct layout_row {
	int line;
	const char *kfunc;
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t branch_sample_type;
	uint16_t size;                  /* header.size, worked by hand */
};

static const struct layout_row layout_rows[] = {
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_IDENTIFIER, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_IP, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_TID, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_TIME, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_ADDR, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_ID, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_STREAM_ID, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_CPU, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_PERIOD, 0, 0, 16 },
	/* value + enabled + running + id + lost */
	{ __LINE__, "perf_output_read_one", PERF_SAMPLE_READ, RF_ALL, 0, 48 },
	{ __LINE__, "perf_output_read_one", PERF_SAMPLE_READ, 0, 0, 16 },
	{ __LINE__, "perf_output_read_one", PERF_SAMPLE_READ, PERF_FORMAT_ID, 0, 24 },
	/* nr + 3 ips */
	{ __LINE__, "perf_prepare_sample", PERF_SAMPLE_CALLCHAIN, 0, 0, 40 },
	/* u32 size + 13 bytes padded to 24 */
	{ __LINE__, "perf_prepare_sample", PERF_SAMPLE_RAW, 0, 0, 32 },
	/* nr + 2 * 24 */
	{ __LINE__, "perf_prepare_sample", PERF_SAMPLE_BRANCH_STACK, 0, PERF_SAMPLE_BRANCH_ANY, 64 },
	/* nr + hw_idx + 2 * 24 */
	{ __LINE__, "perf_prepare_sample", PERF_SAMPLE_BRANCH_STACK, 0,
	  PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX, 72 },
	/* abi + 4 regs */
	{ __LINE__, "perf_output_sample_regs", PERF_SAMPLE_REGS_USER, 0, 0, 48 },
	/* size + 64 + dyn_size */
	{ __LINE__, "perf_output_sample_ustack", PERF_SAMPLE_STACK_USER, 0, 0, 88 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_WEIGHT, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_WEIGHT_STRUCT, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_DATA_SRC, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_TRANSACTION, 0, 0, 16 },
	/* abi + 2 regs */
	{ __LINE__, "perf_output_sample_regs", PERF_SAMPLE_REGS_INTR, 0, 0, 32 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_PHYS_ADDR, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_CGROUP, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_DATA_PAGE_SIZE, 0, 0, 16 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_CODE_PAGE_SIZE, 0, 0, 16 },
	/* aux_size 0: no AUX event */
	{ __LINE__, "perf_prepare_sample", PERF_SAMPLE_AUX, 0, 0, 16 },
	/* perf record: IP|TID|TIME|PERIOD */
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	  PERF_SAMPLE_PERIOD, 0, 0, 40 },
	/* perf record -g: + IDENTIFIER + CALLCHAIN */
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	  PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD, 0, 0, 80 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
	  PERF_SAMPLE_READ, PERF_FORMAT_TOTAL_TIME_ENABLED, 0, 48 },
	{ __LINE__, "perf_output_sample", PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
	  PERF_SAMPLE_REGS_INTR, 0, 0, 8 + 40 + 80 + 24 },
	/* every bit but WEIGHT_STRUCT (exclusive with WEIGHT) */
	{ __LINE__, "perf_output_sample", ALL_BITS, RF_ALL, PERF_SAMPLE_BRANCH_ANY, 440 },
};

static void test_layout_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(layout_rows) / sizeof(layout_rows[0]); i++) {
		const struct layout_row *row = &layout_rows[i];
		struct perf_event_attr a = attr_dummy();
		const struct perf_event_header *recs[4];
		struct perf_sample_data d;
		struct psample s;
		uint8_t buf[4096];
		struct rig rg;
		struct perf_event *e;
		uint64_t now;
		void *area;
		size_t len;
		int fd;

		print_message("row line %d (%s)\n", row->line, row->kfunc);
		rig_init(&rg);
		fd = rig_open(&rg, &a, 0, -1);
		assert_true(fd >= 0);
		e = ev(&rg, fd);
		e->attr.branch_sample_type = row->branch_sample_type;
		e->attr.sample_regs_user = REGS_USER_MASK;
		e->attr.sample_regs_intr = REGS_INTR_MASK;
		e->attr.sample_stack_user = 64;
		ev_layout(e, row->sample_type, row->read_format);
		e->last_period = 4242;
		e->count = 777;
		e->lost_samples = 5;
		area = rig_mmap(&rg, fd, 2, PROT_READ | PROT_WRITE);
		rig_run(&rg, 0, 3000000);       /* 1 ms */
		now = perf_cpu_time_ns(perf_core_cpu(rg.core, 0));
		assert_int_equal(now, 1000000);

		fill_data(&d);
		assert_int_equal(perf_event_output_sample(e, &d), 0);
		len = ring_drain(area, buf, sizeof(buf), true);
		assert_int_equal(ring_records(buf, len, recs, 4), 1);
		assert_int_equal(recs[0]->size, row->size);
		assert_int_equal(recs[0]->misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP);
		parse_sample(recs[0], &e->attr, 1, &s);
		check_sample(&rg, fd, &e->attr, &s, now);
		rig_fini(&rg);
	}
}

/* The machine's pid/tid stand; 0 means "the core fills current's". */
static void test_machine_pid_tid(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[4];
	struct perf_sample_data d;
	uint8_t buf[512];
	struct psample s;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	a.sample_type = PERF_SAMPLE_TID;
	fd = rig_open(&rg, &a, 0, -1);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	fill_data(&d);
	d.pid = 7;
	d.tid = 8;
	assert_int_equal(perf_event_output_sample(ev(&rg, fd), &d), 0);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
	parse_sample(recs[0], &ev(&rg, fd)->attr, 1, &s);
	assert_int_equal(s.pid, 7);
	assert_int_equal(s.tid, 8);
	rig_fini(&rg);
}

/* Without a stack or registers, and with no branch stack from the machine. */
static void test_empty_dynamic_parts(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[4];
	struct perf_sample_data d;
	uint8_t buf[512];
	struct psample s;
	struct perf_event *e;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = rig_open(&rg, &a, 0, -1);
	e = ev(&rg, fd);
	e->attr.sample_regs_user = REGS_USER_MASK;
	e->attr.sample_stack_user = 64;
	e->attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX;
	ev_layout(e, PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
		  PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 0);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	memset(&d, 0, sizeof(d));
	assert_int_equal(perf_event_output_sample(e, &d), 0);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
	/* header + cc nr + raw {4, 0} + br nr (no hw_idx without a stack)
	 * + regs abi 0 + stack size 0 */
	assert_int_equal(recs[0]->size, 8 + 8 + 8 + 8 + 8 + 8);
	/* perf_misc_flags() never says "unknown" */
	assert_int_equal(recs[0]->misc, PERF_RECORD_MISC_USER);
	{
		/* the ABI's hw_idx is absent when the PMU gave no branch stack */
		struct perf_event_attr pa = e->attr;

		pa.branch_sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_HW_INDEX;
		parse_sample(recs[0], &pa, 1, &s);
	}
	assert_int_equal(s.cc_nr, 0);
	assert_int_equal(s.raw_size, 4);
	assert_int_equal(s.br_nr, 0);
	assert_int_equal(s.ru_abi, 0);
	assert_int_equal(s.su_size, 0);
	rig_fini(&rg);
}

/* perf_sample_ustack_size(): the dump shrinks to fit the u16 size. */
static void test_stack_user_fits_u16(void **state)
{
	struct perf_event_attr a = attr_dummy();
	static uint8_t buf[70000];
	const struct perf_event_header *recs[4];
	struct perf_sample_data d;
	struct psample s;
	struct perf_event *e;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = rig_open(&rg, &a, 0, -1);
	e = ev(&rg, fd);
	e->attr.sample_regs_user = REGS_USER_MASK;
	e->attr.sample_stack_user = 65528;
	ev_layout(e, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 0);
	area = rig_mmap(&rg, fd, 32, PROT_READ | PROT_WRITE);
	fill_data(&d);
	d.stack_user_size = 100;
	assert_int_equal(perf_event_output_sample(e, &d), 0);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
	/* 48 bytes before the stack part; 48 + 16 + 65528 overflows u16, so
	 * the dump is round_up(65535 - 64 - 8, 8) = 65464 */
	assert_int_equal(recs[0]->size, 48 + 8 + 65464 + 8);
	parse_sample(recs[0], &e->attr, 1, &s);
	assert_int_equal(s.su_size, 65464);
	assert_int_equal(s.su_dyn, 100);
	assert_memory_equal(s.su, STACK, 100);
	rig_fini(&rg);
}

/* perf_output_read_group(): nr, times, then each member's value/id/lost;
 * the same bytes read(2) of the leader returns. */
static void test_read_group(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[4];
	struct perf_sample_data d;
	uint8_t buf[512], rbuf[256];
	struct psample s;
	struct perf_event *le;
	struct rig rg;
	void *area;
	int lfd, s1, s2;
	ssize_t n;

	(void)state;
	rig_init(&rg);
	a.read_format = PERF_FORMAT_GROUP | RF_ALL;
	a.sample_type = PERF_SAMPLE_READ;
	lfd = rig_open(&rg, &a, 0, -1);
	assert_true(lfd >= 0);
	a.sample_period = 0;
	s1 = rig_open_as(&rg, rg.task, &a, 0, -1, lfd, 0);
	s2 = rig_open_as(&rg, rg.task, &a, 0, -1, lfd, 0);
	assert_true(s1 >= 0 && s2 >= 0);
	le = ev(&rg, lfd);
	le->count = 11;
	ev(&rg, s1)->count = 22;
	ev(&rg, s1)->lost_samples = 3;
	ev(&rg, s2)->count = 33;
	area = rig_mmap(&rg, lfd, 1, PROT_READ | PROT_WRITE);
	rig_run(&rg, 0, 3000);
	fill_data(&d);
	assert_int_equal(perf_event_output_sample(le, &d), 0);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
	/* header + nr + enabled + running + 3 * (value, id, lost) */
	assert_int_equal(recs[0]->size, 8 + 8 + 8 + 8 + 3 * 24);
	parse_sample(recs[0], &le->attr, 3, &s);
	n = perf_sys_read(rg.core, lfd, rbuf, sizeof(rbuf));
	assert_int_equal(n, (ssize_t)s.read_len);
	assert_memory_equal(rbuf, s.read, s.read_len);
	{
		uint64_t v[12];

		memcpy(v, s.read, sizeof(v));
		assert_int_equal(v[0], 3);
		assert_int_equal(v[3], 11);
		assert_int_equal(v[4], le->id);
		assert_int_equal(v[6], 22);
		assert_int_equal(v[7], ev(&rg, s1)->id);
		assert_int_equal(v[8], 3);
		assert_int_equal(v[9], 33);
	}
	rig_fini(&rg);
}

/* ---- the sample_id_all trailer (perf_event__output_id_sample) ---- */

struct id_row {
	int line;
	uint64_t sample_type;
	bool sample_id_all;
	uint16_t size;                  /* THROTTLE record size by hand */
};

static const struct id_row id_rows[] = {
	{ __LINE__, PERF_SAMPLE_IP, true, 32 },
	{ __LINE__, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
	  PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER, true, 32 + 48 },
	{ __LINE__, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
	  PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER, false, 32 },
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, true, 32 + 16 },
	{ __LINE__, PERF_SAMPLE_IDENTIFIER, true, 32 + 8 },
	{ __LINE__, PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_READ, true, 32 + 8 },
};

static void test_id_trailer_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(id_rows) / sizeof(id_rows[0]); i++) {
		const struct id_row *row = &id_rows[i];
		struct perf_event_attr a = attr_dummy();
		const struct perf_event_header *recs[4];
		uint8_t buf[512];
		struct parsed_id id;
		struct perf_event *e;
		struct rig rg;
		uint64_t body[3];
		void *area;
		int fd;

		print_message("row line %d (perf_event__output_id_sample)\n", row->line);
		rig_init(&rg);
		a.sample_id_all = row->sample_id_all;
		fd = rig_open(&rg, &a, 0, -1);
		e = ev(&rg, fd);
		ev_layout(e, row->sample_type, 0);
		area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
		rig_run(&rg, 0, 6000);
		perf_log_throttle(e, false);
		assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
		assert_int_equal(recs[0]->type, PERF_RECORD_THROTTLE);
		assert_int_equal(recs[0]->misc, 0);
		assert_int_equal(recs[0]->size, row->size);
		memcpy(body, recs[0] + 1, sizeof(body));
		assert_int_equal(body[0], 2000);        /* time: 6000 cycles at 3 GHz */
		assert_int_equal(body[1], e->id);
		assert_int_equal(body[2], e->id);
		if (row->sample_id_all) {
			id = parse_id_trailer(recs[0], row->sample_type);
			if (row->sample_type & PERF_SAMPLE_TID) {
				assert_int_equal(id.pid, 100);
				assert_int_equal(id.tid, 100);
			}
			if (row->sample_type & PERF_SAMPLE_TIME)
				assert_int_equal(id.time, 2000);
			if (row->sample_type & PERF_SAMPLE_ID)
				assert_int_equal(id.id, e->id);
			if (row->sample_type & PERF_SAMPLE_STREAM_ID)
				assert_int_equal(id.stream_id, e->id);
			if (row->sample_type & PERF_SAMPLE_CPU) {
				assert_int_equal(id.cpu, 0);
				assert_int_equal(id.res, 0);
			}
			if (row->sample_type & PERF_SAMPLE_IDENTIFIER)
				assert_int_equal(id.identifier, e->id);
		}
		/* UNTHROTTLE is the same record with the other type */
		perf_log_throttle(e, true);
		assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
		assert_int_equal(recs[0]->type, PERF_RECORD_UNTHROTTLE);
		assert_int_equal(recs[0]->size, row->size);
		rig_fini(&rg);
	}
}

/* perf_event__header_size / __perf_event_read_size of a group member. */
static void test_header_sizes(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct perf_event *e;
	struct rig rg;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = rig_open(&rg, &a, 0, -1);
	e = ev(&rg, fd);
	ev_layout(e, ALL_BITS, PERF_FORMAT_GROUP | RF_ALL);
	/* nr + en + run + 1 * (value, id, lost) */
	assert_int_equal(e->read_size, 8 + 16 + 24);
	/* IP ADDR PERIOD WEIGHT READ DATA_SRC TXN PHYS CGROUP DPS CPS */
	assert_int_equal(e->header_size, 10 * 8 + 48);
	/* TID TIME IDENTIFIER ID STREAM_ID CPU */
	assert_int_equal(e->id_header_size, 48);
	rig_fini(&rg);
}


/* perf_sample_save_brstack(): at most sample_max_stack entries. */
static void test_branch_max_stack(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[4];
	struct perf_sample_data d;
	uint8_t buf[512];
	struct psample s;
	struct perf_event *e;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = rig_open(&rg, &a, 0, -1);
	e = ev(&rg, fd);
	e->attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	e->attr.sample_max_stack = 1;
	ev_layout(e, PERF_SAMPLE_BRANCH_STACK, 0);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	fill_data(&d);
	assert_int_equal(perf_event_output_sample(e, &d), 0);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
	assert_int_equal(recs[0]->size, 8 + 8 + 24);
	parse_sample(recs[0], &e->attr, 1, &s);
	assert_int_equal(s.br_nr, 1);
	assert_memory_equal(s.br, BRANCHES, sizeof(BRANCHES[0]));
	rig_fini(&rg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_rows),
		cmocka_unit_test(test_machine_pid_tid),
		cmocka_unit_test(test_empty_dynamic_parts),
		cmocka_unit_test(test_stack_user_fits_u16),
		cmocka_unit_test(test_read_group),
		cmocka_unit_test(test_id_trailer_rows),
		cmocka_unit_test(test_header_sizes),
		cmocka_unit_test(test_branch_max_stack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
