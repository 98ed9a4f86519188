/*
 * ring_buffer.c - the perf ring buffer: allocation in shared memory, the
 * output handle (reserve / copy / publish), lost-record accounting,
 * watermark wakeups and the event list a ring wakes up.
 *
 * Reproduces kernel/events/ring_buffer.c (__perf_output_begin,
 * perf_output_put_handle, perf_output_wakeup, ring_buffer_init) and
 * ring_buffer_attach / ring_buffer_wakeup / perf_event_wakeup of
 * kernel/events/core.c. The simulated kernel is not preempted inside a
 * record, so the nesting and cmpxchg retry loops collapse to one pass; the
 * order of loads and stores on the shared page is kept (data_tail is read
 * with acquire before data is written, data_head stored with release).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/core/arena.h"
#include "sim/core/ring_buffer.h"
#include "sim/core/sample_data.h"

#ifndef EPOLLIN
#define EPOLLIN 0x001
#endif
#ifndef EPOLLRDNORM
#define EPOLLRDNORM 0x040
#endif

/* ---- allocation ---- */

int perf_ring_alloc(struct perf_core *core, unsigned long nr_pages, long watermark,
		    int flags, struct perf_ring **out)
{
	struct perf_ring *rb;
	size_t len = (nr_pages + 1) * PERF_PAGE_SIZE;
	int arena_fd = perf_arena_memfd(core->arena);
	int err;

	assert(nr_pages == 0 || (nr_pages & (nr_pages - 1)) == 0);

	rb = perf_zalloc(core, sizeof(*rb));
	if (!rb)
		return -ENOMEM;
	rb->core = core;
	if (arena_fd >= 0) {
		/* a shared arena: the pages are a piece of it */
		rb->base = perf_arena_alloc(core->arena, len, PERF_PAGE_SIZE);
		if (!rb->base) {
			err = -ENOMEM;
			goto err_free;
		}
		rb->memfd = arena_fd;
		rb->memfd_off = perf_arena_offset(core->arena, rb->base);
	} else {
		rb->own_memfd = true;
		rb->memfd = memfd_create("perf_event", MFD_CLOEXEC);
		if (rb->memfd < 0) {
			err = -errno;
			goto err_free;
		}
		if (ftruncate(rb->memfd, (off_t)len) < 0) {
			err = -errno;
			goto err_close;
		}
		rb->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rb->memfd, 0);
		if (rb->base == MAP_FAILED) {
			err = -errno;
			goto err_close;
		}
	}
	rb->user_page = rb->base;
	rb->data = (unsigned char *)rb->base + PERF_PAGE_SIZE;
	rb->nr_pages = nr_pages;
	rb->data_size = (u64)nr_pages * PERF_PAGE_SIZE;

	/* ring_buffer_init() */
	if (watermark)
		rb->watermark = (u64)watermark < rb->data_size ? (u64)watermark : rb->data_size;
	if (!rb->watermark)
		rb->watermark = rb->data_size / 2;
	rb->overwrite = !(flags & PERF_RING_WRITABLE);
	/* perf_output_begin() only checks rb->paused: no pages, no output */
	if (!rb->nr_pages)
		rb->paused = true;

	*out = rb;
	return 0;

err_close:
	close(rb->memfd);
err_free:
	perf_kfree(core, rb);
	return err;
}

void perf_ring_free(struct perf_ring *rb)
{
	struct perf_core *core;

	if (!rb)
		return;
	core = rb->core;
	assert(rb->nr_attached == 0);
	for (unsigned i = 0; i < rb->nr_vmas; i++)
		munmap(rb->vmas[i].addr, rb->vmas[i].len);
	if (rb->own_memfd) {
		munmap(rb->base, (rb->nr_pages + 1) * PERF_PAGE_SIZE);
		close(rb->memfd);
	} else {
		perf_arena_free(core->arena, rb->base);
	}
	perf_kfree(core, rb->attached);
	perf_kfree(core, rb->vmas);
	perf_kfree(core, rb);
}

/* Grows an array of the core's arena to hold one more element. */
void *perf_ring_grow(struct perf_core *core, void *arr, unsigned nr, unsigned *cap,
		     size_t elem)
{
	unsigned ncap;
	void *n;

	if (nr < *cap)
		return arr;
	ncap = *cap ? 2 * *cap : 4;
	n = perf_zalloc(core, ncap * elem);
	if (!n)
		return NULL;
	if (nr)
		memcpy(n, arr, nr * elem);
	perf_kfree(core, arr);
	*cap = ncap;
	return n;
}

/* ---- the event list of a ring ---- */

