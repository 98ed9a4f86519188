/*
 * mmap.c - mmap/munmap/poll of a perf file, the mmap page (struct
 * perf_event_mmap_page) and output redirection (SET_OUTPUT).
 *
 * Reproduces perf_mmap / perf_mmap_rb / perf_mmap_aux /
 * perf_mmap_calc_limits / perf_mmap_close, perf_poll, perf_event_set_output,
 * perf_event_init_userpage / perf_event_update_userpage of
 * kernel/events/core.c and arch_perf_update_userpage of
 * arch/x86/events/core.c and arch/arm64/kernel/perf_event.c.
 *
 * Every mmap maps the ring's memfd again (one "VMA" each); a mapping holds a
 * reference on the perf file, as vma->vm_file does, so closing the fd does
 * not free a mapped event.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/core/ring_buffer.h"
#include "sim/core/pmu.h"

#ifndef EPOLLERR
#define EPOLLERR 0x008
#endif
#ifndef EPOLLHUP
#define EPOLLHUP 0x010
#endif

/* RLIMIT_MEMLOCK the kernel gives a process by default (MLOCK_LIMIT, 8 MiB). */
#define PERF_DEFAULT_MEMLOCK_BYTES (UINT64_C(8) << 20)

#define NSEC_PER_SEC UINT64_C(1000000000)
#define NSEC_PER_MSEC UINT64_C(1000000)

/* ---- the mmap page ---- */

/* clocks_calc_mult_shift() of kernel/time/clocksource.c */
static void clocks_calc_mult_shift(u32 *mult, u32 *shift, u32 from, u32 to, u32 maxsec)
{
	u64 tmp;
	u32 sft, sftacc = 32;

	tmp = ((u64)maxsec * from) >> 32;
	while (tmp) {
		tmp >>= 1;
		sftacc--;
	}
	for (sft = 32; sft > 0; sft--) {
		tmp = (u64)to << sft;
		tmp += from / 2;
		tmp /= from;
		if ((tmp >> sftacc) == 0)
			break;
	}
	*mult = (u32)tmp;
	*shift = sft;
}

static u64 perf_model_tsc_hz(const struct perf_core *core)
{
	const struct pmu_model *m = perf_core_model(core);

	if (m && m->tsc_hz)
		return m->tsc_hz;
	if (core->cfg.freq_hz)
		return core->cfg.freq_hz;
	return m && m->freq_hz ? m->freq_hz : NSEC_PER_SEC;
}

/* perf_event_index(): the PMU's event_idx, 0 without one
 * (perf_event_idx_default). */
static u32 perf_event_index(const struct perf_event *event)
{
	const struct perf_pmu *pmu = perf_event_pmu(event);

	return pmu->event_idx ? pmu->event_idx(event) : 0;
}

/*
 * arch_perf_update_userpage(): capabilities and the TSC conversion. The
 * conversion is of the simulated clock, which only an emulated reader's
 * RDTSC (CNTVCT) returns; a ring a native process mapped (rb->no_user_time)
 * gets the page of a kernel whose TSC is not a stable sched_clock: the
 * time caps cleared and the conversion fields left alone.
 */
static void arch_perf_update_userpage(struct perf_event *event,
				      struct perf_event_mmap_page *up, u64 now)
{
	const struct pmu_model *m = perf_core_model(event->core);
	u64 hz = perf_model_tsc_hz(event->core);
	u32 mult, shift;

