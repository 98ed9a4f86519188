/*
 * perf_file.h - perf fds as a process sees them, written once for both
 * syscall layers (the emulator's, sim/linux/sys_perf.c, and the native
 * shim's, syscall_shim/shim.c): the process's table of fds that name core
 * file handles and the file references those fds hold (open, dup, dup2,
 * F_DUPFD, close, close_range, fork, exit), the file operations
 * (perf_fops: read, readv, ioctl, the O_ASYNC part of fcntl, and the
 * errnos of the calls perf_fops has no entry for), the process's ring
 * mappings (mmap, munmap, fork, exit) and poll/select over sets holding
 * perf fds.
 *
 * What differs between the two is the host: how a perf fd is made (a memfd
 * named "[perf_event]" in the guest, a pipe's read end in the perf fd
 * windows in the shim), how the caller's memory is read and written (EFAULT
 * where the kernel's copy_from_user/copy_to_user fail), where a ring is
 * mapped, how a poll waits. Each layer gives those as a struct
 * perf_file_host, and this layer calls nothing else but the core's public
 * API (perf_core.h). Everything here may run in the shim's SIGSYS handler:
 * no malloc, no stdio, no libc syscall wrappers (host->sys instead).
 */
#ifndef PMUSIM_PERF_FILE_H
#define PMUSIM_PERF_FILE_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/core/perf_core.h"
#include "sim/core/perf_epoll.h"

struct perf_files;

/* The host operations a syscall layer provides. ctx is the call's (the
 * guest thread, or NULL in the shim). Every entry is required unless said. */
struct perf_file_host {
	/* a raw host syscall, -errno on failure (the shim's trampoline) */
	long (*sys)(long nr, long a1, long a2, long a3, long a4, long a5, long a6);
	/* the caller's syscall nr on fd-level arguments a, as the host would
	 * run it for the caller (its own checks, its signal mask) */
	long (*pass)(void *ctx, long nr, const long a[6]);
	/* copy_from_user / copy_to_user: 0 or -EFAULT */
	int (*copy_from)(void *ctx, void *dst, uint64_t uaddr, size_t len);
	int (*copy_to)(void *ctx, uint64_t uaddr, const void *src, size_t len);
	/* a new perf fd for handle h, the fd object of the host
	 * (PERF_FLAG_FD_CLOEXEC in flags), and its tag; the fd or -errno, h
	 * untouched */
	long (*make_fd)(void *ctx, int h, unsigned long flags, uint64_t *tag);
	/* a dup of fd at the lowest free number at or above min that the host
	 * keeps perf fds at (dup, F_DUPFD); the new fd or -errno */
	long (*dup_fd)(void *ctx, long fd, long min, bool cloexec);
	/* table slot of fd, or -1 when fd cannot be a perf fd */
	long (*slot)(long fd);
	/* the fd of slot i, or -1 */
	long (*slot_fd)(long i);
	/* optional: the handle of the perf file fd names when the table does
	 * not know it, or -1 (the shim finds every session pipe this way; the
	 * guest adopts explicitly, perf_fd_adopt) */
	int (*identify)(void *ctx, long fd, uint64_t *tag);
	/* optional: fd's tag now (0: not open), checked against the table's
	 * at every lookup (fds the host closes behind the table's back) */
	uint64_t (*tag)(long fd);
	/* optional: whether h is still the file tagged tag */
	bool (*live)(int h, uint64_t tag);
	/* the file's O_ASYNC (the fasync entry perf_fasync() keeps) and its
	 * change through fd */
	bool (*async)(void *ctx, int h);
	void (*set_async)(void *ctx, int h, long fd, bool on);
	/* optional: after the table dropped fd's reference of h (close,
	 * dup2 over it, close_range, exit) */
	void (*dropped)(void *ctx, long fd, int h);
	/* optional: after a reference of h went (perf_file_put) */
	void (*put)(void *ctx, int h);
	/* maps the ring (perf_sys_mmap gave memfd and off) as the caller's
	 * mmap a asked, with pf->ring_lock held; the address or -errno.
	 * *tracked comes in true when the ring table has room and goes out
	 * true when the table is to record the mapping (its munmap is seen) */
	long (*map_ring)(void *ctx, struct perf_files *pf, const long a[6], int memfd, int64_t off,
			 bool *tracked);
	/* perf_poll() of h at fd, the host's own answer for the fd in revents
	 * (poll, select; PERF_FD_REVENTS_UNKNOWN for epoll's item poll: the
	 * host asks itself if it needs it): the mask */
	unsigned (*poll)(void *ctx, long fd, int h, short revents);
	/* one wait of a poll with nothing to report: the host's wait on fds
	 * for at most timeout_ns (-1: none); 0 or more, or -errno (EINTR) */
	long (*poll_wait)(void *ctx, struct pollfd *fds, unsigned long n, int64_t timeout_ns);
};

