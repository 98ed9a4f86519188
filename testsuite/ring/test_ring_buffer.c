/*
 * test_ring_buffer.c - the ring itself: space and PERF_RECORD_LOST
 * accounting, overwrite and backward rings, watermark and wakeup_events
 * wakeups, poll, mmap and SET_OUTPUT errnos, and the mmap page.
 *
 * Expected numbers are worked by hand from __perf_output_begin (CIRC_SPACE
 * leaves one byte free, so a 4096-byte ring holds at most 4088 bytes of
 * 8-byte-aligned records), perf_output_put_handle and ring_buffer_init.
 */
#include "testsuite/ring/ring_test_util.h"
#include "sim/core/ring_buffer.h"
#include "sim/core/arena.h"
#include <sys/wait.h>

/* IP|TID|TIME: 8 + 8 + 8 + 8 = 32 bytes a sample */
#define ST32 (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

static void put_sample(struct rig *rg, int fd, uint64_t ip, int expect)
{
	struct perf_sample_data d;

	memset(&d, 0, sizeof(d));
	d.ip = ip;
	d.cpumode = PERF_RECORD_MISC_USER;
	assert_int_equal(perf_event_output_sample(ev(rg, fd), &d), expect);
}

static int open_sampler(struct rig *rg, uint64_t st, bool sample_id_all)
{
	struct perf_event_attr a = attr_dummy();
	int fd;

	a.sample_type = st;
	a.sample_id_all = sample_id_all;
	a.read_format = PERF_FORMAT_LOST | PERF_FORMAT_ID;
	fd = rig_open(rg, &a, 0, -1);
	assert_true(fd >= 0);
	return fd;
}

/* ---- LOST ---- */

static void lost_case(bool sample_id_all)
{
	const struct perf_event_header *recs[256];
	static uint8_t buf[8192];
	uint64_t lost_rec[2], rd[3];
	struct rig rg;
	void *area;
	unsigned n;
	size_t len;
	int fd;

	rig_init(&rg);
	fd = open_sampler(&rg, ST32, sample_id_all);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);

	/* 127 records of 32 bytes fit (127 * 32 = 4064 <= 4095 - 32 fails at
	 * the 128th: space = 4095 - 4064 = 31 < 32); the other 73 are lost */
	for (unsigned i = 0; i < 200; i++)
		put_sample(&rg, fd, 0x1000 + i, i < 127 ? 0 : -ENOSPC);
	assert_int_equal(ev(&rg, fd)->lost_samples, 73);
	/* read(2) with FORMAT_LOST shows the same count: value, id, lost */
	assert_int_equal(perf_sys_read(rg.core, fd, rd, sizeof(rd)), 24);
	assert_int_equal(rd[2], 73);

	len = ring_drain(area, buf, sizeof(buf), true);
	assert_int_equal(len, 127 * 32);
	n = ring_records(buf, len, recs, 256);
	assert_int_equal(n, 127);
	for (unsigned i = 0; i < n; i++) {
		uint64_t ip;

		memcpy(&ip, recs[i] + 1, 8);
		assert_int_equal(ip, 0x1000 + i);
	}

	/* the next record that fits is preceded by LOST {id, lost} */
	put_sample(&rg, fd, 0x9999, 0);
	len = ring_drain(area, buf, sizeof(buf), true);
	n = ring_records(buf, len, recs, 256);
	assert_int_equal(n, 2);
	assert_int_equal(recs[0]->type, PERF_RECORD_LOST);
	assert_int_equal(recs[0]->misc, 0);
	/* header + id + lost (+ TID, TIME trailer with sample_id_all) */
	assert_int_equal(recs[0]->size, sample_id_all ? 24 + 16 : 24);
	memcpy(lost_rec, recs[0] + 1, sizeof(lost_rec));
	assert_int_equal(lost_rec[0], ev(&rg, fd)->id);
	assert_int_equal(lost_rec[1], 73);
	if (sample_id_all) {
		struct parsed_id id = parse_id_trailer(recs[0], ST32);

		assert_int_equal(id.pid, 100);
		assert_int_equal(id.tid, 100);
	}
	assert_int_equal(recs[1]->type, PERF_RECORD_SAMPLE);
	assert_int_equal(recs[1]->size, 32);

	/* counted once: the next record comes alone */
	put_sample(&rg, fd, 0xaaaa, 0);
	len = ring_drain(area, buf, sizeof(buf), true);
	assert_int_equal(ring_records(buf, len, recs, 256), 1);
	rig_fini(&rg);
}

static void test_lost(void **state)
{
	(void)state;
	lost_case(false);
}

static void test_lost_sample_id_all(void **state)
{
	(void)state;
	lost_case(true);
}

/* A record that fits alone but not with the LOST before it is lost too. */
static void test_lost_needs_room_for_itself(void **state)
{
	const struct perf_event_header *recs[256];
	static uint8_t buf[8192];
	struct perf_event_mmap_page *up;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = open_sampler(&rg, ST32, false);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	up = area;
	for (unsigned i = 0; i < 128; i++)
		put_sample(&rg, fd, i, i < 127 ? 0 : -ENOSPC);
	/* free 32 bytes only: 31 + 32 of space, LOST(24) + sample(32) = 56 fits */
	up->data_tail = 32;
	put_sample(&rg, fd, 0x77, 0);
	assert_int_equal(up->data_head, 127 * 32 + 56);
	/* now space is 4095 - (4120 - 32) = 7 */
	put_sample(&rg, fd, 0x78, -ENOSPC);
	up->data_tail = 64 + 32;       /* 4095 - 4024 = 71: LOST + sample = 56 */
	put_sample(&rg, fd, 0x79, 0);
	(void)ring_drain;
	(void)recs;
	(void)buf;
	assert_int_equal(up->data_head, 127 * 32 + 56 + 56);
	assert_int_equal(ev(&rg, fd)->lost_samples, 2);
	rig_fini(&rg);
}