	if (m && m->arch == PMU_ARCH_ARM_PMUV3) {
		/* arch/arm64/kernel/perf_event.c: the arch timer is sched_clock,
		 * 56 bits, epoch at 0 cycles / 0 ns; no EL0 counter access. */
		up->cap_user_time = 0;
		up->cap_user_time_zero = 0;
		up->cap_user_time_short = 0;
		/* armv8pmu_event_has_user_read(), and the counter's width:
		 * ARMPMU_EVT_64BIT (config1:0), the event's width the model
		 * derived from it */
		up->cap_user_rdpmc = !!(event->hw_flags & PERF_EVENT_FLAG_USER_READ_CNT);
		if (up->cap_user_rdpmc)
			up->pmc_width = (u16)event->event_width;
		/* read_sched_clock != arch_timer_read_counter */
		if (event->rb->no_user_time)
			return;
		clocks_calc_mult_shift(&mult, &shift, (u32)hz, (u32)NSEC_PER_SEC, 3600);
		up->time_mult = mult;
		up->time_shift = (u16)shift;
		up->time_zero = 0;
		up->time_cycles = 0;
		up->time_mask = (UINT64_C(1) << 56) - 1;
		up->time_offset = up->time_zero - now;
		if (up->time_shift == 32) {
			up->time_shift = 31;
			up->time_mult >>= 1;
		}
		up->cap_user_time = 1;
		up->cap_user_time_zero = 1;
		up->cap_user_time_short = 1;
		return;
	}

	/* arch/x86/events/core.c */
	up->cap_user_time = 0;
	up->cap_user_time_zero = 0;
	/* PERF_X86_EVENT_RDPMC_ALLOWED: x86_pmu_event_init sets it with rdpmc=1 */
	up->cap_user_rdpmc = !!(event->hw_flags & PERF_EVENT_FLAG_USER_READ_CNT);
	up->pmc_width = m ? (u16)m->gp_width : 48;       /* x86_pmu.cntval_bits */
	/* !using_native_sched_clock() || !sched_clock_stable() */
	if (event->rb->no_user_time)
		return;

	/* set_cyc2ns_scale(): the TSC counts from 0 with simulated time, so
	 * cyc2ns_offset (and __sched_clock_offset) are 0. */
	clocks_calc_mult_shift(&mult, &shift, (u32)(hz / 1000), (u32)NSEC_PER_MSEC, 0);
	if (shift == 32) {
		shift = 31;
		mult >>= 1;
	}
	up->cap_user_time = 1;
	up->time_mult = mult;
	up->time_shift = (u16)shift;
	up->time_offset = 0 - now;
	if (!event->attr.use_clockid) {
		up->cap_user_time_zero = 1;
		up->time_zero = 0;
	}
}

/* perf_event_init_userpage() */
static void perf_event_init_userpage(struct perf_event *event)
{
	struct perf_ring *rb = event->rb;
	struct perf_event_mmap_page *up;

	if (!rb)
		return;
	up = rb->user_page;
	/* Allow new userspace to detect that bit 0 is deprecated */
	up->cap_bit0_is_deprecated = 1;
	up->size = offsetof(struct perf_event_mmap_page, __reserved);
	up->data_offset = PERF_PAGE_SIZE;
	up->data_size = rb->data_size;
}

void perf_event_update_userpage(struct perf_event *event)
{
	struct perf_ring *rb = event->rb;
	struct perf_event_mmap_page *up;
	struct perf_out_where w;
	u64 enabled, running, now;
	u32 index;

	if (!rb)
		return;
	/* calc_timer_values() */
	w = perf_event_where(event);
	now = perf_cpu_time_ns(w.cpu);
	perf_event_read_times(event, &enabled, &running);

	up = rb->user_page;
	__atomic_add_fetch(&up->lock, 1, __ATOMIC_SEQ_CST);
	/* arm64: "the PMSELR_EL0 register is zeroed each time the sequence
	 * lock is changed" (Documentation/arch/arm64/perf.rst): the machine
	 * sees the CPU's generation move (perf_cpu_user_read) */
	w.cpu->userpage_gen++;
	index = perf_event_index(event);
	up->index = index;
	up->offset = (s64)(event->count + event->child_count);
	if (index) {
		/* hw.prev_count: the counter as a sign-extended value of the
		 * event's width ((u64)-left of armpmu_event_set_period() /
		 * x86_perf_event_set_period(); PMUv3's pmc_width) */
		unsigned width = event->event_width ? event->event_width :
				 event->hw_width ? event->hw_width : 64;
		u64 v = perf_event_hw_value(event);

		if (width < 64 && (v & (UINT64_C(1) << (width - 1))))
			v |= ~((UINT64_C(1) << width) - 1);
		up->offset -= (s64)v;
	}
	up->time_enabled = enabled + event->child_total_time_enabled;
	up->time_running = running + event->child_total_time_running;
	arch_perf_update_userpage(event, up, now);
	__atomic_add_fetch(&up->lock, 1, __ATOMIC_SEQ_CST);
}

