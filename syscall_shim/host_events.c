/*
 * host_events.c - perf events the host kernel serves (tracepoints, software
 * events of native tasks) sharing one ring with the core's events.
 *
 * perf puts every event of a CPU (or task) into one ring with
 * PERF_EVENT_IOC_SET_OUTPUT: `perf record -e cycles` beside its side-band
 * dummy, a sched tracepoint beside cycles. When some of those events are the
 * host's and some the core's, the ring the reader maps is the core's:
 *
 * - a host perf fd is moved into the perf range at open, so its mmap and
 *   ioctls trap (everything else on it is still the host's syscall);
 * - the host event gets a stand-in in the core on first need: a disabled
 *   dummy software event with its cpu, task, clock, write_backward, wakeup
 *   and sample_id settings. The kernel's SET_OUTPUT checks and output rules
 *   (perf_event_set_output, perf_mmap, ring_buffer_attach) run on it, so a
 *   core event can take a host event's ring and the other way round;
 * - the host event's own records go to a ring of its own that the shim maps
 *   privately (the host's mmap, with the host's errnos when the reader maps
 *   it), and are copied as they are, trailers and LOST records included,
 *   into the core ring its stand-in writes to (host_events_drain): at every
 *   trapped syscall, every round of a poll/select/epoll wait, and the
 *   event's close.
 *
 * The table is per process (fds are): a fork's child starts without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/core/perf_core.h"
#include "syscall_shim/host_events.h"
#include "syscall_shim/session.h"
#include "syscall_shim/tramp.h"

#define HOST_PAGE 4096UL
#define HOST_RING_PAGES 128     /* a private ring's data pages at most */

struct host_event {
	bool open;
	int stand_in;                   /* core handle, or -1 */
	struct perf_event_attr attr;    /* as perf_event_open got it */
	pid_t pid;                      /* the target tid (0 made explicit), or -1 */
	int cpu;
	unsigned char *ring;            /* the event's private host ring, or NULL */
	size_t ring_len;
};

static struct host_event table[SHIM_FD_END - SHIM_FD_BASE];
static int nr_feeding;                  /* entries with a private ring */
static int table_lock;
static uint64_t record_buf[65536 / 8];  /* one record being copied (table_lock) */
static struct perf_task *(*native_task_of)(pid_t tid);

void host_events_init(struct perf_task *(*task_of)(pid_t tid))
{
	native_task_of = task_of;
}

