/*
 * test_ring_sideband.c - MMAP/MMAP2, COMM, FORK, EXIT and SWITCH records:
 * their layouts (struct perf_event_type comments of <linux/perf_event.h>)
 * and which events get them (perf_iterate_sb: the task's context, then the
 * CPU's side-band events, events below INACTIVE skipped, attr bits).
 */
#include "testsuite/ring/ring_test_util.h"

static const uint8_t BUILD_ID[20] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20
};

static struct perf_mmap_info map_info(const char *name, bool exec)
{
	struct perf_mmap_info m;

	memset(&m, 0, sizeof(m));
	m.addr = 0x400000;
	m.len = 0x2000;
	m.pgoff = 0x1000;
	m.maj = 8;
	m.min = 1;
	m.ino = 1234;
	m.ino_generation = 5;
	m.prot = PROT_READ | (exec ? PROT_EXEC : PROT_WRITE);
	m.flags = MAP_PRIVATE;
	m.filename = name;
	m.exec = exec;
	return m;
}

enum { A_MMAP = 1, A_MMAP2 = 2, A_DATA = 4, A_BUILD_ID = 8, A_ID_ALL = 16 };

struct mmap_row {
	int line;
	unsigned attr;
	const char *name;
	bool exec;
	bool build_id;
	uint32_t type;                  /* 0: no record */
	uint16_t misc;
	uint16_t size;                  /* by hand */
	const char *out_name;
};

static const struct mmap_row mmap_rows[] = {
	/* header + pid,tid + start,len,pgoff + "/usr/bin/true\0" padded to 16 */
	{ __LINE__, A_MMAP, "/usr/bin/true", true, false, PERF_RECORD_MMAP,
	  PERF_RECORD_MISC_USER, 8 + 8 + 24 + 16, "/usr/bin/true" },
	/* + maj,min,ino,ino_generation,prot,flags */
	{ __LINE__, A_MMAP2, "/usr/bin/true", true, false, PERF_RECORD_MMAP2,
	  PERF_RECORD_MISC_USER, 8 + 8 + 24 + 32 + 16, "/usr/bin/true" },
	/* a data mapping needs mmap_data */
	{ __LINE__, A_MMAP, "/data/file", false, false, 0, 0, 0, NULL },
	{ __LINE__, A_MMAP2, "/data/file", false, false, 0, 0, 0, NULL },
	{ __LINE__, A_MMAP | A_DATA, "/data/file", false, false, PERF_RECORD_MMAP,
	  PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, 8 + 8 + 24 + 16, "/data/file" },
	{ __LINE__, A_MMAP2 | A_DATA, "//anon", false, false, PERF_RECORD_MMAP2,
	  PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, 8 + 8 + 24 + 32 + 8, "//anon" },
	/* mmap_data alone takes no executable mapping */
	{ __LINE__, A_DATA, "/usr/bin/true", true, false, 0, 0, 0, NULL },
	/* names that are not paths are cut to 15 characters */
	{ __LINE__, A_MMAP, "[anon:averyveryverylongname]", true, false, PERF_RECORD_MMAP,
	  PERF_RECORD_MISC_USER, 8 + 8 + 24 + 16, "[anon:averyvery" },
	{ __LINE__, A_MMAP, "[heap]", true, false, PERF_RECORD_MMAP,
	  PERF_RECORD_MISC_USER, 8 + 8 + 24 + 8, "[heap]" },
	/* build id form: size byte, 3 reserved, 20 bytes instead of dev/ino */
	{ __LINE__, A_MMAP2 | A_BUILD_ID, "/usr/bin/true", true, true, PERF_RECORD_MMAP2,
	  PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, 8 + 8 + 24 + 32 + 16,
	  "/usr/bin/true" },
	/* attr.build_id without one from the machine: the dev/ino form */
	{ __LINE__, A_MMAP2 | A_BUILD_ID, "/usr/bin/true", true, false, PERF_RECORD_MMAP2,
	  PERF_RECORD_MISC_USER, 8 + 8 + 24 + 32 + 16, "/usr/bin/true" },
	/* with sample_id_all and TID|TIME: + 16 */
	{ __LINE__, A_MMAP | A_ID_ALL, "/usr/bin/true", true, false, PERF_RECORD_MMAP,
	  PERF_RECORD_MISC_USER, 8 + 8 + 24 + 16 + 16, "/usr/bin/true" },
};