/* One slot of the fd table: 0 handle+1: free. */
struct perf_fd_slot {
	uint64_t tag;
	int handle1;
};

/* The ring mappings a process holds (VMAs with perf_mmap_vmops). */
struct perf_ring_map {
	uintptr_t addr;         /* 0: free */
	size_t len;             /* page-rounded */
	int handle;
	void *area;             /* the core's own mapping of the ring */
};

#define PERF_FILE_RINGS 256
#define PERF_FD_REVENTS_UNKNOWN ((short)-1)

/* A process's perf fds. The layer fills host, core, slots and nr_slots;
 * the rest starts zeroed. */
struct perf_files {
	const struct perf_file_host *host;
	struct perf_core *core;
	struct perf_fd_slot *slots;
	unsigned nr_slots;
	unsigned max_rings;                     /* at most PERF_FILE_RINGS */
	struct perf_ring_map rings[PERF_FILE_RINGS];
	int ring_lock;                          /* spin lock (signal-handler safe) */
	struct perf_ep_set ep;                  /* epoll items on perf fds */
};

/* ---- the fd table and its references ---- */

/* The handle fd names, or -1. */
int perf_fd_handle(struct perf_files *pf, void *ctx, long fd);
/* fd names h from now on (its reference taken by the caller). */
void perf_fd_set(struct perf_files *pf, long fd, int h, uint64_t tag);
/* fd no longer names a file in the table (no reference changes). */
void perf_fd_forget(struct perf_files *pf, long fd);
/* perf_event_open's end: a new fd of the opened handle h (its reference
 * goes to the fd), or -errno with h put. */
long perf_fd_install(struct perf_files *pf, void *ctx, int h, unsigned long flags);
/* The table's reference of fd goes (close, a dup2 over it, exit). */
void perf_fd_drop(struct perf_files *pf, void *ctx, long fd);
/* A reference of h goes (perf_file_put, then host->put). */
void perf_fd_put(struct perf_files *pf, void *ctx, int h);
/* close(fd) of a perf fd: its reference goes first (a release that
 * wakes the file still finds it open), then the host's close. */
long perf_fd_close(struct perf_files *pf, void *ctx, long fd);
/* dup(2) of perf file h at fd. */
long perf_fd_dup(struct perf_files *pf, void *ctx, long fd, int h, long min, bool cloexec);
/* dup2/dup3 done by the host with result r: newfd's old file goes, and it
 * names oldfd's (oh, nh: the handles of the two before the call, or -1). */
long perf_fd_dup2_done(struct perf_files *pf, void *ctx, long r, const long a[6], int oh, int nh);
/* close_range(first, last, flags) done by the host (r: its result); hs:
 * the handles of the table's slots in [first, last] before the call
 * (perf_fd_snapshot, nr_slots entries). */
void perf_fd_snapshot(struct perf_files *pf, void *ctx, unsigned first, unsigned last, int *hs);
void perf_fd_close_range_done(struct perf_files *pf, void *ctx, long r, const long a[6],
			      const int *hs);
/* fork(): the child's fd table holds every file too (dup_fd), undo when
 * the fork failed. */
void perf_fd_fork(struct perf_files *pf, void *ctx, bool undo);
/* exit_files(): every perf fd's reference goes. cloexec: only those with
 * FD_CLOEXEC (do_close_on_exec()); their fds are put in dropped (up to
 * max; NULL: not kept). Returns how many were dropped. */
