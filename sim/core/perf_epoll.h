/*
 * perf_epoll.h - epoll over perf files, shared by the two syscall layers
 * (the shim's, syscall_shim/shim.c, and the emulator's, sim/linux/sys_perf.c):
 * the interest list of (epfd, fd) items with the caller's events and data,
 * and fs/eventpoll.c's step for one item: ep_item_poll() (the layer's
 * perf_poll) masked with the item's events, EPOLLONESHOT disarming it, a
 * level-triggered item going back on the ready list (ep_send_events).
 *
 * The host keeps the epoll file itself (the layer registers its perf fd
 * there, so epoll_ctl's checks and errnos are the host's); this table
 * answers what the host cannot see. Where the host cannot keep the ready
 * list either (the emulator's perf fds are memfds, always ready for the
 * host), perf_ep_collect() keeps it here from the files' wakeup
 * generations (perf_file_wakeups, ep_poll_callback).
 */
#ifndef PMUSIM_PERF_EPOLL_H
#define PMUSIM_PERF_EPOLL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>

struct perf_core;

#define PERF_EP_MAX 1024
/* EP_PRIVATE_BITS of fs/eventpoll.c: what an EPOLLONESHOT report leaves */
#define PERF_EP_PRIVATE_BITS (EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)

struct perf_ep_item {
	bool used;
	int epfd, fd;
	int handle;             /* the perf file the fd named at EPOLL_CTL_ADD/MOD */
	uint32_t events;        /* the caller's, with EPOLLERR|EPOLLHUP (do_epoll_ctl) */
	uint64_t data;          /* the caller's */
	unsigned gen;           /* the file's wakeups when it was last polled */
	bool ready;             /* on the ready list (rdllist) */
};

/* zeroed: empty */
struct perf_ep_set {
	struct perf_ep_item items[PERF_EP_MAX];
	int count;              /* every used item is below it */
	uint32_t lock;          /* a spin lock: the shim takes it in its SIGSYS handler */
};

struct perf_ep_ops {
	struct perf_core *core;
	/* ep_item_poll() -> perf_poll() of the file handle at fd: its mask,
	 * consumed as perf_poll's xchg consumes it */
	unsigned (*poll)(int fd, int handle);
};

/* op for perf_ep_ctl: record (epfd, fd) with the event as EPOLL_CTL_ADD or
 * _MOD did, whichever it is, without do_epoll_ctl's checks (a layer whose
 * host epoll already checked and accepted the op) */
#define PERF_EP_CTL_SET 0x100

/*
 * do_epoll_ctl() for a perf file handle at fd, after the layer's checks of
 * the fds (EBADF; EINVAL for an epfd that is not an epoll file or is fd):
 * EPOLLEXCLUSIVE's EINVALs, EEXIST for an ADD of an item, ENOENT for a MOD
 * or DEL of none, EINVAL for another op. EPOLL_CTL_ADD and _MOD record the
 * caller's events and data and poll the file once, as ep_insert() and
 * ep_modify() do (a POLLIN pending then is consumed there; a ready item
 * goes on the ready list); EPOLL_CTL_DEL forgets the item. Returns 0 or a
 * negative errno; -ENOSPC when the table is full (as ep_insert() past
 * max_user_watches).
 */
int perf_ep_ctl(struct perf_ep_set *s, const struct perf_ep_ops *ops, int epfd, int op, int fd,
		int handle, const struct epoll_event *ev);

/* close(fd): its items, and those of an epoll fd fd, go (eventpoll_release,
 * ep_free). */
void perf_ep_forget(struct perf_ep_set *s, int fd);

/* Whether epfd holds a perf item. */
bool perf_ep_watches(struct perf_ep_set *s, int epfd);

/*
 * ep_send_events() for the item (epfd, fd), which the host's ready list
 * reported: polls it (ops->poll), masks the answer with its events and
 * stores the caller's data in *data. Returns the events to report (0:
 * none), or -1 when (epfd, fd) is not an item of the set.
 */
int64_t perf_ep_send(struct perf_ep_set *s, const struct perf_ep_ops *ops, int epfd, int fd,
		     uint64_t *data);

/*
 * The ready list of epfd kept here: every armed item that is on it or whose
 * file was woken since it was last polled (ep_poll_callback) is polled and
 * sent as perf_ep_send does, into out[0..max). Returns how many.
 */
int perf_ep_collect(struct perf_ep_set *s, const struct perf_ep_ops *ops, int epfd,
		    struct epoll_event *out, int max);

#endif