/*
 * ring_buffer_attach(): detach event from its ring (if any), attach it to
 * rb (if any). A ring that no event points at any more is freed, as the
 * kernel's last ring_buffer_put() does. On detach the event is woken, for
 * a wakeup it may have missed.
 */
void perf_ring_attach(struct perf_event *event, struct perf_ring *rb)
{
	struct perf_ring *old = event->rb;

	if (old == rb)
		return;
	if (rb) {
		struct perf_event **n = perf_ring_grow(event->core, rb->attached, rb->nr_attached,
						       &rb->cap_attached, sizeof(*n));

		/* the kernel's list_add cannot fail; treat a full arena as fatal */
		if (!n)
			abort();
		rb->attached = n;
		rb->attached[rb->nr_attached++] = event;
	}
	event->rb = rb;
	if (!rb)
		event->output = NULL;   /* no ring: no redirection either */
	if (old) {
		unsigned i;

		for (i = 0; i < old->nr_attached; i++)
			if (old->attached[i] == event)
				break;
		assert(i < old->nr_attached);
		memmove(&old->attached[i], &old->attached[i + 1],
			(old->nr_attached - i - 1) * sizeof(old->attached[0]));
		old->nr_attached--;
		perf_file_wake(event);  /* ring_buffer_attach(): no wakeup leak */
		if (old->nr_attached == 0) {
			assert(old->mmap_count == 0);
			perf_ring_free(old);
		}
	}
}

/* ---- wakeups ---- */

/* wake_up_all(&event->waitq): the file's wakeup generation moves (epoll's
 * ready list follows it), and the machine wakes its pollers. */
void perf_file_wake(struct perf_event *event)
{
	const struct perf_machine *m = perf_core_machine(event->core);

	if (event->handle < 0)
		return;
	__atomic_add_fetch(&event->core->files[event->handle].wakeups, 1, __ATOMIC_RELEASE);
	if (m->ops && m->ops->wakeup)
		m->ops->wakeup(m->ctx, event->handle);
}

/* ring_buffer_wakeup(): wake every event writing to the ring of event. */
static void perf_ring_wakeup(struct perf_event *event)
{
	struct perf_ring *rb = event->rb;

	if (!rb)
		return;
	for (unsigned i = 0; i < rb->nr_attached; i++)
		perf_file_wake(rb->attached[i]);
}

/* perf_event_fasync(): only the parent has fasync state. */
static struct perf_event *perf_fasync_owner(struct perf_event *event)
{
	return event->parent ? event->parent : event;
}

/* perf_event_wakeup(): pollers, then the pending SIGIO (kill_fasync). */
void perf_event_wakeup(struct perf_event *event)
{
	const struct perf_machine *m = perf_core_machine(event->core);

	perf_ring_wakeup(event);
	if (event->pending_kill) {
		struct perf_event *owner = perf_fasync_owner(event);

		if (owner->fasync && owner->handle >= 0 && m->ops && m->ops->fasync)
			m->ops->fasync(m->ctx, owner->handle, event->pending_kill);
		event->pending_kill = 0;
	}
}

/*
 * perf_output_wakeup(): mark the ring readable and run the event's pending
 * work (the kernel's irq_work runs as soon as the NMI returns; the
 * simulated CPU runs it at once).
 */
static void perf_output_wakeup(struct perf_output_handle *h)
{
	h->rb->poll = EPOLLIN | EPOLLRDNORM;
	/* with O_ASYNC, the signal is POLL_IN unless one is already pending */
	if (perf_fasync_owner(h->event)->fasync && !h->event->pending_kill)
		h->event->pending_kill = POLL_IN;
	perf_event_wakeup(h->event);
}

/* ---- output ---- */

/* perf_output_put_handle(): publish head when the outermost writer ends. */
static void perf_output_put_handle(struct perf_output_handle *h)
{
	struct perf_ring *rb = h->rb;

	assert(rb->nest > 0);
	if (rb->nest > 1) {
		rb->nest--;
		return;
	}
	rb->nest = 0;
	__atomic_store_n(&rb->user_page->data_head, rb->head, __ATOMIC_RELEASE);
	if (h->wakeup != rb->wakeup)
		perf_output_wakeup(h);
}

/* ring_buffer_has_space() with CIRC_SPACE of <linux/circ_buf.h>. */
static bool perf_ring_has_space(u64 head, u64 tail, u64 data_size, unsigned size,
				bool backward)
{
	u64 space;

	if (!backward)
		space = (tail - (head + 1)) & (data_size - 1);
	else
		space = (head - (tail + 1)) & (data_size - 1);
	return space >= size;
}

