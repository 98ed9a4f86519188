/*
 * epoll.c - the epoll items of a process's perf fds: the core's item
 * table (perf_epoll.h, fs/eventpoll.c's steps) kept in struct perf_files,
 * with ep_item_poll() -> perf_poll() asked of the host (host->poll with
 * the fd's own answer unknown).
 */
#include "sim/perf_file/perf_file.h"

/* The call the table's poll step belongs to (perf_ep_ops has no context). */
static __thread struct perf_files *ep_pf;
static __thread void *ep_ctx;

static unsigned ep_poll(int fd, int h)
{
	return ep_pf->host->poll(ep_ctx, fd, h, PERF_FD_REVENTS_UNKNOWN);
}

static const struct perf_ep_ops *ep_ops(struct perf_files *pf, void *ctx)
{
	static __thread struct perf_ep_ops ops = { .poll = ep_poll };

	ep_pf = pf;
	ep_ctx = ctx;
	ops.core = pf->core;
	return &ops;
}

int perf_fd_ep_ctl(struct perf_files *pf, void *ctx, int epfd, int op, int fd, int h,
		   const struct epoll_event *ev)
{
	return perf_ep_ctl(&pf->ep, ep_ops(pf, ctx), epfd, op, fd, h, ev);
}

void perf_fd_ep_forget(struct perf_files *pf, int fd)
{
	perf_ep_forget(&pf->ep, fd);
}

bool perf_fd_ep_watches(struct perf_files *pf, int epfd)
{
	return perf_ep_watches(&pf->ep, epfd);
}

bool perf_fd_ep_any(struct perf_files *pf)
{
	return __atomic_load_n(&pf->ep.count, __ATOMIC_RELAXED) != 0;
}

int64_t perf_fd_ep_send(struct perf_files *pf, void *ctx, int epfd, int fd, uint64_t *data)
{
	return perf_ep_send(&pf->ep, ep_ops(pf, ctx), epfd, fd, data);
}

int perf_fd_ep_collect(struct perf_files *pf, void *ctx, int epfd, struct epoll_event *out,
		       int max)
{
	return perf_ep_collect(&pf->ep, ep_ops(pf, ctx), epfd, out, max);
}
