/*
 * ring_test_util.h - shared by the ring tests: a simulated kernel with one
 * task on CPU 0 and a counting machine, and an independent reader of
 * perf ring buffers written from <linux/perf_event.h> alone (it shares no
 * code with sim/core/sample_output.c or sideband.c).
 */
#ifndef PMUSIM_RING_TEST_UTIL_H
#define PMUSIM_RING_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim/core/core_types.h"
#include "sim/core/sample_data.h"
#include "pmu_models/pmu_model.h"

#define PAGE 4096u

/* ---- the rig ---- */

struct rig {
	struct perf_core *core;
	struct perf_task *task;         /* pid 100, on CPU 0 */
	unsigned wakeups;               /* machine wakeup calls */
	int last_wakeup_handle;
	unsigned fasyncs;
	int last_si_code;
};

static void rig_wakeup(void *m, int handle)
{
	struct rig *r = m;

	r->wakeups++;
	r->last_wakeup_handle = handle;
}

static void rig_fasync(void *m, int handle, int si_code)
{
	struct rig *r = m;

	(void)handle;
	r->fasyncs++;
	r->last_si_code = si_code;
}

static const struct perf_machine_ops rig_ops = {
	.fill_sample = NULL,
	.wakeup = rig_wakeup,
	.fasync = rig_fasync,
};

static inline void rig_init_cfg(struct rig *r, unsigned nr_cpus, int paranoid, bool root)
{
	struct perf_core_config cfg = { 0 };
	struct perf_machine m = { .ops = &rig_ops, .ctx = r };
	struct perf_cred cred = { .uid = root ? 0 : 1000, .cap_perfmon = root };

	memset(r, 0, sizeof(*r));
	cfg.model = pmu_model_find("skylake");
	assert_non_null(cfg.model);
	cfg.nr_cpus = nr_cpus;
	cfg.paranoid = paranoid;
	assert_int_equal(perf_core_create(&cfg, &m, &r->core), 0);
	r->task = perf_task_create(r->core, 100, 100, cred);
	assert_non_null(r->task);
	memcpy(r->task->comm, "workload", 9);
	perf_cpu_switch_to(perf_core_cpu(r->core, 0), r->task);
}

static inline void rig_init(struct rig *r)
{
	rig_init_cfg(r, 2, -1, true);
}

static inline void rig_fini(struct rig *r)
{
	perf_core_destroy(r->core);
}

/* Advance CPU cpu by cycles (time at the model's 3 GHz). */
static inline void rig_run(struct rig *r, unsigned cpu, uint64_t cycles)
{
	struct sim_delta d;

	memset(&d, 0, sizeof(d));
	d.v[SIM_SRC_CYCLES] = cycles;
	perf_cpu_account(perf_core_cpu(r->core, cpu), SIM_MODE_USER, &d);
}

static inline struct perf_event_attr attr_dummy(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP;
	return a;
}

static inline int rig_open_as(struct rig *r, struct perf_task *cur, struct perf_event_attr *a,
			      pid_t pid, int cpu, int group, unsigned long flags)
{
	return perf_sys_event_open(r->core, cur, &perf_uaccess_direct, (uint64_t)(uintptr_t)a,
				   pid, cpu, group, flags);
}

static inline int rig_open(struct rig *r, struct perf_event_attr *a, pid_t pid, int cpu)
{
	return rig_open_as(r, r->task, a, pid, cpu, -1, 0);
}

static inline struct perf_event *ev(struct rig *r, int fd)
{
	struct perf_event *e = perf_file_event(r->core, fd);

	assert_non_null(e);
	return e;
}

/* Changes an open event's sample layout in place (the layout code depends
 * on the attr only), as if it had been opened so. */
static inline void ev_layout(struct perf_event *e, uint64_t sample_type, uint64_t read_format)
{
	e->attr.sample_type = sample_type;
	e->attr.read_format = read_format;
	perf_event_header_size(e);
}

static inline void *rig_mmap(struct rig *r, int fd, unsigned data_pages, int prot)
{
	void *area = NULL;
	int memfd = -1;

	assert_int_equal(perf_sys_mmap(r->core, r->task, fd, (1 + data_pages) * PAGE, prot,
				       MAP_SHARED, 0, &area, &memfd), 0);
	assert_non_null(area);
	assert_true(memfd >= 0);
	return area;
}

