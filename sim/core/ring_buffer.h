/*
 * ring_buffer.h - the perf ring buffer (struct perf_buffer of
 * kernel/events/internal.h) and its output handle.
 *
 * A ring is 1 + 2^n pages: the struct perf_event_mmap_page and the data
 * pages. In a shared arena they are a page-aligned piece of the arena (so
 * every process of the session writes the same pages at the same address);
 * with a heap arena the ring has a memfd of its own. Either way the core
 * writes through rb->base, every perf_sys_mmap() maps the backing memfd
 * again at rb->memfd_off for the caller, and other processes may map it
 * there too, so readers see the bytes the kernel would show them. Writing follows kernel/events/ring_buffer.c:
 * __perf_output_begin reserves space (or counts a loss), perf_output_copy
 * fills it, perf_output_end publishes data_head and wakes readers.
 *
 * Invariants:
 *  - data_size == nr_pages * PERF_PAGE_SIZE, nr_pages is 0 or a power of 2;
 *  - a forward ring's head only grows, a backward ring's head only shrinks
 *    (both modulo 2^64), and user_page->data_head equals head whenever no
 *    writer is inside begin/end (nest == 0);
 *  - in a writable (non-overwrite) ring, head - data_tail <= data_size.
 */
#ifndef PMUSIM_RING_BUFFER_H
#define PMUSIM_RING_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "sim/core/core_types.h"

#define PERF_PAGE_SHIFT 12
#define PERF_PAGE_SIZE  (1UL << PERF_PAGE_SHIFT)

/* RING_BUFFER_WRITABLE (kernel/events/internal.h) */
#define PERF_RING_WRITABLE 0x01

/* One user mapping of a ring (a VMA of perf_mmap). */
struct perf_ring_vma {
	void *addr;
	size_t len;
	struct perf_event *event;       /* the file the mapping was made through */
};

struct perf_ring {
	struct perf_core *core;
	int memfd;                      /* backing file: the arena's, or the ring's own */
	bool own_memfd;                 /* heap arena: memfd and base are the ring's */
	u64 memfd_off;                  /* offset of base in memfd */
	void *base;                     /* where the core writes (user page first) */
	struct perf_event_mmap_page *user_page;
	unsigned char *data;            /* first data page */
	unsigned long nr_pages;
	u64 data_size;

	u64 head;                       /* rb->head */
	u64 wakeup;                     /* rb->wakeup */
	u64 lost;                       /* rb->lost */
	long events;                    /* rb->events (wakeup_events) */
	unsigned nest;                  /* rb->nest */
	u64 watermark;                  /* rb->watermark */
	bool overwrite;                 /* read-only mapping */
	bool paused;                    /* PERF_EVENT_IOC_PAUSE_OUTPUT, or no data pages */
	unsigned poll;                  /* rb->poll: EPOLLIN|EPOLLRDNORM after a wakeup */
	bool no_user_time;              /* mapped by a reader of the host's TSC */

	unsigned mmap_count;            /* rb->mmap_count */
	u64 mmap_locked;                /* pages charged to pinned_vm */
	u64 user_charged;               /* pages charged to the user's locked_vm */
	uid_t mmap_user;
	pid_t mmap_mm;                  /* the mm (process) pinned_vm was charged to */

	/* rb->event_list: events writing here (ring_buffer_attach) */
	struct perf_event **attached;
	unsigned nr_attached, cap_attached;

	struct perf_ring_vma *vmas;
	unsigned nr_vmas, cap_vmas;
};

/* A reservation in a ring (struct perf_output_handle). */
struct perf_output_handle {
	struct perf_event *event;       /* the event the record is accounted to */
	struct perf_ring *rb;
	u64 wakeup;                     /* rb->wakeup at begin */
	u64 offset;                     /* where the next byte goes (ring offset) */
	u64 end;                        /* end of the reservation */
};

/* The CPU a record is written on and the task that is "current" there. */
struct perf_out_where {
	struct perf_cpu *cpu;           /* never NULL */
	struct perf_task *current;      /* NULL: the idle task (pid 0) */
};

/* rb_alloc() + ring_buffer_init(): nr_pages data pages (0 or a power of 2),
 * watermark in bytes (0: half the buffer), flags PERF_RING_WRITABLE.
 * Returns 0 or -ENOMEM / -errno of memfd_create/mmap. */
int perf_ring_alloc(struct perf_core *core, unsigned long nr_pages, long watermark,
		    int flags, struct perf_ring **out);
/* Frees the ring, its mapping and memfd. No event may be attached. */
void perf_ring_free(struct perf_ring *rb);

/* Makes room for element nr in an arena array of *cap elements; returns
 * the (maybe moved) array, or NULL when the arena is full. */
void *perf_ring_grow(struct perf_core *core, void *arr, unsigned nr, unsigned *cap,
		     size_t elem);

/* ring_buffer_attach(): point event->rb at rb (or NULL), keeping the
 * ring's event list; frees a ring that lost its last user and mapping. */
void perf_ring_attach(struct perf_event *event, struct perf_ring *rb);

/*
 * __perf_output_begin(): reserve size bytes in the ring of event (the
 * parent's for an inherited event). data carries the sample_id fields of
 * the record being written, for the PERF_RECORD_LOST that precedes it when
 * records were lost. Returns 0, or -ENOSPC when there is no ring or no
 * room (then rb->lost and event->lost_samples count the loss).
 */
int perf_output_begin(struct perf_output_handle *h, const struct perf_out_where *w,
		      struct perf_sample_data *data, struct perf_event *event,
		      unsigned size, bool backward);
/* Copy len bytes into the reservation (wrapping at the end of the data). */
void perf_output_copy(struct perf_output_handle *h, const void *buf, size_t len);
/* __output_skip(): advance without writing (the kernel leaves old bytes). */
void perf_output_skip(struct perf_output_handle *h, size_t len);
/* perf_output_end(): publish data_head, wake up readers if due. */
void perf_output_end(struct perf_output_handle *h);

/* is_write_backward() */
static inline bool perf_is_write_backward(const struct perf_event *e)
{
	return e->attr.write_backward;
}

/* The CPU a record for event is written on when the caller has no better
 * idea: the CPU its context runs on, else its bound CPU, else CPU 0. */
struct perf_out_where perf_event_where(struct perf_event *event);

/* perf_event_header__init_id() + perf_event__output_id_sample(): the
 * sample_id_all trailer. init_id fills data's id fields for event and, if
 * attr.sample_id_all, adds id_header_size to *size. */
void perf_event_header_init_id(u16 *size, struct perf_sample_data *data,
			       const struct perf_out_where *w, struct perf_event *event);
void perf_event_output_id_sample(struct perf_event *event, struct perf_output_handle *h,
				 const struct perf_sample_data *data);

/* PERF_RECORD_LOST_SAMPLES (perf_log_lost_samples). */
void perf_log_lost_samples(struct perf_event *event, u64 lost);

#endif