static void test_mmap_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(mmap_rows) / sizeof(mmap_rows[0]); i++) {
		const struct mmap_row *row = &mmap_rows[i];
		struct perf_event_attr a = attr_dummy();
		const struct perf_event_header *recs[4];
		struct perf_mmap_info m = map_info(row->name, row->exec);
		uint8_t buf[1024];
		struct rig rg;
		unsigned n;
		void *area;
		int fd;

		print_message("row line %d (perf_event_mmap_output)\n", row->line);
		rig_init(&rg);
		a.mmap = !!(row->attr & A_MMAP);
		a.mmap2 = !!(row->attr & A_MMAP2);
		a.mmap_data = !!(row->attr & A_DATA);
		a.build_id = !!(row->attr & A_BUILD_ID);
		a.sample_id_all = !!(row->attr & A_ID_ALL);
		a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
		fd = rig_open(&rg, &a, 0, -1);
		assert_true(fd >= 0);
		area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
		if (row->build_id) {
			m.build_id = BUILD_ID;
			m.build_id_size = 20;
		}
		rig_run(&rg, 0, 30000);
		perf_event_mmap(rg.core, rg.task, &m);
		n = ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4);
		if (!row->type) {
			assert_int_equal(n, 0);
			rig_fini(&rg);
			continue;
		}
		assert_int_equal(n, 1);
		assert_int_equal(recs[0]->type, row->type);
		assert_int_equal(recs[0]->misc, row->misc);
		assert_int_equal(recs[0]->size, row->size);
		{
			struct rd r = { (const uint8_t *)(recs[0] + 1),
					(const uint8_t *)recs[0] + recs[0]->size };
			const char *name;

			assert_int_equal(rd_u32(&r), 100);
			assert_int_equal(rd_u32(&r), 100);
			assert_int_equal(rd_u64(&r), 0x400000);
			assert_int_equal(rd_u64(&r), 0x2000);
			assert_int_equal(rd_u64(&r), 0x1000);
			if (row->type == PERF_RECORD_MMAP2) {
				bool file = row->name[0] == '/' && row->name[1] != '/';

				if (row->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
					const uint8_t *b = rd_bytes(&r, 24);

					assert_int_equal(b[0], 20);
					assert_int_equal(b[1] | b[2] | b[3], 0);
					assert_memory_equal(b + 4, BUILD_ID, 20);
				} else {
					assert_int_equal(rd_u32(&r), file ? 8 : 0);
					assert_int_equal(rd_u32(&r), file ? 1 : 0);
					assert_int_equal(rd_u64(&r), file ? 1234 : 0);
					assert_int_equal(rd_u64(&r), file ? 5 : 0);
				}
				assert_int_equal(rd_u32(&r), m.prot);
				assert_int_equal(rd_u32(&r), MAP_PRIVATE);
			}
			name = (const char *)r.p;
			assert_string_equal(name, row->out_name);
			/* zero padded to the record's end or its trailer */
			for (const uint8_t *p = r.p + strlen(name);
			     p < r.end - ((row->attr & A_ID_ALL) ? 16 : 0); p++)
				assert_int_equal(*p, 0);
			if (row->attr & A_ID_ALL) {
				struct parsed_id id = parse_id_trailer(recs[0], a.sample_type);

				assert_int_equal(id.pid, 100);
				assert_int_equal(id.time, 10000);
			}
		}
		rig_fini(&rg);
	}
}

/* COMM: {pid, tid, comm padded to u64}; exec sets MISC_COMM_EXEC. */
static void test_comm(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[8];
	uint8_t buf[1024];
	struct rig rg;
	void *area;
	int fd, nocomm;

	(void)state;
	rig_init(&rg);
	a.comm = 1;
	a.comm_exec = 1;
	fd = rig_open(&rg, &a, 0, -1);
	a.comm = 0;
	nocomm = rig_open(&rg, &a, 0, -1);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	rig_mmap(&rg, nocomm, 1, PROT_READ | PROT_WRITE);
	perf_task_exec(rg.core, rg.task, "true");
	perf_event_comm(rg.core, rg.task, false);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 2);
	assert_int_equal(recs[0]->type, PERF_RECORD_COMM);
	assert_int_equal(recs[0]->misc, PERF_RECORD_MISC_COMM_EXEC);
	/* header + pid,tid + "true\0" padded to 8 */
	assert_int_equal(recs[0]->size, 8 + 8 + 8);
	assert_int_equal(((const uint32_t *)(recs[0] + 1))[0], 100);
	assert_int_equal(((const uint32_t *)(recs[0] + 1))[1], 100);
	assert_memory_equal((const uint8_t *)(recs[0] + 1) + 8, "true\0\0\0\0", 8);
	assert_int_equal(recs[1]->misc, 0);
	/* a 15-character comm: 16 bytes with its NUL */
	memcpy(rg.task->comm, "fifteen_chars__", 16);
	perf_event_comm(rg.core, rg.task, false);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 1);
	assert_int_equal(recs[0]->size, 8 + 8 + 16);
	assert_string_equal((const char *)(recs[0] + 1) + 8, "fifteen_chars__");
	rig_fini(&rg);
}