/* ---- overwrite ---- */

static void test_overwrite_forward(void **state)
{
	struct perf_event_mmap_page *up;
	struct ring_view v;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = open_sampler(&rg, ST32, false);
	area = rig_mmap(&rg, fd, 1, PROT_READ);        /* read-only: overwrite */
	up = area;
	for (unsigned i = 0; i < 1000; i++)
		put_sample(&rg, fd, 0x1000 + i, 0);
	/* nothing is lost, head keeps growing past the buffer */
	assert_int_equal(up->data_head, 1000 * 32);
	assert_int_equal(up->data_tail, 0);
	assert_int_equal(ev(&rg, fd)->lost_samples, 0);
	/* the last 4096 / 32 = 128 records are in place, newest last */
	v = ring_view(area);
	for (unsigned k = 1; k <= 128; k++) {
		struct perf_event_header h;
		uint64_t ip;

		ring_copy(&v, 1000 * 32 - k * 32, &h, sizeof(h));
		ring_copy(&v, 1000 * 32 - k * 32 + 8, &ip, sizeof(ip));
		assert_int_equal(h.type, PERF_RECORD_SAMPLE);
		assert_int_equal(h.size, 32);
		assert_int_equal(ip, 0x1000 + 1000 - k);
	}
	rig_fini(&rg);
}

/* write_backward: head goes down from 0; a reader walks up from data_head
 * and meets the newest record first (perf_output_begin_backward). */
static void test_overwrite_backward(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct perf_event_mmap_page *up;
	struct ring_view v;
	struct rig rg;
	uint64_t head, pos;
	unsigned k = 0;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	a.sample_type = PERF_SAMPLE_IP;                 /* 16-byte records */
	a.write_backward = 1;
	fd = rig_open(&rg, &a, 0, -1);
	assert_true(fd >= 0);
	area = rig_mmap(&rg, fd, 1, PROT_READ);
	up = area;
	for (unsigned i = 0; i < 300; i++)
		put_sample(&rg, fd, 0x5000 + i, 0);
	head = up->data_head;
	assert_int_equal(head, (uint64_t)0 - 300 * 16);
	v = ring_view(area);
	/* walk at most data_size bytes up from head */
	for (pos = head; pos - head + 16 <= v.size; pos += 16, k++) {
		struct perf_event_header h;
		uint64_t ip;

		ring_copy(&v, pos, &h, sizeof(h));
		ring_copy(&v, pos + 8, &ip, sizeof(ip));
		assert_int_equal(h.size, 16);
		assert_int_equal(ip, 0x5000 + 299 - k);
	}
	assert_int_equal(k, 256);
	rig_fini(&rg);
}

/* A writable backward ring stops when it meets data_tail from below. */
static void test_backward_writable_space(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct perf_event_mmap_page *up;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	a.sample_type = PERF_SAMPLE_IP;
	a.write_backward = 1;
	fd = rig_open(&rg, &a, 0, -1);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	up = area;
	/* CIRC_SPACE(tail, head): 255 records of 16 bytes fit in 4095 */
	for (unsigned i = 0; i < 300; i++)
		put_sample(&rg, fd, i, i < 255 ? 0 : -ENOSPC);
	assert_int_equal(up->data_head, (uint64_t)0 - 255 * 16);
	assert_int_equal(ev(&rg, fd)->lost_samples, 45);
	rig_fini(&rg);
}

/* PERF_EVENT_IOC_PAUSE_OUTPUT: a paused ring counts losses. */
static void test_paused(void **state)
{
	struct perf_event_mmap_page *up;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = open_sampler(&rg, PERF_SAMPLE_IP, false);
	assert_int_equal(perf_sys_ioctl(rg.core, rg.task, &perf_uaccess_direct, fd,
					PERF_EVENT_IOC_PAUSE_OUTPUT, 1), -EINVAL);
	area = rig_mmap(&rg, fd, 1, PROT_READ);
	up = area;
	assert_int_equal(perf_sys_ioctl(rg.core, rg.task, &perf_uaccess_direct, fd,
					PERF_EVENT_IOC_PAUSE_OUTPUT, 1), 0);
	put_sample(&rg, fd, 1, -ENOSPC);
	put_sample(&rg, fd, 2, -ENOSPC);
	assert_int_equal(up->data_head, 0);
	assert_int_equal(perf_sys_ioctl(rg.core, rg.task, &perf_uaccess_direct, fd,
					PERF_EVENT_IOC_PAUSE_OUTPUT, 0), 0);
	put_sample(&rg, fd, 3, 0);
	/* LOST {id, 2} (24) then the sample (16) */
	assert_int_equal(up->data_head, 40);
	assert_int_equal(ev(&rg, fd)->lost_samples, 2);
	rig_fini(&rg);
}

/* ---- wakeups and poll ---- */

struct wake_row {
	int line;
	const char *kfunc;
	unsigned pages;
	bool watermark;
	unsigned wakeup;                /* wakeup_events or wakeup_watermark */
	unsigned records;               /* 32-byte samples written */
	unsigned wakeups;               /* machine wakeups, by hand */
};

static const struct wake_row wake_rows[] = {
	/* watermark = 2048: head > 2048 at 65, > 4096 at 129, > 6144 at 193 */
	{ __LINE__, "ring_buffer_init", 1, false, 0, 200, 3 },
	{ __LINE__, "ring_buffer_init", 1, false, 0, 64, 0 },
	/* wakeup_watermark 100: head 128 (k=4), 224 (k=7), 320 (k=10) */
	{ __LINE__, "__perf_output_begin", 1, true, 100, 10, 3 },
	/* wakeup_watermark above the buffer is clamped to it: 4096 < 32k at 129 */
	{ __LINE__, "ring_buffer_init", 1, true, 100000, 200, 1 },
	/* wakeup_events 5 with 8192 watermark: samples 5 and 10 */
	{ __LINE__, "perf_output_sample", 4, false, 5, 12, 2 },
	{ __LINE__, "perf_output_sample", 4, false, 1, 3, 3 },
};