unsigned perf_fd_release(struct perf_files *pf, void *ctx, bool cloexec, int *dropped,
			 unsigned max);
/* A perf file the process got another way (kept across execve, received
 * with SCM_RIGHTS): fd names the file with tag tag (host->identify found
 * it); take_ref: a new reference. Returns the handle or -1. */
int perf_fd_adopt(struct perf_files *pf, void *ctx, long fd, int h, uint64_t tag, bool take_ref);

/* ---- file operations (perf_fops) ---- */

/* read(2) and readv(2) of h into the caller's memory. */
long perf_fd_read(struct perf_files *pf, void *ctx, int h, uint64_t buf, size_t count);
long perf_fd_readv(struct perf_files *pf, void *ctx, int h, uint64_t uiov, long nr_segs);
/* What a perf fd answers to a call perf_fops has no entry for (write,
 * pread, lseek, fsync, ...): the errno, or 0 when nr is not one (read,
 * readv, and preadv2 at position -1, which is readv). */
long perf_fd_no_op(long nr, const long a[6]);
/*
 * ioctl(2) on perf file h at a[0]: do_vfs_ioctl()'s FIOCLEX, FIONCLEX,
 * FIONBIO (the host's fd), FIOASYNC (perf_fasync), then perf_ioctl.
 * SET_OUTPUT's fd is a handle of the table, else out_handle's answer for
 * it (optional: a stand-in's handle or -errno), else EBADF.
 */
long perf_fd_ioctl(struct perf_files *pf, void *ctx, struct perf_task *cur,
		   const struct perf_uaccess *ua, int h, const long a[6],
		   int (*out_handle)(void *ctx, long fd));
/* fcntl(2) on perf file h at a[0]: F_DUPFD(_CLOEXEC) (a perf fd again),
 * F_SETFL (O_ASYNC is perf_fasync's, the rest the host's), F_GETFL;
 * the other commands are the host's. */
long perf_fd_fcntl(struct perf_files *pf, void *ctx, int h, const long a[6]);

/* prctl(PR_SET_NAME)'s name as prctl_set_name() takes it
 * (strncpy_from_user of TASK_COMM_LEN - 1 bytes), after the host's call
 * succeeded: what __set_task_comm() -> perf_event_comm() reports. */
void perf_fd_comm_from_user(struct perf_files *pf, void *ctx, uint64_t uname, char name[16]);

/* ---- ring mappings ---- */

/* mmap(2) of perf file h (a[4]): perf_mmap() in the core, then the host
 * maps the ring. The address or -errno. */
long perf_fd_mmap(struct perf_files *pf, void *ctx, struct perf_task *cur, int h,
		  const long a[6]);
/* munmap(addr, len): EINVAL for a range that splits a ring
 * (perf_mmap_may_split), else the host's munmap, then perf_mmap_close()
 * of each ring it covered wholly. */
long perf_fd_munmap(struct perf_files *pf, void *ctx, uint64_t addr, uint64_t len);
/* fork(): the child's copies of the rings (keep: dup_mmap ->
 * perf_mmap_open; else VM_DONTCOPY, the child has none). */
void perf_fd_rings_fork(struct perf_files *pf, bool keep);
/* exit_mm()/exec_mmap(): every ring mapping goes. */
void perf_fd_rings_release(struct perf_files *pf, void *ctx);

/* ---- poll and select ---- */

/* CLOCK_MONOTONIC in ns, what the waits' timeouts count in. */
int64_t perf_fd_now_ns(void);

/* A poll/select timeout of sec seconds and sub micro- (usec: select's
 * timeval) or nanoseconds (a timespec) in *ns, -1 for one too long to
 * end: 0 or -EINVAL, as kern_select() and poll_select_set_timeout(). */
long perf_fd_timeout_ns(int64_t sec, int64_t sub, bool usec, int64_t *ns);