/* FORK {pid, ppid, tid, ptid, time} from the parent; EXIT to the task's own
 * events and then the CPU's; the EXIT ptid carries the parent's pid. */
static void test_fork_exit(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[8];
	struct perf_task *thread, *child;
	struct perf_cred cred = { 0, true };
	uint8_t buf[1024];
	uint32_t f[4];
	uint64_t t;
	struct rig rg;
	void *area, *carea;
	int fd, cfd;

	(void)state;
	rig_init(&rg);
	a.task = 1;
	fd = rig_open(&rg, &a, 0, -1);                 /* the task's */
	cfd = rig_open(&rg, &a, -1, 0);                /* CPU 0's */
	assert_true(fd >= 0 && cfd >= 0);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	carea = rig_mmap(&rg, cfd, 1, PROT_READ | PROT_WRITE);
	rig_run(&rg, 0, 300);

	assert_int_equal(perf_task_fork(rg.core, rg.task, 100, 101, &thread), 0);
	assert_int_equal(perf_task_fork(rg.core, rg.task, 300, 300, &child), 0);
	(void)cred;
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 2);
	assert_int_equal(recs[0]->type, PERF_RECORD_FORK);
	assert_int_equal(recs[0]->size, 8 + 16 + 8);
	memcpy(f, recs[0] + 1, 16);
	memcpy(&t, (const uint8_t *)(recs[0] + 1) + 16, 8);
	assert_int_equal(f[0], 100);
	assert_int_equal(f[1], 100);
	assert_int_equal(f[2], 101);
	assert_int_equal(f[3], 100);
	assert_int_equal(t, 100);
	memcpy(f, recs[1] + 1, 16);
	assert_int_equal(f[0], 300);
	assert_int_equal(f[1], 100);
	assert_int_equal(f[2], 300);
	assert_int_equal(f[3], 100);
	assert_int_equal(ring_records(buf, ring_drain(carea, buf, sizeof(buf), true), recs, 8), 2);

	/* the thread exits on CPU 0: its real parent is its process's parent
	 * (none here: 0); only the CPU event hears it */
	perf_cpu_switch_to(perf_core_cpu(rg.core, 0), thread);
	perf_task_exit(rg.core, thread);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 0);
	assert_int_equal(ring_records(buf, ring_drain(carea, buf, sizeof(buf), true), recs, 8), 1);
	assert_int_equal(recs[0]->type, PERF_RECORD_EXIT);
	memcpy(f, recs[0] + 1, 16);
	assert_int_equal(f[0], 100);
	assert_int_equal(f[1], 0);
	assert_int_equal(f[2], 101);
	assert_int_equal(f[3], 0);

	/* the child exits: ppid and ptid are both the parent's pid */
	perf_cpu_switch_to(perf_core_cpu(rg.core, 0), child);
	perf_task_exit(rg.core, child);
	assert_int_equal(ring_records(buf, ring_drain(carea, buf, sizeof(buf), true), recs, 8), 1);
	memcpy(f, recs[0] + 1, 16);
	assert_int_equal(f[0], 300);
	assert_int_equal(f[1], 100);
	assert_int_equal(f[2], 300);
	assert_int_equal(f[3], 100);

	/* the main task exits: its own event gets EXIT, then the CPU's */
	perf_cpu_switch_to(perf_core_cpu(rg.core, 0), rg.task);
	perf_task_exit(rg.core, rg.task);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 1);
	assert_int_equal(recs[0]->type, PERF_RECORD_EXIT);
	assert_int_equal(ring_records(buf, ring_drain(carea, buf, sizeof(buf), true), recs, 8), 1);
	rig_fini(&rg);
}

/* SWITCH for a task's event, SWITCH_CPU_WIDE {next_prev_pid, tid} for a
 * CPU-wide one; out (MISC_SWITCH_OUT, + PREEMPT if still runnable) with
 * prev as current, in with next as current. */