static void test_wakeup_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(wake_rows) / sizeof(wake_rows[0]); i++) {
		const struct wake_row *row = &wake_rows[i];
		struct perf_event_attr a = attr_dummy();
		struct rig rg;
		int fd;

		print_message("row line %d (%s)\n", row->line, row->kfunc);
		rig_init(&rg);
		a.sample_type = ST32;
		a.watermark = row->watermark;
		a.wakeup_events = row->wakeup;         /* union with wakeup_watermark */
		fd = rig_open(&rg, &a, 0, -1);
		assert_true(fd >= 0);
		rig_mmap(&rg, fd, row->pages, PROT_READ);
		assert_int_equal(perf_sys_poll(rg.core, fd), 0);
		rg.wakeups = 0;
		for (unsigned k = 0; k < row->records; k++)
			put_sample(&rg, fd, k, 0);
		assert_int_equal(rg.wakeups, row->wakeups);
		if (row->wakeups) {
			assert_int_equal(rg.last_wakeup_handle, fd);
			/* rb->poll = EPOLLIN | EPOLLRDNORM, consumed by poll */
			assert_int_equal(perf_sys_poll(rg.core, fd), POLLIN | POLLRDNORM);
		}
		assert_int_equal(perf_sys_poll(rg.core, fd), 0);
		rig_fini(&rg);
	}
}

/* A wakeup also raises the owner's SIGIO (POLL_IN) through fasync. */
static void test_wakeup_fasync(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct rig rg;
	int fd;

	(void)state;
	rig_init(&rg);
	a.sample_type = ST32;
	a.wakeup_events = 1;
	fd = rig_open(&rg, &a, 0, -1);
	rig_mmap(&rg, fd, 1, PROT_READ);
	/* without O_ASYNC a wakeup sends nothing */
	put_sample(&rg, fd, 1, 0);
	assert_int_equal(rg.wakeups, 1);
	assert_int_equal(rg.fasyncs, 0);
	assert_int_equal(ev(&rg, fd)->pending_kill, 0);
	assert_int_equal(perf_sys_fasync(rg.core, fd, true), 0);
	put_sample(&rg, fd, 1, 0);
	assert_int_equal(rg.fasyncs, 1);
	assert_int_equal(rg.last_si_code, POLL_IN);
	assert_int_equal(ev(&rg, fd)->pending_kill, 0);
	rig_fini(&rg);
}

/* perf_poll(): POLLHUP with no ring, or exited with no children. */
static void test_poll_hup(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct rig rg;
	int fd, fd2;

	(void)state;
	rig_init(&rg);
	fd = rig_open(&rg, &a, 0, -1);
	fd2 = rig_open(&rg, &a, 0, -1);
	assert_int_equal(perf_sys_poll(rg.core, fd), POLLHUP);
	rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	assert_int_equal(perf_sys_poll(rg.core, fd), 0);
	perf_task_exit(rg.core, rg.task);
	assert_int_equal(perf_sys_poll(rg.core, fd), POLLHUP);
	assert_int_equal(perf_sys_poll(rg.core, fd2), POLLHUP);
	rig_fini(&rg);
}

/* ---- mmap errnos ---- */

struct mmap_row {
	int line;
	const char *kfunc;
	size_t len;
	int prot, flags;
	uint64_t pgoff;
	int err;
};

static const struct mmap_row mmap_rows[] = {
	{ __LINE__, "perf_mmap_rb", 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, 0, 0 },
	{ __LINE__, "perf_mmap_rb", 1 * PAGE, PROT_READ, MAP_SHARED, 0, 0 },
	{ __LINE__, "perf_mmap_rb", 9 * PAGE, PROT_READ, MAP_SHARED, 0, 0 },
	{ __LINE__, "perf_mmap_rb", 4 * PAGE, PROT_READ, MAP_SHARED, 0, -EINVAL },
	{ __LINE__, "perf_mmap_rb", 7 * PAGE, PROT_READ, MAP_SHARED, 0, -EINVAL },
	/* rounded up to 2 pages by the mm */
	{ __LINE__, "do_mmap", PAGE + 1, PROT_READ, MAP_SHARED, 0, 0 },
	{ __LINE__, "do_mmap", 0, PROT_READ, MAP_SHARED, 0, -EINVAL },
	{ __LINE__, "perf_mmap", 2 * PAGE, PROT_READ, MAP_PRIVATE, 0, -EINVAL },
	{ __LINE__, "perf_mmap", 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0, -EINVAL },
	/* AUX without a ring */
	{ __LINE__, "perf_mmap_aux", 2 * PAGE, PROT_READ, MAP_SHARED, 3, -EINVAL },
};

static void test_mmap_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(mmap_rows) / sizeof(mmap_rows[0]); i++) {
		const struct mmap_row *row = &mmap_rows[i];
		struct perf_event_attr a = attr_dummy();
		void *area = NULL;
		int memfd = -1;
		struct rig rg;
		int fd, err;

		print_message("row line %d (%s)\n", row->line, row->kfunc);
		rig_init(&rg);
		fd = rig_open(&rg, &a, 0, -1);
		err = perf_sys_mmap(rg.core, rg.task, fd, row->len, row->prot, row->flags,
				    row->pgoff, &area, &memfd);
		assert_int_equal(err, row->err);
		if (!err) {
			struct perf_event_mmap_page *up = area;

			assert_int_equal(up->data_size, ((row->len + PAGE - 1) / PAGE - 1) * PAGE);
			assert_int_equal(perf_sys_munmap(rg.core, fd, area, row->len), 0);
			assert_null(ev(&rg, fd)->rb);
		}
		rig_fini(&rg);
	}
}

/* A second mmap of the same event must match; AUX needs the page's
 * aux_offset/aux_size, then fails for a PMU without AUX. */