static void lock_take(void)
{
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void lock_drop(void)
{
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

static struct host_event *host_event_of(long fd)
{
	struct host_event *he;

	if (((unsigned)fd & SHIM_FD_MASK) != SHIM_FD_BASE)
		return NULL;
	he = &table[(unsigned)fd - SHIM_FD_BASE];
	return he->open ? he : NULL;
}

long host_event_install(long fd, const struct perf_event_attr *attr, pid_t pid, int cpu,
			unsigned long flags)
{
	size_t size = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;
	struct host_event *he;
	long nfd;

	/* a backward ring is read from its head: not copied (stays the host's) */
	if (fd < 0 || attr->write_backward)
		return fd;
	/* placed as perf fds are: above the caller's soft limit if need be */
	nfd = shim_fd_place((int)fd, SHIM_FD_BASE, false, flags & PERF_FLAG_FD_CLOEXEC);
	if (nfd < 0)
		return fd;
	if (nfd >= SHIM_FD_END) {
		TSYS1(SYS_close, nfd);
		return fd;
	}
	TSYS1(SYS_close, fd);
	lock_take();
	he = &table[nfd - SHIM_FD_BASE];
	if (he->open && he->ring) {
		/* the number's last host event went without close(2)
		 * (close_range, dup2 over it): its private ring goes now */
		TSYS2(SYS_munmap, he->ring, he->ring_len);
		nr_feeding--;
	}
	memset(he, 0, sizeof(*he));
	memcpy(&he->attr, attr, size < sizeof(he->attr) ? size : sizeof(he->attr));
	he->stand_in = -1;
	he->pid = pid == 0 ? (pid_t)TSYS0(SYS_gettid) : pid;
	he->cpu = cpu;
	he->open = true;
	lock_drop();
	return nfd;
}

bool host_event_is(long fd)
{
	return host_event_of(fd) != NULL;
}

/* The stand-in's attr: the settings perf_event_set_output() compares
 * (cpu and task are the open's), and those of the output it shares
 * (wakeups; sample_id fields, for a LOST record it writes); disabled, a
 * dummy: it never counts nor gets side band of its own. */
static int stand_in_open(struct perf_core *core, struct perf_task *current,
			 struct host_event *he)
{
	const struct perf_event_attr *h = &he->attr;
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.sample_type = h->sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
					  PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
					  PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU);
	a.sample_id_all = h->sample_id_all;
	a.exclude_user = h->exclude_user;
	a.exclude_kernel = h->exclude_kernel;
	a.exclude_hv = h->exclude_hv;
	a.inherit = h->inherit;
	a.watermark = h->watermark;
	a.wakeup_events = h->wakeup_events;     /* or wakeup_watermark */
	a.use_clockid = h->use_clockid;
	a.clockid = h->clockid;
	a.write_backward = h->write_backward;
	if (he->pid > 0 && (!native_task_of || !native_task_of(he->pid)))
		return -ESRCH;
	return perf_sys_event_open(core, current, &perf_uaccess_direct,
				   (uint64_t)(uintptr_t)&a, he->pid, he->cpu, -1, 0);
}

int host_event_stand_in(struct perf_core *core, struct perf_task *current, long fd)
{
	struct host_event *he = host_event_of(fd);
	int h;

	if (!he)
		return -EBADF;
	lock_take();
	if (he->stand_in < 0)
		he->stand_in = stand_in_open(core, current, he);
	h = he->stand_in;
	if (h < 0)
		he->stand_in = -1;
	lock_drop();
	return h;
}

/* Copies len bytes at ring offset off of a data area of size bytes. */
static void ring_read(const unsigned char *data, uint64_t size, uint64_t off, void *dst,
		      size_t len)
{
	unsigned char *d = dst;

	while (len) {
		uint64_t pos = off & (size - 1);
		size_t n = size - pos < len ? (size_t)(size - pos) : len;

		memcpy(d, data + pos, n);
		d += n;
		off += n;
		len -= n;
	}
}

/* Every record between the private ring's tail and head, in the host's
 * order, into the stand-in's ring; the tail follows (the host's space).
 * Call with table_lock held. */
static void drain_one(struct perf_core *core, struct host_event *he)
{
	struct perf_event_mmap_page *up = (void *)he->ring;
	const unsigned char *data = he->ring + up->data_offset;
	uint64_t size = up->data_size;
	uint64_t head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = up->data_tail;

	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header hdr;

		ring_read(data, size, tail, &hdr, sizeof(hdr));
		if (hdr.size < sizeof(hdr) || hdr.size > head - tail)
			break;
		ring_read(data, size, tail, record_buf, hdr.size);
		if (he->stand_in >= 0)
			perf_sys_output_record(core, he->stand_in, (const void *)record_buf);
		tail += hdr.size;
	}
	__atomic_store_n(&up->data_tail, tail, __ATOMIC_RELEASE);
}

/* The private ring goes (after its last records). table_lock held. */
static void unfeed(struct perf_core *core, struct host_event *he)
{
	if (!he->ring)
		return;
	drain_one(core, he);
	TSYS2(SYS_munmap, he->ring, he->ring_len);
	he->ring = NULL;
	nr_feeding--;
}

void host_events_drain(struct perf_core *core)
{
	lock_take();
	for (unsigned i = 0; i < SHIM_FD_END - SHIM_FD_BASE && nr_feeding; i++)
		if (table[i].open && table[i].ring)
			drain_one(core, &table[i]);
	lock_drop();
}

int host_events_poll_fds(struct pollfd *fds, int max)
{
	int n = 0;

	lock_take();
	for (unsigned i = 0; i < SHIM_FD_END - SHIM_FD_BASE && n < max; i++)
		if (table[i].open && table[i].ring)
			fds[n++] = (struct pollfd){ .fd = (int)(SHIM_FD_BASE + i), .events = POLLIN };
	lock_drop();
	return n;
}

bool host_events_feeding(void)
{
	return __atomic_load_n(&nr_feeding, __ATOMIC_RELAXED) > 0;
}

