/*
 * host_events.h - perf events the host kernel serves (tracepoints, software
 * events of native tasks) sharing one ring with the core's events through
 * PERF_EVENT_IOC_SET_OUTPUT, in either direction (perf's side-band dummy
 * or sched tracepoint beside cycles). See host_events.c and docs/shim.md.
 */
#ifndef PMUSIM_SHIM_HOST_EVENTS_H
#define PMUSIM_SHIM_HOST_EVENTS_H

#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>
#include <linux/perf_event.h>

struct perf_core;
struct perf_task;

/* The core's task for a native tid (the shim's, created on first sight),
 * for the stand-ins of per-task host events. */
void host_events_init(struct perf_task *(*task_of)(pid_t tid));
/* Takes a host perf fd the host just opened for attr (pid, cpu, flags as
 * perf_event_open got them) into the perf range, so its mmap and ioctls
 * trap; returns the new fd (the old one is closed), or fd unchanged when
 * the range is full or the event cannot share a ring (write_backward). */
long host_event_install(long fd, const struct perf_event_attr *attr, pid_t pid, int cpu,
			unsigned long flags);
/* Whether fd is a host perf event this process installed. */
bool host_event_is(long fd);
/* The core handle of fd's stand-in (created on first use), on which the
 * core runs the kernel's SET_OUTPUT checks and output rules for it; or
 * -errno. */
int host_event_stand_in(struct perf_core *core, struct perf_task *current, long fd);
/* mmap(2) of a host event at pgoff 0: the host's mmap (its checks, its
 * errno) becomes the event's private ring, and the caller gets the
 * stand-in's core ring through map_core(handle), the shim's ring mmap.
 * Returns the caller's address or -errno. */
long host_event_mmap(struct perf_core *core, struct perf_task *current, long *a,
		     long (*map_core)(int handle, long *a));
/* ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, arg) on a host event, where arg's
 * core handle is out_h (-1: arg is not a core file). */
long host_event_set_output(struct perf_core *core, struct perf_task *current, long fd,
			   long arg, int out_h);
/* fd, a host event, is gone or going (close_range, dup2 over it): its
 * records so far are copied, its private ring and stand-in go. */
void host_event_forget(struct perf_core *core, long fd);
/* close(2) of a host event: host_event_forget(), then the fd. */
long host_event_close(struct perf_core *core, long fd);
/* Copies every record the host wrote into this process's private rings
 * into the core rings they feed (at the points a reader can look). */
void host_events_drain(struct perf_core *core);
/* Up to max host fds whose private rings feed core rings, into fds
 * (POLLIN): a wait adds them so the host's wakeups end it. Returns how
 * many. */
int host_events_poll_fds(struct pollfd *fds, int max);
/* Whether any private ring feeds a core ring (draining has work). */
bool host_events_feeding(void);
/* A forked child: the parent's private rings were not copied
 * (VM_DONTCOPY) and its stand-ins are the parent's. */
void host_events_forget_all(void);

#endif
