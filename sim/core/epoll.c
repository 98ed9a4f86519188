/*
 * epoll.c - epoll over perf files for the syscall layers (perf_epoll.h):
 * the interest list and fs/eventpoll.c's per-item step over perf_poll().
 */
#include <errno.h>
#include <string.h>
#include "sim/core/perf_core.h"
#include "sim/core/perf_epoll.h"

static void ep_lock(struct perf_ep_set *s)
{
	while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void ep_unlock(struct perf_ep_set *s)
{
	__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}

/* The item of (epfd, fd), or NULL; with the lock held. */
static struct perf_ep_item *ep_find(struct perf_ep_set *s, int epfd, int fd)
{
	for (int i = 0; i < s->count; i++)
		if (s->items[i].used && s->items[i].fd == fd && s->items[i].epfd == epfd)
			return &s->items[i];
	return NULL;
}

/* An item armed for anything but EP_PRIVATE_BITS: not disarmed by
 * EPOLLONESHOT (ep_poll_callback skips a disarmed one). */
static bool ep_armed(const struct perf_ep_item *it)
{
	return it->events & ~(uint32_t)PERF_EP_PRIVATE_BITS;
}

/*
 * ep_send_events() after ep_item_poll() of it answered revents: the events
 * to report (0: none); EPOLLONESHOT disarms the item, a level-triggered one
 * goes back on the ready list. With the lock held.
 */
static uint32_t ep_report(struct perf_ep_item *it, unsigned revents)
{
	uint32_t ev = revents & it->events;

	if (!ev)
		return 0;
	if (it->events & EPOLLONESHOT)
		it->events &= PERF_EP_PRIVATE_BITS;
	else if (!(it->events & EPOLLET))
		it->ready = true;
	return ev;
}

/*
 * ep_item_poll() of the item at index i: its file's mask (polled outside
 * the lock: perf_poll takes the core's, and the shim's poll makes
 * syscalls) & the item's events, 0 if the item was removed or replaced
 * meanwhile. Takes it off the ready list. Called with the lock held;
 * returns with it held.
 */
static uint32_t ep_poll_item(struct perf_ep_set *s, const struct perf_ep_ops *ops, int i)
{
	struct perf_ep_item *it = &s->items[i];
	int epfd = it->epfd, fd = it->fd, h = it->handle;
	unsigned revents;

	it->ready = false;
	it->gen = perf_file_wakeups(ops->core, h);
	ep_unlock(s);
	revents = ops->poll(fd, h);
	ep_lock(s);
	if (!it->used || it->epfd != epfd || it->fd != fd)
		return 0;
	return revents & it->events;
}

/* ep_send_events() for the item at index i: polled, reported. With the
 * lock held. */
static uint32_t ep_send(struct perf_ep_set *s, const struct perf_ep_ops *ops, int i,
			uint64_t *data)
{
	uint32_t ev = ep_poll_item(s, ops, i);

	*data = s->items[i].data;
	return ev ? ep_report(&s->items[i], ev) : 0;
}

/* EPOLLEXCLUSIVE_OK_BITS of fs/eventpoll.c */
#define EP_EXCLUSIVE_OK (EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | \
			 EPOLLEXCLUSIVE)

/* do_epoll_ctl()'s checks of op against the item it (NULL: none): 0 or
 * the errno. */
static int ep_ctl_check(const struct perf_ep_item *it, int op, const struct epoll_event *ev)
{
	if (op == PERF_EP_CTL_SET)
		return 0;
	if (op != EPOLL_CTL_ADD && op != EPOLL_CTL_MOD && op != EPOLL_CTL_DEL)
		return -EINVAL;
	if (op != EPOLL_CTL_DEL && (ev->events & EPOLLEXCLUSIVE) &&
	    (op == EPOLL_CTL_MOD || (ev->events & ~(uint32_t)EP_EXCLUSIVE_OK)))
		return -EINVAL;
	if (op == EPOLL_CTL_ADD)
		return it ? -EEXIST : 0;
	if (!it)
		return -ENOENT;
	/* ep_modify() of an exclusive item is refused */
	return op == EPOLL_CTL_MOD && (it->events & EPOLLEXCLUSIVE) ? -EINVAL : 0;
}