/* ---- the independent reader ---- */

struct ring_view {
	struct perf_event_mmap_page *up;
	const uint8_t *data;
	uint64_t size;
};

static inline struct ring_view ring_view(void *area)
{
	struct ring_view v;

	v.up = area;
	v.data = (const uint8_t *)area + v.up->data_offset;
	v.size = v.up->data_size;
	return v;
}

/* Copies len bytes at ring position pos (mod size) out. */
static inline void ring_copy(const struct ring_view *v, uint64_t pos, void *out, size_t len)
{
	uint8_t *o = out;

	for (size_t i = 0; i < len; i++)
		o[i] = v->data[(pos + i) % v->size];
}

/* Everything between data_tail and data_head, linearised; consume moves
 * data_tail to data_head as a reader does. Returns the byte count. */
static inline size_t ring_drain(void *area, uint8_t *out, size_t cap, bool consume)
{
	struct ring_view v = ring_view(area);
	uint64_t head = __atomic_load_n(&v.up->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = v.up->data_tail;
	size_t len = (size_t)(head - tail);

	assert_true(len <= cap);
	assert_true(len <= v.size);
	ring_copy(&v, tail, out, len);
	if (consume)
		__atomic_store_n(&v.up->data_tail, head, __ATOMIC_RELEASE);
	return len;
}

/* Splits a linear byte range into records; returns how many. */
static inline unsigned ring_records(const uint8_t *buf, size_t len,
				    const struct perf_event_header **recs, unsigned max)
{
	size_t off = 0;
	unsigned n = 0;

	while (off < len) {
		const struct perf_event_header *h = (const void *)(buf + off);

		assert_true(h->size >= sizeof(*h));
		assert_true(off + h->size <= len);
		assert_true(n < max);
		recs[n++] = h;
		off += h->size;
	}
	return n;
}

/* A cursor over one record's payload. */
struct rd {
	const uint8_t *p, *end;
};

static inline uint64_t rd_u64(struct rd *r)
{
	uint64_t v;

	assert_true(r->p + 8 <= r->end);
	memcpy(&v, r->p, 8);
	r->p += 8;
	return v;
}

static inline uint32_t rd_u32(struct rd *r)
{
	uint32_t v;

	assert_true(r->p + 4 <= r->end);
	memcpy(&v, r->p, 4);
	r->p += 4;
	return v;
}

static inline const uint8_t *rd_bytes(struct rd *r, size_t n)
{
	const uint8_t *p = r->p;

	assert_true(r->p + n <= r->end);
	r->p += n;
	return p;
}

/* The sample_id trailer of a non-sample record, as perf_event.h lays out
 * struct sample_id: { pid, tid } time id stream_id { cpu, res } identifier. */
struct parsed_id {
	uint32_t pid, tid;
	uint64_t time, id, stream_id, identifier;
	uint32_t cpu, res;
};

static inline size_t id_trailer_size(uint64_t st)
{
	size_t n = 0;

	n += (st & PERF_SAMPLE_TID) ? 8 : 0;
	n += (st & PERF_SAMPLE_TIME) ? 8 : 0;
	n += (st & PERF_SAMPLE_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_STREAM_ID) ? 8 : 0;
	n += (st & PERF_SAMPLE_CPU) ? 8 : 0;
	n += (st & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	return n;
}

/* Parses the trailer at the end of rec for sample_type st. */
static inline struct parsed_id parse_id_trailer(const struct perf_event_header *rec, uint64_t st)
{
	struct parsed_id id;
	struct rd r;

	memset(&id, 0xff, sizeof(id));
	r.end = (const uint8_t *)rec + rec->size;
	r.p = r.end - id_trailer_size(st);
	if (st & PERF_SAMPLE_TID) {
		id.pid = rd_u32(&r);
		id.tid = rd_u32(&r);
	}
	if (st & PERF_SAMPLE_TIME)
		id.time = rd_u64(&r);
	if (st & PERF_SAMPLE_ID)
		id.id = rd_u64(&r);
	if (st & PERF_SAMPLE_STREAM_ID)
		id.stream_id = rd_u64(&r);
	if (st & PERF_SAMPLE_CPU) {
		id.cpu = rd_u32(&r);
		id.res = rd_u32(&r);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		id.identifier = rd_u64(&r);
	assert_ptr_equal(r.p, r.end);
	return id;
}

#endif