/* ---- mlock accounting ---- */

/* The pages a user has charged to locked_vm, and a process to pinned_vm,
 * summed over the rings that exist (each ring keeps its charges). */
static void perf_mmap_charges(struct perf_core *core, uid_t uid, pid_t mm,
			      u64 *locked_vm, u64 *pinned_vm)
{
	*locked_vm = *pinned_vm = 0;
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++) {
		struct perf_event *e = perf_event_of(core, h);
		struct perf_ring *rb;
		unsigned i;

		if (!e || !(rb = e->rb))
			continue;
		/* count each ring once: through its first attached file */
		for (i = 0; i < rb->nr_attached && rb->attached[i]->handle < 0; i++)
			;
		if (i == rb->nr_attached || rb->attached[i] != e)
			continue;
		if (rb->mmap_user == uid)
			*locked_vm += rb->user_charged;
		if (rb->mmap_mm == mm)
			*pinned_vm += rb->mmap_locked;
	}
}

/* perf_mmap_calc_limits(): false means EPERM. */
static bool perf_mmap_calc_limits(struct perf_core *core, struct perf_task *current,
				  long *user_extra, long *extra)
{
	u64 user_lock_limit, user_locked, locked, lock_limit, locked_vm, pinned_vm;
	uid_t uid = current ? current->cred.uid : 0;
	pid_t mm = current ? current->pid : 0;
	unsigned mlock_kb = core->cfg.mlock_kb ? core->cfg.mlock_kb : 516;

	perf_mmap_charges(core, uid, mm, &locked_vm, &pinned_vm);

	user_lock_limit = mlock_kb >> (PERF_PAGE_SHIFT - 10);
	/* Increase the limit linearly with more CPUs */
	user_lock_limit *= core->nr_cpus;

	user_locked = locked_vm;
	if (user_locked > user_lock_limit)
		user_locked = user_lock_limit;
	user_locked += *user_extra;
	if (user_locked > user_lock_limit) {
		/* charge locked_vm until it hits user_lock_limit; the rest pinned_vm */
		*extra = (long)(user_locked - user_lock_limit);
		*user_extra -= *extra;
	}

	lock_limit = PERF_DEFAULT_MEMLOCK_BYTES >> PERF_PAGE_SHIFT;
	locked = pinned_vm + (u64)*extra;

	/* perf_is_paranoid() is paranoid > -1; perfmon_capable() */
	return locked <= lock_limit || core->cfg.paranoid <= -1 ||
	       !current || current->cred.cap_perfmon;
}

/* ---- mmap ---- */

static int perf_ring_add_vma(struct perf_ring *rb, struct perf_event *event, size_t len,
			     int prot, void **area)
{
	void *addr;

	struct perf_ring_vma *n = perf_ring_grow(rb->core, rb->vmas, rb->nr_vmas, &rb->cap_vmas,
						 sizeof(*n));

	if (!n)
		return -ENOMEM;
	rb->vmas = n;
	addr = mmap(NULL, len, prot & (PROT_READ | PROT_WRITE), MAP_SHARED, rb->memfd,
		    (off_t)rb->memfd_off);
	if (addr == MAP_FAILED)
		return -ENOMEM;
	rb->vmas[rb->nr_vmas++] = (struct perf_ring_vma){ addr, len, event };
	*area = addr;
	return 0;
}

/* A mapping by a process whose RDTSC is the host's turns the ring's time
 * conversion off for good (one page serves every reader); a new ring's page
 * is then filled as perf_mmap() does, a mapped one's only if that changed
 * it (perf_mmap() leaves the page of an existing ring alone). */