int perf_ep_ctl(struct perf_ep_set *s, const struct perf_ep_ops *ops, int epfd, int op, int fd,
		int handle, const struct epoll_event *ev)
{
	struct perf_ep_item *it;
	int err;

	ep_lock(s);
	it = ep_find(s, epfd, fd);
	err = ep_ctl_check(it, op, ev);
	if (err || op == EPOLL_CTL_DEL) {
		if (!err && it)
			it->used = false;       /* ep_remove() */
		ep_unlock(s);
		return err;
	}
	for (int i = 0; i < PERF_EP_MAX && !it; i++)
		if (!s->items[i].used)
			it = &s->items[i];
	if (!it) {
		ep_unlock(s);
		return -ENOSPC;
	}
	it->used = true;
	it->epfd = epfd;
	it->fd = fd;
	it->handle = handle;
	/* do_epoll_ctl(): EPOLLERR and EPOLLHUP are always reported */
	it->events = ev->events | EPOLLERR | EPOLLHUP;
	it->data = ev->data.u64;
	if (it - s->items >= s->count)
		s->count = (int)(it - s->items) + 1;
	/* ep_insert()/ep_modify(): ep_item_poll() once; a ready item goes on
	 * the ready list (the poll consumed a pending POLLIN, as there) */
	if (ep_poll_item(s, ops, (int)(it - s->items)))
		it->ready = true;
	ep_unlock(s);
	return 0;
}

void perf_ep_forget(struct perf_ep_set *s, int fd)
{
	if (!__atomic_load_n(&s->count, __ATOMIC_RELAXED))
		return;
	ep_lock(s);
	for (int i = 0; i < s->count; i++)
		if (s->items[i].used && (s->items[i].fd == fd || s->items[i].epfd == fd))
			s->items[i].used = false;
	ep_unlock(s);
}

bool perf_ep_watches(struct perf_ep_set *s, int epfd)
{
	bool found = false;

	if (!__atomic_load_n(&s->count, __ATOMIC_RELAXED))
		return false;
	ep_lock(s);
	for (int i = 0; i < s->count && !found; i++)
		found = s->items[i].used && s->items[i].epfd == epfd;
	ep_unlock(s);
	return found;
}

int64_t perf_ep_send(struct perf_ep_set *s, const struct perf_ep_ops *ops, int epfd, int fd,
		     uint64_t *data)
{
	struct perf_ep_item *it;
	uint32_t ev;

	ep_lock(s);
	it = ep_find(s, epfd, fd);
	if (!it) {
		ep_unlock(s);
		return -1;
	}
	ev = ep_send(s, ops, (int)(it - s->items), data);
	ep_unlock(s);
	return ev;
}

int perf_ep_collect(struct perf_ep_set *s, const struct perf_ep_ops *ops, int epfd,
		    struct epoll_event *out, int max)
{
	int n = 0;

	ep_lock(s);
	for (int i = 0; i < s->count && n < max; i++) {
		struct perf_ep_item *it = &s->items[i];
		uint64_t data;
		uint32_t ev;

		if (!it->used || it->epfd != epfd || !ep_armed(it))
			continue;
		/* on the ready list, or put there by a wakeup since
		 * (ep_poll_callback) */
		if (!it->ready && perf_file_wakeups(ops->core, it->handle) == it->gen)
			continue;
		ev = ep_send(s, ops, i, &data);
		if (!ev)
			continue;
		out[n].events = ev;
		out[n].data.u64 = data;
		n++;
	}
	ep_unlock(s);
	return n;
}