/*
 * poll(2) of fds[0..n) (copied in, copied back by the caller): hs[i] is
 * the handle of fds[i] or -1. Each round asks the host for every fd at
 * once (zero timeout), replaces the perf fds' answers with perf_poll's
 * (host->poll) masked with their events, POLLERR and POLLHUP, and returns
 * the count; with nothing to report it waits (host->poll_wait) until the
 * timeout (ns, -1: none) or a signal.
 */
long perf_fd_poll_fds(struct perf_files *pf, void *ctx, struct pollfd *fds, unsigned long n,
		      const int *hs, int64_t timeout_ns);

/* The bitmaps of select(2) as do_select() reads them: in (nfds bits
 * each, NULL: none) to pollfds (fds[], hs[], at most max), and back into
 * the sets with the count. */
#define PERF_FD_LONG_BITS (8 * sizeof(unsigned long))
#define PERF_FD_BITS_BYTES(n) \
	((((size_t)(n) + PERF_FD_LONG_BITS - 1) / PERF_FD_LONG_BITS) * sizeof(unsigned long))
/* Whether any fd of the sets below nfds is a perf fd. */
bool perf_fd_select_any(struct perf_files *pf, void *ctx, int nfds, unsigned long *sets[3]);
unsigned long perf_fd_select_to_poll(struct perf_files *pf, void *ctx, int nfds,
				     unsigned long *sets[3], struct pollfd *fds, int *hs);
/* After perf_fd_poll_fds(): -EBADF for an fd not open, else the sets
 * (cleared to nfds bits, then POLLIN_SET/POLLOUT_SET/POLLEX_SET) and the
 * count. */
long perf_fd_poll_to_select(int nfds, unsigned long *sets[3], const struct pollfd *fds,
			    unsigned long n);
/* poll_select_finish(): select (nr SYS_select, a timeval) or pselect6 (a
 * timespec) writes the time left of timeout_ns, counted from start_ns
 * (perf_fd_now_ns), back to utimeout. */
void perf_fd_select_finish(struct perf_files *pf, void *ctx, long nr, uint64_t utimeout,
			   int64_t timeout_ns, int64_t start_ns);

/* epoll_wait, epoll_pwait, epoll_pwait2 (nr) with arguments a: the
 * timeout in ns (-1: none) and the caller's signal mask (*has_mask), or
 * -EFAULT/-EINVAL in the kernel's order (the timeout, then
 * set_user_sigmask()). */
long perf_fd_epoll_args(struct perf_files *pf, void *ctx, long nr, const long a[6],
			int64_t *timeout_ns, uint64_t *mask, bool *has_mask);

/* ---- epoll items (perf_epoll.h's table and steps, in pf->ep) ---- */

int perf_fd_ep_ctl(struct perf_files *pf, void *ctx, int epfd, int op, int fd, int h,
		   const struct epoll_event *ev);
void perf_fd_ep_forget(struct perf_files *pf, int fd);
bool perf_fd_ep_watches(struct perf_files *pf, int epfd);
/* Whether any item exists (a wait with none has nothing to translate). */
bool perf_fd_ep_any(struct perf_files *pf);
int64_t perf_fd_ep_send(struct perf_files *pf, void *ctx, int epfd, int fd, uint64_t *data);
int perf_fd_ep_collect(struct perf_files *pf, void *ctx, int epfd, struct epoll_event *out,
		       int max);

/* ---- SCM_RIGHTS ---- */

struct msghdr;
/* fn on each fd of msg's SCM_RIGHTS messages; fn may change the number,
 * which goes back into the message. */
void perf_fd_scm_each(struct msghdr *msg, void (*fn)(void *arg, int *fd), void *arg);

/* ---- fasync ---- */

/* send_sigio_to_task(): the siginfo of a file whose F_SETSIG is fsig (0:
 * none) at fd, for reason (POLL_IN .. POLL_HUP) in si; returns the signal.
 * When the signal cannot be queued (the RT queue is full), the kernel
 * falls back on a plain SIGIO: perf_fd_sigio_fallback's. */
int perf_fd_sigio_info(int fsig, int fd, int reason, siginfo_t *si);
int perf_fd_sigio_fallback(siginfo_t *si);

#endif