long host_event_mmap(struct perf_core *core, struct perf_task *current, long *a,
		     long (*map_core)(int handle, long *a))
{
	struct host_event *he = host_event_of(a[4]);
	size_t len = ((size_t)a[1] + HOST_PAGE - 1) & ~(HOST_PAGE - 1);
	int h = host_event_stand_in(core, current, a[4]);
	long p, r;

	if (!he || h < 0)
		return -ENOSYS;         /* the host's mmap, as before */
	if (he->ring)                   /* mapped again, or fed by SET_OUTPUT:
					 * perf_mmap()'s rules on the stand-in */
		return map_core(h, a);
	/* perf_mmap() of the host: its checks and errnos; the ring it makes
	 * is the event's own, which the shim reads */
	p = TSYS6(SYS_mmap, 0, a[1], PROT_READ | PROT_WRITE,
		  a[3] & ~(MAP_FIXED | MAP_FIXED_NOREPLACE), a[4], a[5]);
	if (p < 0 && p > -4096)
		return p;
	r = map_core(h, a);
	if (r < 0 && r > -4096) {
		TSYS2(SYS_munmap, p, len);
		return r;
	}
	lock_take();
	he->ring = (unsigned char *)p;
	he->ring_len = len;
	nr_feeding++;
	lock_drop();
	return r;
}

/* A private ring for a host event that now writes into a core ring: as
 * many data pages as the host's mlock limit allows, up to
 * HOST_RING_PAGES. Returns 0 or the host's -errno. table_lock held. */
static long feed_map(long fd, struct host_event *he)
{
	long p = -ENOMEM;

	/* ring_buffer_attach() replaces a redirection the host had made */
	TSYS3(SYS_ioctl, fd, PERF_EVENT_IOC_SET_OUTPUT, -1);
	for (size_t pages = HOST_RING_PAGES; pages; pages /= 2) {
		size_t len = (1 + pages) * HOST_PAGE;

		p = TSYS6(SYS_mmap, 0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p >= 0 || p <= -4096) {
			he->ring = (unsigned char *)p;
			he->ring_len = len;
			nr_feeding++;
			return 0;
		}
		if (p != -EPERM && p != -ENOMEM)
			break;
	}
	return p;
}

long host_event_set_output(struct perf_core *core, struct perf_task *current, long fd,
			   long arg, int out_h)
{
	struct host_event *he = host_event_of(fd);
	long r;
	int h;

	if (!he)
		return -EBADF;
	if (out_h >= 0 || (arg == -1 && he->stand_in >= 0)) {
		/* into a core ring, or back to none: the kernel's checks on
		 * the stand-in (cpu, task, clock, write_backward, its mmap) */
		h = host_event_stand_in(core, current, fd);
		if (h < 0)
			return -EINVAL;         /* no ring the core can share */
		r = perf_sys_ioctl(core, current, &perf_uaccess_direct, h,
				   PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)(long)out_h);
		if (r)
			return r;
		lock_take();
		if (arg == -1) {
			unfeed(core, he);
			r = TSYS3(SYS_ioctl, fd, PERF_EVENT_IOC_SET_OUTPUT, -1);
		} else if (!he->ring) {
			r = feed_map(fd, he);
			if (r)
				perf_sys_ioctl(core, current, &perf_uaccess_direct, h,
					       PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)-1);
		}
		lock_drop();
		return r;
	}
	/* into another host event's ring (or not a perf file): the host's
	 * answer; a private ring fed by SET_OUTPUT gives way first */
	lock_take();
	if (he->ring && he->stand_in >= 0 &&
	    perf_sys_ioctl(core, current, &perf_uaccess_direct, he->stand_in,
			   PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)-1) == 0)
		unfeed(core, he);
	lock_drop();
	return TSYS3(SYS_ioctl, fd, PERF_EVENT_IOC_SET_OUTPUT, arg);
}

void host_event_forget(struct perf_core *core, long fd)
{
	struct host_event *he = host_event_of(fd);

	if (!he)
		return;
	lock_take();
	unfeed(core, he);
	if (he->stand_in >= 0)
		perf_file_put(core, he->stand_in);
	he->open = false;
	lock_drop();
}

long host_event_close(struct perf_core *core, long fd)
{
	host_event_forget(core, fd);
	return TSYS1(SYS_close, fd);
}

void host_events_forget_all(void)
{
	memset(table, 0, sizeof(table));
	nr_feeding = 0;
	table_lock = 0;
}