static void test_switch(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[8];
	uint8_t buf[1024];
	uint32_t np[2];
	struct perf_cpu *cpu0;
	struct rig rg;
	void *area, *carea;
	int fd, cfd;

	(void)state;
	rig_init(&rg);
	cpu0 = perf_core_cpu(rg.core, 0);
	a.context_switch = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID;
	fd = rig_open(&rg, &a, 0, -1);
	cfd = rig_open(&rg, &a, -1, 0);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	carea = rig_mmap(&rg, cfd, 1, PROT_READ | PROT_WRITE);

	rg.task->runnable = true;
	perf_event_switch(cpu0, rg.task, NULL);
	/* the task's event: out only (the idle task is current for the in) */
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 1);
	assert_int_equal(recs[0]->type, PERF_RECORD_SWITCH);
	assert_int_equal(recs[0]->misc, PERF_RECORD_MISC_SWITCH_OUT |
					PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
	assert_int_equal(recs[0]->size, 8 + 8);
	assert_int_equal(parse_id_trailer(recs[0], PERF_SAMPLE_TID).tid, 100);
	/* the CPU's event: out to idle, in from the task */
	assert_int_equal(ring_records(buf, ring_drain(carea, buf, sizeof(buf), true), recs, 8), 2);
	assert_int_equal(recs[0]->type, PERF_RECORD_SWITCH_CPU_WIDE);
	assert_int_equal(recs[0]->size, 8 + 8 + 8);
	memcpy(np, recs[0] + 1, 8);
	assert_int_equal(np[0], 0);
	assert_int_equal(np[1], 0);
	assert_int_equal(parse_id_trailer(recs[0], PERF_SAMPLE_TID).pid, 100);
	assert_int_equal(recs[1]->misc, 0);
	memcpy(np, recs[1] + 1, 8);
	assert_int_equal(np[0], 100);
	assert_int_equal(np[1], 100);
	assert_int_equal(parse_id_trailer(recs[1], PERF_SAMPLE_TID).pid, 0);

	/* back in: not preempted this time */
	rg.task->runnable = false;
	perf_event_switch(cpu0, NULL, rg.task);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 1);
	assert_int_equal(recs[0]->misc, 0);
	assert_int_equal(ring_records(buf, ring_drain(carea, buf, sizeof(buf), true), recs, 8), 2);
	assert_int_equal(recs[0]->misc, PERF_RECORD_MISC_SWITCH_OUT);
	rig_fini(&rg);
}

/* perf_iterate_sb(): a CPU-wide event of another CPU, and an event below
 * INACTIVE (disabled), get nothing; enabling it lets records in. */
static void test_iterate_filters(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[8];
	uint8_t buf[1024];
	struct rig rg;
	void *a1, *aoff;
	int c1, off;

	(void)state;
	rig_init(&rg);
	a.comm = 1;
	c1 = rig_open(&rg, &a, -1, 1);
	a.disabled = 1;
	off = rig_open(&rg, &a, 0, -1);
	a1 = rig_mmap(&rg, c1, 1, PROT_READ | PROT_WRITE);
	aoff = rig_mmap(&rg, off, 1, PROT_READ | PROT_WRITE);
	perf_event_comm(rg.core, rg.task, false);
	assert_int_equal(ring_records(buf, ring_drain(a1, buf, sizeof(buf), true), recs, 8), 0);
	assert_int_equal(ring_records(buf, ring_drain(aoff, buf, sizeof(buf), true), recs, 8), 0);
	assert_int_equal(perf_sys_ioctl(rg.core, rg.task, &perf_uaccess_direct, off,
					PERF_EVENT_IOC_ENABLE, 0), 0);
	perf_event_comm(rg.core, rg.task, false);
	assert_int_equal(ring_records(buf, ring_drain(aoff, buf, sizeof(buf), true), recs, 8), 1);
	/* the task moves to CPU 1: now the CPU 1 event hears it */
	perf_cpu_switch_to(perf_core_cpu(rg.core, 0), NULL);
	perf_cpu_switch_to(perf_core_cpu(rg.core, 1), rg.task);
	perf_event_comm(rg.core, rg.task, false);
	assert_int_equal(ring_records(buf, ring_drain(a1, buf, sizeof(buf), true), recs, 8), 1);
	rig_fini(&rg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmap_rows),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_fork_exit),
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_iterate_filters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