static void test_mmap_again_and_aux(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct perf_event_mmap_page *up;
	void *area, *area2 = NULL;
	int memfd = -1;
	struct rig rg;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = rig_open(&rg, &a, 0, -1);
	area = rig_mmap(&rg, fd, 2, PROT_READ | PROT_WRITE);
	up = area;
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 5 * PAGE, PROT_READ, MAP_SHARED, 0,
				       &area2, &memfd), -EINVAL);
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 3 * PAGE, PROT_READ, MAP_SHARED, 0,
				       &area2, &memfd), 0);
	assert_ptr_not_equal(area, area2);
	/* the same pages: a record shows through both */
	put_sample(&rg, fd, 0x42, 0);
	assert_int_equal(((struct perf_event_mmap_page *)area2)->data_head, 16);
	assert_memory_equal((uint8_t *)area + PAGE, (uint8_t *)area2 + PAGE, 16);
	/* AUX: aux_offset 0 < data end */
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 2 * PAGE, PROT_READ, MAP_SHARED, 3,
				       &area2, &memfd), -EINVAL);
	up->aux_offset = 3 * PAGE;
	up->aux_size = 2 * PAGE;
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 2 * PAGE, PROT_READ, MAP_SHARED, 4,
				       &area2, &memfd), -EINVAL);      /* offset mismatch */
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 4 * PAGE, PROT_READ, MAP_SHARED, 3,
				       &area2, &memfd), -EINVAL);      /* size mismatch */
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 2 * PAGE, PROT_READ, MAP_SHARED, 3,
				       &area2, &memfd), -EOPNOTSUPP);  /* rb_alloc_aux */
	/* munmap: exact mapping only */
	assert_int_equal(perf_sys_munmap(rg.core, fd, area, PAGE), -EINVAL);
	assert_int_equal(perf_sys_munmap(rg.core, fd, area, 3 * PAGE), 0);
	assert_non_null(ev(&rg, fd)->rb);
	rig_fini(&rg);
}

/* No mmap of inherited per-task counters. */
static void test_mmap_inherit(void **state)
{
	struct perf_event_attr a = attr_dummy();
	void *area = NULL;
	int memfd = -1;
	struct rig rg;
	int fd;

	(void)state;
	rig_init(&rg);
	a.inherit = 1;
	fd = rig_open(&rg, &a, 0, -1);
	assert_true(fd >= 0);
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 2 * PAGE, PROT_READ, MAP_SHARED, 0,
				       &area, &memfd), -EINVAL);
	fd = rig_open(&rg, &a, 0, 0);
	assert_true(fd >= 0);
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 2 * PAGE, PROT_READ, MAP_SHARED, 0,
				       &area, &memfd), 0);
	rig_fini(&rg);
}

/* perf_mmap_calc_limits(): (516 KiB >> 2) * 2 CPUs = 258 pages for the
 * user, then 2048 pinned pages (8 MiB RLIMIT_MEMLOCK), then EPERM for an
 * unprivileged, paranoid caller. */
static void test_mmap_mlock(void **state)
{
	struct perf_event_attr a = attr_dummy();
	void *area = NULL;
	int memfd = -1;
	struct rig rg;
	int fd;

	(void)state;
	rig_init_cfg(&rg, 2, 2, false);
	a.exclude_kernel = 1;
	fd = rig_open(&rg, &a, 0, -1);
	assert_true(fd >= 0);
	/* 1 + 2048 pages: 2049 - 258 = 1791 pinned, under 2048 */
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 2049 * PAGE, PROT_READ, MAP_SHARED,
				       0, &area, &memfd), 0);
	fd = rig_open(&rg, &a, 0, -1);
	/* user_locked is capped at 258; 258 + 513 - 258 = 513 more pinned:
	 * 1791 + 513 = 2304 > 2048 */
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 513 * PAGE, PROT_READ, MAP_SHARED,
				       0, &area, &memfd), -EPERM);
	/* 1791 + 257 = 2048 is still allowed */
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 257 * PAGE, PROT_READ, MAP_SHARED,
				       0, &area, &memfd), 0);
	rig_fini(&rg);

	/* a privileged caller passes */
	rig_init_cfg(&rg, 2, 2, true);
	fd = rig_open(&rg, &a, 0, -1);
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 4097 * PAGE, PROT_READ, MAP_SHARED,
				       0, &area, &memfd), 0);
	rig_fini(&rg);
}

/* ---- SET_OUTPUT ---- */

static long set_output(struct rig *rg, int fd, int out)
{
	return perf_sys_ioctl(rg->core, rg->task, &perf_uaccess_direct, fd,
			      PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)(long)out);
}