static void perf_mmap_time_reader(struct perf_core *core, struct perf_event *event, bool new_rb)
{
	bool off = perf_core_machine(core)->native_tsc && !event->rb->no_user_time;

	if (off)
		event->rb->no_user_time = true;
	if (new_rb || off)
		perf_event_update_userpage(event);
}

/* perf_mmap_rb(): the user page and data pages at pgoff 0. */
static int perf_mmap_rb(struct perf_core *core, struct perf_task *current,
			struct perf_event *event, unsigned long nr_pages, size_t len,
			int prot, void **area)
{
	long extra = 0, user_extra = (long)nr_pages;
	struct perf_ring *rb;
	int err;

	nr_pages -= 1;
	/* If we have rb pages ensure they're a power-of-two number */
	if (nr_pages != 0 && (nr_pages & (nr_pages - 1)))
		return -EINVAL;

	if (event->rb) {
		rb = event->rb;
		if (rb->nr_pages != nr_pages)
			return -EINVAL;
		/* no mmap_count: an alias of another event's mmap() */
		if (!event->mmap_count)
			return -EBUSY;
		/* the same buffer again */
		err = perf_ring_add_vma(rb, event, len, prot, area);
		if (err)
			return err;
		perf_mmap_time_reader(core, event, false);
		rb->mmap_count++;
		rb->user_charged += (u64)user_extra;    /* perf_mmap_account() */
		event->mmap_count++;
		return 0;
	}

	if (!perf_mmap_calc_limits(core, current, &user_extra, &extra))
		return -EPERM;

	err = perf_ring_alloc(core, nr_pages,
			      event->attr.watermark ? (long)event->attr.wakeup_watermark : 0,
			      (prot & PROT_WRITE) ? PERF_RING_WRITABLE : 0, &rb);
	if (err)
		return err == -ENOMEM ? -ENOMEM : err;
	err = perf_ring_add_vma(rb, event, len, prot, area);
	if (err) {
		perf_ring_free(rb);
		return err;
	}
	rb->mmap_count = 1;
	rb->mmap_user = current ? current->cred.uid : 0;
	rb->mmap_mm = current ? current->pid : 0;
	rb->mmap_locked = (u64)extra;
	rb->user_charged = (u64)user_extra;

	perf_ring_attach(event, rb);
	perf_event_init_userpage(event);
	perf_mmap_time_reader(core, event, true);
	event->mmap_count++;
	return 0;
}

/*
 * perf_mmap_aux(): the AUX area at pgoff > 0. Its checks run against the
 * mmap page's aux_offset/aux_size; a PMU without AUX support then fails
 * rb_alloc_aux() with -EOPNOTSUPP.
 */
static int perf_mmap_aux(struct perf_event *event, unsigned long nr_pages, size_t len,
			 uint64_t pgoff)
{
	struct perf_ring *rb = event->rb;
	u64 aux_offset, aux_size;

	if (!rb)
		return -EINVAL;
	aux_offset = __atomic_load_n(&rb->user_page->aux_offset, __ATOMIC_RELAXED);
	aux_size = __atomic_load_n(&rb->user_page->aux_size, __ATOMIC_RELAXED);
	if (aux_offset < rb->data_size + PERF_PAGE_SIZE)
		return -EINVAL;
	if (aux_offset != pgoff << PERF_PAGE_SHIFT)
		return -EINVAL;
	if (aux_size != len || aux_size != (u64)nr_pages * PERF_PAGE_SIZE)
		return -EINVAL;
	if (nr_pages & (nr_pages - 1))
		return -EINVAL;
	if (!rb->mmap_count)
		return -EINVAL;
	/* rb_alloc_aux(): !has_aux(event) */
	return -EOPNOTSUPP;
}