struct perf_out_where perf_event_where(struct perf_event *event)
{
	struct perf_core *core = event->core;
	struct perf_out_where w;

	if (event->ctx && event->ctx->cpu)
		w.cpu = event->ctx->cpu;
	else if (event->cpu >= 0 && (unsigned)event->cpu < core->nr_cpus)
		w.cpu = &core->cpus[event->cpu];
	else
		w.cpu = &core->cpus[0];
	w.current = w.cpu->task;
	return w;
}

void perf_output_copy(struct perf_output_handle *h, const void *buf, size_t len)
{
	struct perf_ring *rb = h->rb;
	const unsigned char *src = buf;

	while (len) {
		u64 pos = h->offset & (rb->data_size - 1);
		size_t n = rb->data_size - pos;

		if (n > len)
			n = len;
		memcpy(rb->data + pos, src, n);
		src += n;
		len -= n;
		h->offset += n;
	}
}

void perf_output_skip(struct perf_output_handle *h, size_t len)
{
	h->offset += len;
}

int perf_output_begin(struct perf_output_handle *h, const struct perf_out_where *w,
		      struct perf_sample_data *data, struct perf_event *event,
		      unsigned size, bool backward)
{
	struct {
		struct perf_event_header header;
		u64 id;
		u64 lost;
	} lost_event;
	struct perf_ring *rb;
	u64 tail, offset, head;
	u64 have_lost;

	/* For inherited events we send all the output towards the parent. */
	if (event->parent)
		event = event->parent;

	rb = event->rb;
	if (!rb)
		return -ENOSPC;
	if (rb->paused) {
		if (rb->nr_pages) {
			rb->lost++;
			event->lost_samples++;
		}
		return -ENOSPC;
	}

	h->rb = rb;
	h->event = event;

	have_lost = rb->lost;
	if (have_lost) {
		size += sizeof(lost_event);
		if (event->attr.sample_id_all)
			size += event->id_header_size;
	}

	/* perf_output_get_handle() */
	rb->nest++;
	h->wakeup = rb->wakeup;

	tail = __atomic_load_n(&rb->user_page->data_tail, __ATOMIC_ACQUIRE);
	offset = head = rb->head;
	if (!rb->overwrite &&
	    !perf_ring_has_space(head, tail, rb->data_size, size, backward))
		goto fail;
	if (!backward)
		head += size;
	else
		head -= size;
	rb->head = head;

	if (backward) {
		offset = head;
		head = (u64)(-head);
	}

	if (head - rb->wakeup > rb->watermark)
		rb->wakeup += rb->watermark;

	h->offset = offset;
	h->end = offset + size;

	if (have_lost) {
		u16 lsize = sizeof(lost_event);

		lost_event.header.type = PERF_RECORD_LOST;
		lost_event.header.misc = 0;
		lost_event.id = event->id;
		lost_event.lost = rb->lost;
		rb->lost = 0;
		perf_event_header_init_id(&lsize, data, w, event);
		lost_event.header.size = lsize;
		perf_output_copy(h, &lost_event, sizeof(lost_event));
		perf_event_output_id_sample(event, h, data);
	}
	return 0;

fail:
	rb->lost++;
	event->lost_samples++;
	perf_output_put_handle(h);
	return -ENOSPC;
}

void perf_output_end(struct perf_output_handle *h)
{
	perf_output_put_handle(h);
}

int perf_sys_output_record(struct perf_core *core, int handle,
			   const struct perf_event_header *rec)
{
	PERF_CORE_GUARD(core);
	struct perf_event *event = perf_event_of(core, handle);
	struct perf_sample_data data;
	struct perf_output_handle h;
	struct perf_out_where w;

	if (!event)
		return -EBADF;
	if (rec->size < sizeof(*rec) || (rec->size & 7))
		return -EINVAL;
	w = perf_event_where(event);
	memset(&data, 0, sizeof(data));
	if (perf_output_begin(&h, &w, &data, event, rec->size, perf_is_write_backward(event)))
		return -ENOSPC;
	perf_output_copy(&h, rec, rec->size);
	perf_output_end(&h);
	return 0;
}

int perf_event_pause_output(struct perf_event *event, bool pause)
{
	struct perf_ring *rb = event->rb;

	/* _perf_ioctl(PERF_EVENT_IOC_PAUSE_OUTPUT) */
	if (!rb || !rb->nr_pages)
		return -EINVAL;
	/* rb_toggle_paused() */
	if (!pause && rb->nr_pages)
		rb->paused = false;
	else if (pause)
		rb->paused = true;
	return 0;
}