static void test_set_output(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[8];
	uint8_t buf[512];
	void *area, *area2 = NULL;
	int memfd = -1;
	struct rig rg;
	int out, fd, cpu0, cpu1, clk, bwd, other;
	struct perf_task *t2;
	struct perf_cred cred = { 0, true };

	(void)state;
	rig_init(&rg);
	out = rig_open(&rg, &a, 0, -1);
	fd = rig_open(&rg, &a, 0, -1);
	/* the output has no ring yet */
	assert_int_equal(set_output(&rg, fd, out), -EINVAL);
	area = rig_mmap(&rg, out, 1, PROT_READ | PROT_WRITE);
	assert_int_equal(set_output(&rg, out, out), -EINVAL);          /* self */
	cpu0 = rig_open(&rg, &a, 0, 0);
	assert_int_equal(set_output(&rg, cpu0, out), -EINVAL);         /* cross-cpu */
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	clk = rig_open(&rg, &a, 0, -1);
	assert_true(clk >= 0);
	assert_int_equal(set_output(&rg, clk, out), -EINVAL);          /* clock */
	a.use_clockid = 0;
	a.clockid = 0;
	a.write_backward = 1;
	bwd = rig_open(&rg, &a, 0, -1);
	assert_int_equal(set_output(&rg, bwd, out), -EINVAL);          /* direction */
	a.write_backward = 0;
	t2 = perf_task_create(rg.core, 200, 200, cred);
	other = rig_open(&rg, &a, 200, -1);
	assert_true(other >= 0);
	assert_int_equal(set_output(&rg, other, out), -EINVAL);        /* other task */
	(void)t2;

	assert_int_equal(set_output(&rg, fd, out), 0);
	/* a redirected event writes into the output's ring with its own id */
	put_sample(&rg, fd, 0x1234, 0);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 1);
	assert_int_equal(*(const uint64_t *)(recs[0] + 1), 0x1234);
	/* it shares the poll state and cannot be mmapped itself (an alias) */
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 2 * PAGE, PROT_READ, MAP_SHARED, 0,
				       &area2, &memfd), -EBUSY);
	assert_int_equal(perf_sys_mmap(rg.core, rg.task, fd, 3 * PAGE, PROT_READ, MAP_SHARED, 0,
				       &area2, &memfd), -EINVAL);
	/* an mmapped event cannot be redirected */
	assert_int_equal(set_output(&rg, out, fd), -EINVAL);
	/* redirect back to nothing */
	assert_int_equal(set_output(&rg, fd, -1), 0);
	assert_null(ev(&rg, fd)->rb);
	put_sample(&rg, fd, 0x1, -ENOSPC);

	/* unmapping the output detaches every event redirected into it */
	assert_int_equal(set_output(&rg, fd, out), 0);
	assert_int_equal(perf_sys_munmap(rg.core, out, area, 2 * PAGE), 0);
	assert_null(ev(&rg, fd)->rb);
	assert_null(ev(&rg, out)->rb);
	(void)cpu1;
	rig_fini(&rg);
}

/*
 * perf_sys_output_record(): a finished record from elsewhere (a host
 * event's, copied by the shim) through __perf_output_begin()'s rules on
 * the ring the event writes to: byte for byte; into its SET_OUTPUT target;
 * CIRC_SPACE leaves one byte, so a writable 4096-byte ring holds 4088
 * bytes: 102 records of 40 bytes fit (4080), the 103rd is lost (rb->lost
 * 1) and the next one after a read is preceded by PERF_RECORD_LOST {id of
 * the writing event, 1} (24 bytes; no sample_id_all); the 1-byte
 * watermark wakes (POLLIN|POLLRDNORM); no ring is -ENOSPC.
 */
static void test_output_record(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[8];
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		char comm[16];
		uint64_t time;
	} rec = { { PERF_RECORD_COMM, 0, 40 }, 7, 8, "copied", 12345 };
	uint8_t buf[8192];
	struct rig rg;
	void *area;
	int out, fd;

	(void)state;
	rig_init(&rg);
	a.watermark = 1;
	a.wakeup_watermark = 1;
	out = rig_open(&rg, &a, 0, -1);
	fd = rig_open(&rg, &a, 0, -1);
	assert_int_equal(perf_sys_output_record(rg.core, fd, &rec.h), -ENOSPC);    /* no ring */
	area = rig_mmap(&rg, out, 1, PROT_READ | PROT_WRITE);
	assert_int_equal(set_output(&rg, fd, out), 0);
	assert_int_equal(perf_sys_poll(rg.core, out), 0);
	assert_int_equal(perf_sys_output_record(rg.core, fd, &rec.h), 0);
	assert_int_equal(perf_sys_poll(rg.core, out), POLLIN | POLLRDNORM);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 1);
	assert_memory_equal(recs[0], &rec, sizeof(rec));
	for (int i = 0; i < 102; i++)
		assert_int_equal(perf_sys_output_record(rg.core, fd, &rec.h), 0);
	assert_int_equal(perf_sys_output_record(rg.core, fd, &rec.h), -ENOSPC);
	assert_int_equal(ring_drain(area, buf, sizeof(buf), true), 102 * 40);
	assert_int_equal(perf_sys_output_record(rg.core, fd, &rec.h), 0);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 8), 2);
	assert_int_equal(recs[0]->type, PERF_RECORD_LOST);
	assert_int_equal(recs[0]->size, 24);
	assert_int_equal(((const uint64_t *)(recs[0] + 1))[0], ev(&rg, fd)->id);
	assert_int_equal(((const uint64_t *)(recs[0] + 1))[1], 1);
	assert_memory_equal(recs[1], &rec, sizeof(rec));
	rec.h.size = 12;        /* not a multiple of 8: no record */
	assert_int_equal(perf_sys_output_record(rg.core, fd, &rec.h), -EINVAL);
	rig_fini(&rg);
}

/* ---- the mmap page ---- */

static void test_user_page(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct perf_event_mmap_page *up;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	rig_run(&rg, 0, 3000000000ull);                 /* 1 s */
	fd = rig_open(&rg, &a, 0, -1);
	area = rig_mmap(&rg, fd, 4, PROT_READ | PROT_WRITE);
	up = area;
	assert_int_equal(up->version, 0);
	assert_int_equal(up->compat_version, 0);
	assert_int_equal(up->lock % 2, 0);
	assert_int_equal(up->data_offset, PAGE);
	assert_int_equal(up->data_size, 4 * PAGE);
	assert_int_equal(up->data_head, 0);
	assert_int_equal(up->data_tail, 0);
	assert_int_equal(up->size, offsetof(struct perf_event_mmap_page, __reserved));
	assert_int_equal(up->cap_bit0, 0);
	assert_int_equal(up->cap_bit0_is_deprecated, 1);
	/* a software event: no RDPMC, index 0 */
	assert_int_equal(up->cap_user_rdpmc, 0);
	assert_int_equal(up->index, 0);
	/* x86: TSC at 3 GHz: clocks_calc_mult_shift(3000000 kHz, 1000000)
	 * gives shift 32, mult round(2^32 / 3) = 1431655765; shift 32 is
	 * lowered to 31 with mult >> 1 = 715827882 */
	assert_int_equal(up->cap_user_time, 1);
	assert_int_equal(up->cap_user_time_zero, 1);
	assert_int_equal(up->cap_user_time_short, 0);
	assert_int_equal(up->time_shift, 31);
	assert_int_equal(up->time_mult, 715827882);
	assert_int_equal(up->time_zero, 0);
	assert_int_equal(up->pmc_width, 48);
	/* time_offset = time_zero - now at the update */
	assert_int_equal(up->time_offset, (uint64_t)0 - 1000000000ull);
	{
		/* the documented conversion of a TSC read 1 s later */
		uint64_t cyc = 6000000000ull, quot = cyc >> up->time_shift;
		uint64_t rem = cyc & (((uint64_t)1 << up->time_shift) - 1);
		uint64_t ns = up->time_zero + quot * up->time_mult +
			      ((rem * up->time_mult) >> up->time_shift);

		assert_true(ns <= 2000000000ull && ns > 2000000000ull - 2000);
	}
	rig_fini(&rg);
}