int perf_sys_mmap(struct perf_core *core, struct perf_task *current, int handle,
		  size_t len, int prot, int flags, uint64_t pgoff,
		  void **area, int *memfd)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);
	unsigned long nr_pages;
	int err, type = flags & MAP_TYPE;

	if (!event)
		return -EBADF;
	/* do_mmap(): the mm's own checks */
	if (!len)
		return -EINVAL;
	if (len > SIZE_MAX - PERF_PAGE_SIZE)
		return -ENOMEM;
	len = (len + PERF_PAGE_SIZE - 1) & ~(PERF_PAGE_SIZE - 1);
	if (type != MAP_SHARED && type != MAP_PRIVATE && type != MAP_SHARED_VALIDATE)
		return -EINVAL;

	/* perf_mmap(): no mmap() of inherited per-task counters */
	if (event->cpu == -1 && event->attr.inherit)
		return -EINVAL;
	if (type == MAP_PRIVATE)    /* !(vma->vm_flags & VM_SHARED) */
		return -EINVAL;
	nr_pages = len / PERF_PAGE_SIZE;
	if (nr_pages > INT32_MAX)
		return -ENOMEM;

	if (pgoff == 0)
		err = perf_mmap_rb(core, current, event, nr_pages, len, prot, area);
	else
		err = perf_mmap_aux(event, nr_pages, len, pgoff);
	if (err)
		return err;
	/* the mapping holds the file (vma->vm_file) */
	perf_file_get(core, handle);
	*memfd = event->rb->memfd;
	return 0;
}

int64_t perf_sys_mmap_offset(struct perf_core *core, int handle)
{
	struct perf_event *event = perf_event_of(core, handle);

	if (!event || !event->rb)
		return -EINVAL;
	return (int64_t)event->rb->memfd_off;
}

/*
 * perf_mmap_close(): one mapping of event goes. The last mapping of the
 * event detaches it; the last mapping of the ring detaches every event
 * redirected into it (their records are dropped from then on).
 */
static void perf_mmap_close(struct perf_event *event)
{
	struct perf_ring *rb = event->rb;
	bool detach_rest;

	assert(rb && rb->mmap_count > 0 && event->mmap_count > 0);
	detach_rest = --rb->mmap_count == 0;
	if (--event->mmap_count)
		return;
	if (detach_rest) {
		for (unsigned i = rb->nr_attached; i-- > 0;)
			if (rb->attached[i] != event)
				perf_ring_attach(rb->attached[i], NULL);
	}
	perf_ring_attach(event, NULL);      /* the last user frees the ring */
}

int perf_sys_munmap(struct perf_core *core, int handle, void *area, size_t len)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);
	struct perf_ring *rb;
	unsigned i;

	if (!event || !(rb = event->rb))
		return -EINVAL;
	len = (len + PERF_PAGE_SIZE - 1) & ~(PERF_PAGE_SIZE - 1);
	for (i = 0; i < rb->nr_vmas; i++)
		if (rb->vmas[i].addr == area && rb->vmas[i].event == event)
			break;
	if (i == rb->nr_vmas)
		return -EINVAL;
	/* perf_mmap_may_split(): a buffer mapping cannot be split */
	if (rb->vmas[i].len != len)
		return -EINVAL;
	munmap(area, len);
	rb->vmas[i] = rb->vmas[--rb->nr_vmas];
	perf_mmap_close(event);
	perf_file_put(core, handle);
	return 0;
}

/*
 * perf_mmap_open(): a process forked with the mapping at area (dup_mmap
 * copies the VMA) holds it too: another "VMA" of the same address, one
 * more mapping of the event and ring, and a reference on the file.
 */
int perf_sys_mmap_fork(struct perf_core *core, int handle, void *area)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);
	struct perf_ring_vma *n;
	struct perf_ring *rb;
	unsigned i;

	if (!event || !(rb = event->rb))
		return -EINVAL;
	for (i = 0; i < rb->nr_vmas; i++)
		if (rb->vmas[i].addr == area && rb->vmas[i].event == event)
			break;
	if (i == rb->nr_vmas)
		return -EINVAL;
	n = perf_ring_grow(core, rb->vmas, rb->nr_vmas, &rb->cap_vmas, sizeof(*n));
	if (!n)
		return -ENOMEM;
	rb->vmas = n;
	rb->vmas[rb->nr_vmas] = rb->vmas[i];
	rb->nr_vmas++;
	rb->mmap_count++;
	event->mmap_count++;
	perf_file_get(core, handle);
	return 0;
}