/* A hardware event on a counter: index = RDPMC index + 1, and offset plus
 * the sign-extended counter value is the count (perf_event_mmap_page). */
static void test_user_page_rdpmc(void **state)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *up;
	struct perf_event *e;
	struct sim_delta d;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;   /* a general-purpose counter */
	a.exclude_kernel = 1;
	fd = rig_open(&rg, &a, 0, -1);
	assert_true(fd >= 0);
	e = ev(&rg, fd);
	memset(&d, 0, sizeof(d));
	d.v[SIM_SRC_BRANCHES] = 1000;
	d.v[SIM_SRC_CYCLES] = 3000;
	perf_cpu_account(perf_core_cpu(rg.core, 0), SIM_MODE_USER, &d);
	assert_int_equal(e->state, PERF_EVENT_STATE_ACTIVE);
	area = rig_mmap(&rg, fd, 1, PROT_READ);
	up = area;
	assert_int_equal(up->cap_user_rdpmc, 1);
	assert_true(e->hw_idx >= 0 && e->hw_idx < 32);
	assert_int_equal(up->index, (uint32_t)e->hw_idx + 1);
	{
		uint64_t pmc = perf_event_hw_value(e);
		int64_t sext = (int64_t)(pmc << 16) >> 16;     /* pmc_width 48 */

		assert_int_equal((uint64_t)(up->offset + sext), 1000);
	}
	rig_fini(&rg);
}


/* PERF_RECORD_LOST_SAMPLES {lost} + trailer (perf_log_lost_samples). */
static void test_lost_samples_record(void **state)
{
	const struct perf_event_header *recs[4];
	uint8_t buf[512];
	uint64_t lost;
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = open_sampler(&rg, PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER, true);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	perf_log_lost_samples(ev(&rg, fd), 17);
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
	assert_int_equal(recs[0]->type, PERF_RECORD_LOST_SAMPLES);
	assert_int_equal(recs[0]->misc, 0);
	assert_int_equal(recs[0]->size, 8 + 8 + 16);
	memcpy(&lost, recs[0] + 1, 8);
	assert_int_equal(lost, 17);
	assert_int_equal(parse_id_trailer(recs[0], PERF_SAMPLE_TID | PERF_SAMPLE_IDENTIFIER)
			 .identifier, ev(&rg, fd)->id);
	rig_fini(&rg);
}

/* An inherited copy writes to its parent's ring: ID is the parent's
 * (primary_event_id), STREAM_ID its own; losses count on the parent. */
static void test_inherited_output(void **state)
{
	struct perf_event_attr a = attr_dummy();
	const struct perf_event_header *recs[4];
	struct perf_event *parent, *child;
	struct perf_task *ct;
	uint8_t buf[512];
	uint64_t v[2];
	struct rig rg;
	void *area;
	int fd;

	(void)state;
	rig_init(&rg);
	a.inherit = 1;
	a.sample_type = PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID;
	fd = rig_open(&rg, &a, 0, 0);
	assert_true(fd >= 0);
	area = rig_mmap(&rg, fd, 1, PROT_READ | PROT_WRITE);
	assert_int_equal(perf_task_fork(rg.core, rg.task, 300, 300, &ct), 0);
	parent = ev(&rg, fd);
	assert_false(list_empty(&parent->child_list));
	child = list_first_entry(&parent->child_list, struct perf_event, child_entry);
	assert_ptr_equal(child->parent, parent);
	assert_int_not_equal(child->id, parent->id);
	{
		struct perf_sample_data d;

		memset(&d, 0, sizeof(d));
		assert_int_equal(perf_event_output_sample(child, &d), 0);
	}
	assert_int_equal(ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 4), 1);
	memcpy(v, recs[0] + 1, sizeof(v));
	assert_int_equal(v[0], parent->id);
	assert_int_equal(v[1], child->id);
	rig_fini(&rg);
}


/* time_enabled/time_running of the mmap page: a software event on the
 * running task for 1 ms of simulated time. */
static void test_user_page_times(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct perf_event_mmap_page *up;
	struct rig rg;
	int fd;

	(void)state;
	rig_init(&rg);
	fd = rig_open(&rg, &a, 0, -1);
	assert_int_equal(ev(&rg, fd)->state, PERF_EVENT_STATE_ACTIVE);
	rig_run(&rg, 0, 3000000);
	up = rig_mmap(&rg, fd, 1, PROT_READ);
	assert_int_equal(up->time_enabled, 1000000);
	assert_int_equal(up->time_running, 1000000);
	assert_int_equal(up->time_offset, (uint64_t)0 - 1000000);
	assert_int_equal(up->lock % 2, 0);
	assert_true(up->lock >= 2);
	rig_fini(&rg);
}

/* A core of model (the machine's native_tsc as given) whose task 100
 * runs on CPU 0 and has mapped a dummy's 1+1 ring: the mmap page, the
 * core, the task and the event's handle. */