/* ---- poll ---- */

/* is_event_hup(): exited and no children left. */
static bool is_event_hup(const struct perf_event *event)
{
	if (event->state > PERF_EVENT_STATE_EXIT)
		return false;
	return list_empty(&event->child_list);
}

unsigned perf_sys_poll(struct perf_core *core, int handle)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);
	unsigned events = EPOLLHUP;

	if (!event)
		return POLLNVAL;
	if (is_event_hup(event))
		return events;
	if (event->state == PERF_EVENT_STATE_ERROR && event->attr.pinned)
		return EPOLLERR;
	if (event->rb) {
		events = event->rb->poll;
		event->rb->poll = 0;
	}
	return events;
}

pid_t perf_file_exit_pid(struct perf_core *core, int handle)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);

	return event && event->state == PERF_EVENT_STATE_EXIT ? event->exit_pid : 0;
}

unsigned perf_file_wakeups(struct perf_core *core, int handle)
{
	if (handle < 0 || handle >= PERF_CORE_MAX_FILES)
		return 0;
	return __atomic_load_n(&core->files[handle].wakeups, __ATOMIC_ACQUIRE);
}

/* ---- SET_OUTPUT ---- */

/* hw.target: the task of a per-task event. */
static const struct perf_task *perf_event_target(const struct perf_event *e)
{
	return e->ctx ? e->ctx->task : NULL;
}

/* event->clock: local_clock, or the clockid's clock. */
static long perf_event_clock_id(const struct perf_event *e)
{
	return e->attr.use_clockid ? (long)e->attr.clockid : -1;
}

int perf_event_set_output(struct perf_event *event, struct perf_event *output_event)
{
	struct perf_ring *rb = NULL;

	if (output_event) {
		/* don't allow circular references */
		if (event == output_event)
			return -EINVAL;
		/* Don't allow cross-cpu buffers */
		if (output_event->cpu != event->cpu)
			return -EINVAL;
		/* If its not a per-cpu rb, it must be the same task. */
		if (output_event->cpu == -1 &&
		    perf_event_target(output_event) != perf_event_target(event))
			return -EINVAL;
		/* Mixing clocks in the same buffer is trouble you don't need. */
		if (perf_event_clock_id(output_event) != perf_event_clock_id(event))
			return -EINVAL;
		/* Either writing ring buffer from beginning or from end. */
		if (perf_is_write_backward(output_event) != perf_is_write_backward(event))
			return -EINVAL;
	}
	/* Can't redirect output if we've got an active mmap() */
	if (event->mmap_count)
		return -EINVAL;
	if (output_event) {
		/* get the rb we want to redirect to */
		rb = output_event->rb;
		if (!rb || !rb->mmap_count)
			return -EINVAL;
	}
	perf_ring_attach(event, rb);
	event->output = output_event;
	return 0;
}

void perf_event_ring_release(struct perf_event *event)
{
	struct perf_ring *rb = event->rb;

	if (!rb)
		return;
	/* mappings still made through this event (the fd layer dropped them
	 * without munmap) go with it */
	for (unsigned i = rb->nr_vmas; i-- > 0;) {
		if (rb->vmas[i].event != event)
			continue;
		munmap(rb->vmas[i].addr, rb->vmas[i].len);
		rb->vmas[i] = rb->vmas[--rb->nr_vmas];
		perf_mmap_close(event);
		if (!event->rb)
			return;
		rb = event->rb;
	}
	/* _free_event(): close an event with re-directed output */
	perf_ring_attach(event, NULL);
	event->output = NULL;
}