static struct perf_event_mmap_page *model_page(const struct pmu_model *model, bool native_tsc,
					       struct perf_core **core, struct perf_task **t,
					       int *fd)
{
	static struct rig rg;
	struct perf_core_config cfg = { 0 };
	struct perf_event_attr a = attr_dummy();
	struct perf_cred cred = { 0, true };
	struct perf_machine m = { .ops = &rig_ops, .ctx = &rg, .native_tsc = native_tsc };
	void *area = NULL;
	int memfd;

	cfg.model = model;
	cfg.paranoid = -1;
	assert_int_equal(perf_core_create(&cfg, &m, core), 0);
	*t = perf_task_create(*core, 100, 100, cred);
	perf_cpu_switch_to(perf_core_cpu(*core, 0), *t);
	*fd = perf_sys_event_open(*core, *t, &perf_uaccess_direct, (uint64_t)(uintptr_t)&a,
				  0, -1, -1, 0);
	assert_true(*fd >= 0);
	assert_int_equal(perf_sys_mmap(*core, *t, *fd, 2 * PAGE, PROT_READ, MAP_SHARED, 0,
				       &area, &memfd), 0);
	return area;
}

/* arm64 arch_perf_update_userpage(): the 56-bit arch timer. For a 1 GHz
 * counter clocks_calc_mult_shift(1e9, NSEC_PER_SEC, 3600) has sftacc 22
 * (3600e9 >> 32 = 838, 10 bits) and stops at shift 21 with mult 2^21;
 * for 25 MHz, sftacc 27 and 40 << 21 = 83886080 at shift 21. */
static void test_user_page_arm64(void **state)
{
	static const struct { int line; uint64_t hz; uint32_t mult; uint16_t shift; } rows[] = {
		{ __LINE__, 1000000000, 2097152, 21 },
		{ __LINE__, 25000000, 83886080, 21 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pmu_model arm = *pmu_model_find("skylake");
		struct perf_event_mmap_page *up;
		struct perf_core *core;
		struct perf_task *t;
		int fd;

		print_message("row line %d (arch_perf_update_userpage, arm64)\n", rows[i].line);
		arm.arch = PMU_ARCH_ARM_PMUV3;
		arm.tsc_hz = rows[i].hz;
		up = model_page(&arm, false, &core, &t, &fd);
		assert_int_equal(up->cap_user_rdpmc, 0);
		assert_int_equal(up->index, 0);
		assert_int_equal(up->pmc_width, 0);
		assert_int_equal(up->cap_user_time, 1);
		assert_int_equal(up->cap_user_time_zero, 1);
		assert_int_equal(up->cap_user_time_short, 1);
		assert_int_equal(up->time_mult, rows[i].mult);
		assert_int_equal(up->time_shift, rows[i].shift);
		assert_int_equal(up->time_mask, (1ull << 56) - 1);
		assert_int_equal(up->time_cycles, 0);
		assert_int_equal(up->time_zero, 0);
		perf_core_destroy(core);
	}
}

/*
 * A ring mapped by a process whose RDTSC is the host's (machine native_tsc,
 * the shim's): arch_perf_update_userpage() of a kernel whose TSC is not a
 * stable sched_clock (x86: !sched_clock_stable(); arm64: read_sched_clock
 * not the arch timer) clears cap_user_time, cap_user_time_zero and
 * cap_user_time_short and returns before the conversion fields, which stay
 * as perf_mmap() zeroed them; rdpmc and pmc_width are set before that.
 */
static void test_user_page_native_reader(void **state)
{
	static const struct { int line; enum pmu_arch arch; uint16_t width; } rows[] = {
		{ __LINE__, PMU_ARCH_X86_INTEL, 48 },
		{ __LINE__, PMU_ARCH_ARM_PMUV3, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pmu_model model = *pmu_model_find("skylake");
		struct perf_event_mmap_page *up;
		struct perf_core *core;
		struct perf_task *t;
		int fd;

		print_message("row line %d (arch_perf_update_userpage, unstable clock)\n",
			      rows[i].line);
		model.arch = rows[i].arch;
		up = model_page(&model, true, &core, &t, &fd);
		assert_int_equal(up->cap_user_rdpmc, 0);
		assert_int_equal(up->pmc_width, rows[i].width);
		assert_int_equal(up->cap_user_time, 0);
		assert_int_equal(up->cap_user_time_zero, 0);
		assert_int_equal(up->cap_user_time_short, 0);
		assert_int_equal(up->time_mult, 0);
		assert_int_equal(up->time_shift, 0);
		assert_int_equal(up->time_zero, 0);
		assert_int_equal(up->time_offset, 0);
		/* later updates keep them off (IOC_RESET updates the page) */
		assert_int_equal(perf_sys_ioctl(core, t, &perf_uaccess_direct, fd,
						PERF_EVENT_IOC_RESET, 0), 0);
		assert_int_equal(up->cap_user_time, 0);
		assert_int_equal(up->cap_user_time_zero, 0);
		assert_int_equal(up->time_mult, 0);
		perf_core_destroy(core);
	}
}

/* Counter overflow end to end: the machine's fill_sample gives the IP, the
 * core the period (sample_period each time) and the time. */
static unsigned fill_calls;
static void fill_ip(void *m, struct perf_cpu *cpu, struct perf_event *e, struct perf_sample_data *d)
{
	(void)m;
	(void)cpu;
	(void)e;
	d->ip = 0x400000 + fill_calls++;
	d->cpumode = PERF_RECORD_MISC_USER;
}

static void test_overflow_samples(void **state)
{
	static const struct perf_machine_ops ops = { .fill_sample = fill_ip };
	struct perf_core_config cfg = { 0 };
	struct perf_machine m = { .ops = &ops, .ctx = NULL };
	struct perf_cred cred = { 0, true };
	const struct perf_event_header *recs[16];
	struct perf_event_attr a;
	struct perf_core *core;
	struct perf_task *t;
	struct sim_delta d;
	uint8_t buf[1024];
	void *area;
	int memfd, fd;
	unsigned n;

	(void)state;
	fill_calls = 0;
	cfg.model = pmu_model_find("skylake");
	cfg.paranoid = -1;
	assert_int_equal(perf_core_create(&cfg, &m, &core), 0);
	t = perf_task_create(core, 100, 100, cred);
	perf_cpu_switch_to(perf_core_cpu(core, 0), t);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.sample_period = 1000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	a.exclude_kernel = 1;
	fd = perf_sys_event_open(core, t, &perf_uaccess_direct, (uint64_t)(uintptr_t)&a,
				 0, -1, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(perf_sys_mmap(core, t, fd, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
				       0, &area, &memfd), 0);
	for (unsigned k = 0; k < 7; k++) {
		memset(&d, 0, sizeof(d));
		d.v[SIM_SRC_INSTRUCTIONS] = 500;
		d.v[SIM_SRC_CYCLES] = 3000;
		perf_cpu_account(perf_core_cpu(core, 0), SIM_MODE_USER, &d);
	}
	/* 3500 instructions: overflows at 1000, 2000, 3000 */
	n = ring_records(buf, ring_drain(area, buf, sizeof(buf), true), recs, 16);
	assert_int_equal(n, 3);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v[3];

		assert_int_equal(recs[i]->type, PERF_RECORD_SAMPLE);
		assert_int_equal(recs[i]->size, 32);
		memcpy(v, recs[i] + 1, sizeof(v));
		assert_int_equal(v[0], 0x400000 + i);
		/* reports of 3000 cycles (1000 ns): the 2nd, 4th and 6th; the
		 * interrupt comes after the report's cycles, so its sample has
		 * the time at the report's end (this machine has no PMI cost) */
		assert_int_equal(v[1], 1000 * (2 * i + 2));
		assert_int_equal(v[2], 1000);
	}
	perf_core_destroy(core);
}


/* In a shared arena the ring is a piece of the arena: a forked process
 * (which maps the arena at the same address) writes a sample, and the
 * parent's mapping and a fresh mapping of the memfd at the ring's offset
 * both see it. */
static void test_shared_arena_ring(void **state)
{
	struct perf_core_config cfg = { 0 };
	struct perf_cred cred = { 0, true };
	struct rig rg = { 0 };
	struct perf_machine m = { .ops = &rig_ops, .ctx = &rg };
	struct perf_event_attr a = attr_dummy();
	struct perf_event_mmap_page *up, *up2;
	struct perf_arena *arena;
	struct perf_core *core;
	struct perf_task *t;
	void *area = NULL;
	int memfd = -1, fd, status;
	int64_t off;
	pid_t pid;

	(void)state;
	if (perf_arena_create(8 << 20, (void *)0x6e0000000000, &arena))
		skip();
	cfg.model = pmu_model_find("skylake");
	cfg.paranoid = -1;
	cfg.arena = arena;
	assert_int_equal(perf_core_create(&cfg, &m, &core), 0);
	t = perf_task_create(core, 100, 100, cred);
	perf_cpu_switch_to(perf_core_cpu(core, 0), t);
	fd = perf_sys_event_open(core, t, &perf_uaccess_direct, (uint64_t)(uintptr_t)&a,
				 0, -1, -1, 0);
	assert_true(fd >= 0);
	assert_int_equal(perf_sys_mmap(core, t, fd, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
				       0, &area, &memfd), 0);
	assert_int_equal(memfd, perf_arena_memfd(arena));
	off = perf_sys_mmap_offset(core, fd);
	assert_true(off > 0 && off % PAGE == 0);
	up = area;
	pid = fork();
	if (pid == 0) {
		struct perf_sample_data d;

		memset(&d, 0, sizeof(d));
		d.ip = 0xc0ffee;
		_exit(perf_event_output_sample(perf_file_event(core, fd), &d) == 0 ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(up->data_head, 16);
	assert_int_equal(*(uint64_t *)((uint8_t *)area + PAGE + 8), 0xc0ffee);
	up2 = mmap(NULL, 3 * PAGE, PROT_READ, MAP_SHARED, memfd, off);
	assert_true(up2 != MAP_FAILED);
	assert_int_equal(up2->data_head, 16);
	assert_int_equal(up2->data_size, 2 * PAGE);
	munmap(up2, 3 * PAGE);
	assert_int_equal(perf_sys_munmap(core, fd, area, 3 * PAGE), 0);
	perf_core_destroy(core);
	perf_arena_detach(arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_lost_sample_id_all),
		cmocka_unit_test(test_lost_needs_room_for_itself),
		cmocka_unit_test(test_overwrite_forward),
		cmocka_unit_test(test_overwrite_backward),
		cmocka_unit_test(test_backward_writable_space),
		cmocka_unit_test(test_paused),
		cmocka_unit_test(test_wakeup_rows),
		cmocka_unit_test(test_wakeup_fasync),
		cmocka_unit_test(test_poll_hup),
		cmocka_unit_test(test_mmap_rows),
		cmocka_unit_test(test_mmap_again_and_aux),
		cmocka_unit_test(test_mmap_inherit),
		cmocka_unit_test(test_mmap_mlock),
		cmocka_unit_test(test_set_output),
		cmocka_unit_test(test_output_record),
		cmocka_unit_test(test_user_page),
		cmocka_unit_test(test_user_page_rdpmc),
		cmocka_unit_test(test_lost_samples_record),
		cmocka_unit_test(test_inherited_output),
		cmocka_unit_test(test_user_page_times),
		cmocka_unit_test(test_user_page_arm64),
		cmocka_unit_test(test_user_page_native_reader),
		cmocka_unit_test(test_overflow_samples),
		cmocka_unit_test(test_shared_arena_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
