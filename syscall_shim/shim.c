/*
 * shim.c - the preloaded library (libpmusim_shim.so) that puts a native
 * process into a `pmusim run` session: its constructor joins the session's
 * core, maps the trampoline, installs the SIGSYS handler and (once per
 * process tree) the filter; the handler serves perf_event_open, prctl,
 * execve, every syscall on a perf fd and munmap of the rings it placed,
 * from the core, in this process; its recvmsg/recvmmsg interposers move
 * perf fds received over SCM_RIGHTS into the perf range.
 *
 * A perf file is the read end of a pipe, at a number in the perf fd
 * windows: a wakeup writes a byte, the last write end closing is
 * POLLHUP. What a process does with its perf fds (references, perf_fops,
 * rings, poll and select) is sim/perf_file's, over this file's host
 * operations. poll/ppoll/select/pselect6 and the epoll waits (a second
 * filter, in processes holding perf fds) and epoll_ctl answer as
 * perf_poll. The write end stays with
 * the opener until the monitored task takes its own (at its exec into the
 * emulator) and tells the opener to drop it.
 *
 * Events the host kernel serves for native tasks (software, tracepoint,
 * breakpoint, the host's other PMUs) pass through to it unchanged, unless
 * they join a core group or target a task the core monitors; their fds
 * move into the perf range so that a ring shared with core events
 * (SET_OUTPUT) is the core's (host_events.c).
 *
 * Inside pmusim itself (the emulator a monitored task is re-executed
 * into) the shim is passive: it passes every trapped syscall through and
 * removes itself from LD_PRELOAD so the guest does not load it.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/arena.h"
#include "sim/core/fd_place.h"
#include "sim/core/perf_epoll.h"
#include "sim/perf_file/perf_file.h"
#include "syscall_shim/host_events.h"
#include "syscall_shim/session.h"
#include "syscall_shim/tramp.h"
#include "syscall_shim/uaccess.h"

#define SHIM_PAGE 4096UL      /* x86-64 PAGE_SIZE */

static struct perf_core *core;
static struct shim_session *sess;
static const struct pmu_model *model;
static bool passive;            /* inside pmusim: pass everything through */
static bool active;             /* handler installed */
static pid_t shim_pid;          /* the process these tables are of (atfork keeps it) */
static __thread ucontext_t *cur_uc; /* the trapped context (its signal mask) */

/* This process's perf fds: window slot (fd_slot) -> handle, valid while
 * the pipe inode matches (fds may be closed behind our back), and rings. */
#define FD_SLOTS (2 * SHIM_FD_WINDOW)
#define RING_MAPS 64
static struct perf_fd_slot fd_slots[FD_SLOTS];
static const struct perf_file_host shim_files_host;
static struct perf_files PF = { .host = &shim_files_host, .slots = fd_slots,
				.nr_slots = FD_SLOTS, .max_rings = RING_MAPS };
/* The session arena's fd in this process (SHIM_ARENA_FD unless a dup2
 * onto it moved it), and its PMUSIM_ARENA_FD for the environment. */
static int arena_fd = -1;
static char env_arena[64];

static bool in_range(long fd)
{
	return shim_fd_in_window(sess, fd);
}

/* fd's slot in the fd table (in_range(fd) holds), and back. */
static unsigned fd_slot(long fd)
{
	return ((unsigned)fd & SHIM_FD_MASK) == SHIM_FD_BASE
		? (unsigned)fd - SHIM_FD_BASE : SHIM_FD_WINDOW + ((unsigned)fd - (unsigned)sess->fd_base2);
}

static long slot_fd(unsigned i)
{
	if (i < SHIM_FD_WINDOW)
		return SHIM_FD_BASE + i;
	return sess && sess->fd_base2 ? sess->fd_base2 + (long)(i - SHIM_FD_WINDOW) : -1;
}

/* A perf fd at the lowest free number at or above min in the windows (the
 * kernel: the lowest free at or above min), a dup of fd; -EMFILE when the
 * windows have no room at or above min. */
static long place_fd(long fd, long min, bool cloexec)
{
	int r = shim_fd_place((int)fd, min < 0 ? 0 : min > INT_MAX ? INT_MAX : (int)min, false, cloexec);

	return r < 0 ? -EMFILE : r;
}

/* The core handle behind fd, or -1 when fd is not a perf file. */
static int fd_handle(long fd)
{
	return sess ? perf_fd_handle(&PF, NULL, fd) : -1;
}

/* After the core dropped a reference of h: clears its session slot if
 * that was the last (perf_release() ran). */
static void file_check_released(void *ctx, int h)
{
	(void)ctx;
	if (!perf_file_event(core, h)) {
		struct shim_file *f = &sess->files[h];

		shim_log("file %d released (perf_release)", h);
		if (f->owner == getpid() && f->wfd >= 0)
			TSYS1(SYS_close, f->wfd);
		memset(f, 0, sizeof(*f));
		f->wfd = -1;
	}
}

/* ---- tasks ---- */

/* Credentials of a native task from /proc (uid, CAP_PERFMON/SYS_ADMIN).
 * Raw open/read, no stdio: this runs in the SIGSYS handler. */
static int task_cred(pid_t tid, pid_t *tgid, pid_t *ppid, struct perf_cred *cred)
{
	char path[64], text[4096], *line, *save;
	int found = 0;
	long fd, n;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = TSYS3(SYS_open, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return -ESRCH;
	n = TSYS3(SYS_read, fd, text, sizeof(text) - 1);
	TSYS1(SYS_close, fd);
	if (n <= 0)
		return -ESRCH;
	text[n] = 0;
	*tgid = tid;
	cred->uid = 0;
	cred->cap_perfmon = false;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long caps;
		unsigned ruid, euid;

		if (sscanf(line, "Tgid: %d", tgid) == 1)
			found++;
		else if (sscanf(line, "PPid: %d", ppid) == 1)
			;
		else if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2)
			cred->uid = euid;
		else if (sscanf(line, "CapEff: %llx", &caps) == 1)
			/* CAP_SYS_ADMIN (21) or CAP_PERFMON (38): perfmon_capable() */
			cred->cap_perfmon = (caps >> 21 & 1) || (caps >> 38 & 1);
	}
	return found ? 0 : -ESRCH;
}

/* The core's task for a native tid, created on first sight. */
static struct perf_task *native_task(pid_t tid)
{
	struct perf_task *t = perf_task_find(core, tid);
	struct perf_cred cred;
	pid_t tgid, ppid = 0;

	if (t)
		return t;
	if (task_cred(tid, &tgid, &ppid, &cred))
		return NULL;
	t = perf_task_create(core, tgid, tid, cred);
	if (t)
		perf_task_set_parent(core, t, ppid); /* FORK/EXIT records name it */
	return t;
}

static pid_t my_tid(void)
{
	return (pid_t)TSYS0(SYS_gettid);
}

/* Whether the core has files attached to tid (it will run emulated). */
static bool task_monitored(pid_t tid)
{
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++)
		if (sess->files[h].ino && sess->files[h].target == tid)
			return true;
	return false;
}

/* Whether pid holds CPU-wide core events: its children's programs run on
 * the simulated CPUs (perf stat -a / perf record -a -- WORKLOAD). */
static bool owns_cpu_wide(pid_t pid)
{
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++)
		if (sess->files[h].ino && sess->files[h].target == 0 && sess->files[h].owner == pid)
			return true;
	return false;
}

/* ---- perf_event_open ---- */

static bool core_type(uint32_t type)
{
	return type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE ||
	       type == PERF_TYPE_RAW || (model && type == model->pmu_type) ||
	       perf_core_is_side_type(core, type);
}

/* The fd of a new perf file h (host op make_fd, ctx: the target tid):
 * the read end of a pipe in the windows, the session's file; returns the
 * fd or -errno. */
static long make_fd(void *ctx, int h, unsigned long flags, uint64_t *tag)
{
	struct shim_file *f = &sess->files[h];
	pid_t target = *(pid_t *)ctx;
	struct stat st;
	int p[2];
	long fd;

	if (TSYS2(SYS_pipe2, p, O_CLOEXEC) < 0)
		return -EMFILE;
	fd = place_fd(p[0], SHIM_FD_BASE, flags & PERF_FLAG_FD_CLOEXEC);
	TSYS1(SYS_close, p[0]);
	if (fd < 0) {
		TSYS1(SYS_close, p[1]);
		return fd;
	}
	/* the write end never blocks a waker (session.c writes one byte) */
	TSYS3(SYS_fcntl, p[1], F_SETFL, O_NONBLOCK);
	TSYS2(SYS_fstat, fd, &st);
	f->owner = getpid();
	f->owner_fd = (int)fd;
	f->target = target;
	f->wfd = p[1];
	f->holder = getpid();
	f->adopted = false;
	f->async = false;
	f->on_opener = false;
	f->counts_opener = false;
	f->sig_pid = 0;
	f->sig_tgid = 0;
	f->sig = 0;
	f->sig_fd = (int)fd;
	f->sigq_head = f->sigq_tail = f->sigq_lost = 0;
	__atomic_store_n(&f->ino, (uint64_t)st.st_ino, __ATOMIC_RELEASE);
	*tag = (uint64_t)st.st_ino;
	/* this process holds perf fds now: its poll() answers as perf_poll */
	if (!tramp_poll_filter_present()) {
		int err = tramp_poll_filter_install();

		shim_log("poll filter: %s", err ? strerror(-err) : "installed");
	}
	return fd;
}

static bool counts_self(pid_t pid, unsigned long flags);

/* Whether fd is a perf event of the host's (one this process installed,
 * or one outside the windows: an anon inode "[perf_event]"). */
static bool host_perf_fd(long fd)
{
	char path[48], link[32];
	long n;

	if (host_event_is(fd))
		return true;
	snprintf(path, sizeof(path), "/proc/self/fd/%ld", fd);
	n = TSYS3(SYS_readlink, path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = 0;
	return strcmp(link, "anon_inode:[perf_event]") == 0;
}

/* The attr's bytes at uattr as perf_copy_attr() takes them (size 0 is
 * VER0), unchecked; -EFAULT or -E2BIG where it would fail. */
static int attr_peek(uint64_t uattr, struct perf_event_attr *ka)
{
	uint32_t size;

	memset(ka, 0, sizeof(*ka));
	if (shim_copy_from(&size, uattr + offsetof(struct perf_event_attr, size), sizeof(size)))
		return -EFAULT;
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > SHIM_PAGE)
		return -E2BIG;
	return shim_copy_from(ka, uattr, size < sizeof(*ka) ? size : sizeof(*ka));
}

static long sys_perf_event_open(long *a)
{
	struct perf_event_attr ka, *attr = &ka;
	pid_t pid = (pid_t)a[1];
	int cpu = (int)a[2], group_fd = (int)a[3], gh = -1;
	unsigned long flags = (unsigned long)a[4];
	struct perf_task *cur, *target = NULL;
	pid_t target_tid;
	bool to_core;
	long h, fd;

	if (group_fd != -1)
		gh = fd_handle(group_fd);
	/* where it goes depends on the attr; one that cannot be read
	 * (EFAULT, E2BIG) is the core's to report: the kernel's
	 * perf_copy_attr() comes before anything that looks at it */
	if (attr_peek((uint64_t)a[0], &ka) < 0) {
		to_core = true;
	} else {
		if (group_fd != -1 && gh < 0 && core_type(attr->type)) {
			/* a host perf leader cannot hold a simulated event */
			if (host_perf_fd(group_fd))
				return -EINVAL;
			/* no perf file: the core's EBADF, after the attr's
			 * checks, as perf_event_open() makes them first */
			gh = PERF_CORE_MAX_FILES;
		}
		/* the core serves: the model's PMU; anything joining a core
		 * group; software events on the simulated CPUs (pid -1:
		 * CPU-wide, side band) and on tasks that will run emulated
		 * (monitored by the core, or named with enable_on_exec: perf's
		 * forked workload before its exec) */
		to_core = core_type(attr->type) || gh >= 0 ||
			  (attr->type == PERF_TYPE_SOFTWARE && !(flags & PERF_FLAG_PID_CGROUP) &&
			   (pid == -1 || (pid > 0 && (attr->enable_on_exec || task_monitored(pid))))) ||
			  /* tracepoints of tasks that will run emulated: the
			   * core's catalogue has the host's ids */
			  (attr->type == PERF_TYPE_TRACEPOINT && !(flags & PERF_FLAG_PID_CGROUP) &&
			   pid > 0 && (attr->enable_on_exec || task_monitored(pid)));
	}
	if (!to_core) {
		long r = TSYS6(SYS_perf_event_open, a[0], a[1], a[2], a[3], a[4], 0);

		r = host_event_install(r, attr, pid, cpu, flags);
		shim_log("perf_event_open(type %u, config %#llx, pid %d, cpu %d) -> host: %ld",
			 attr->type, (unsigned long long)attr->config, pid, cpu, r);
		return r;
	}
	cur = native_task(my_tid());
	if (!cur)
		return -ENOMEM;
	if (pid > 0 && !(flags & PERF_FLAG_PID_CGROUP)) {
		target = native_task(pid);
		if (!target)
			return -ESRCH;
	}
	h = perf_sys_event_open(core, cur, &shim_uaccess, (uint64_t)a[0], pid, cpu, gh, flags);
	shim_log("perf_event_open(type %u, config %#llx, pid %d, cpu %d, group %d) -> core: %ld",
		 attr->type, (unsigned long long)attr->config, pid, cpu, gh, h);
	if (h < 0)
		return h;
	target_tid = pid > 0 ? pid : pid == 0 ? my_tid() : 0;
	fd = perf_fd_install(&PF, &target_tid, (int)h, flags);
	if (fd >= 0) {
		sess->files[h].on_opener = counts_self(pid, flags);
		sess->files[h].counts_opener = sess->files[h].on_opener && core_type(attr->type);
	}
	return fd;
}

/* Whether an event on pid counts the calling process itself. */
static bool counts_self(pid_t pid, unsigned long flags)
{
	struct perf_cred cred;
	pid_t tgid, ppid;

	if (pid == 0 || pid == getpid())
		return true;
	if (pid < 0 || (flags & PERF_FLAG_PID_CGROUP))
		return false;
	return task_cred(pid, &tgid, &ppid, &cred) == 0 && tgid == getpid();
}

/*
 * A native process that counts its own code with the core's hardware
 * events reads 0: the core only sees what runs on the simulated CPUs
 * (emulated tasks). Said once per process, on stderr, when such an event
 * is first put to use (read, enable): opening it, or mapping its user
 * page, is how perf and PAPI probe what the PMU supports. A process that also counts
 * other tasks or CPUs (perf stat --per-thread -a lists itself among all
 * threads) is a profiler of others and is not told.
 */
static bool self_count_told;

static void tell_native_self_count(int h)
{
	char comm[64] = "?", line[256];
	pid_t me = getpid();
	long fd, n;

	if (self_count_told || !sess->files[h].counts_opener)
		return;
	self_count_told = true;
	for (int k = 0; k < PERF_CORE_MAX_FILES; k++)
		if (sess->files[k].ino && sess->files[k].owner == me && !sess->files[k].on_opener)
			return;
	fd = TSYS3(SYS_open, "/proc/self/comm", O_RDONLY | O_CLOEXEC, 0);
	if (fd >= 0) {
		n = TSYS3(SYS_read, fd, comm, sizeof(comm) - 1);
		TSYS1(SYS_close, fd);
		comm[n > 0 ? n : 0] = 0;
		comm[strcspn(comm, "\n")] = 0;
	}
	n = snprintf(line, sizeof(line),
		     "pmusim: %s[%d] counts its own native code, which pmusim does not model; "
		     "run it under 'pmusim exec' to count it on the modelled CPU\n",
		     comm, (int)me);
	TSYS3(SYS_write, 2, line, n < (long)sizeof(line) ? n : (long)sizeof(line) - 1);
	shim_log("%s[%d] counts its own native code with file %d", comm, (int)me, h);
}

/* ---- syscalls on perf fds ---- */

static long sys_epoll_ctl(int h, long *a);     /* with epoll, below */

/* SET_OUTPUT to a host event's fd: its stand-in's ring in the core
 * (EINVAL: a ring the core cannot share); -1: not a host event. */
static int output_handle(void *ctx, long fd)
{
	struct perf_task *cur = ctx;
	int oh;

	if (!host_event_is(fd))
		return -1;
	oh = cur ? host_event_stand_in(core, cur, fd) : -ENOMEM;
	return oh < 0 ? -EINVAL : oh;
}

static long sys_ioctl(int h, long *a)
{
	struct perf_task *cur = native_task(my_tid());
	long r = perf_fd_ioctl(&PF, cur, cur, &shim_uaccess, h, a, output_handle);

	shim_log("ioctl(fd %ld = file %d, %#x, %#lx) -> %ld", a[0], h, (unsigned)a[1], a[2], r);
	return r;
}

static long sys_fcntl(int h, long *a)
{
	int cmd = (int)a[1];
	long r;

	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		/* f_dupfd(): an arg at or above the soft limit is EINVAL */
		if ((unsigned long)a[2] >= (unsigned long)fd_soft_limit())
			return -EINVAL;
		/* in the windows the filter watches (dup_fd) */
		return perf_fd_fcntl(&PF, NULL, h, a);
	case F_SETOWN:
		/* f_setown(): the pipe checks the pid (ESRCH) as the kernel does */
		r = TSYS3(SYS_fcntl, a[0], cmd, a[2]);
		if (r == 0) {
			sess->files[h].sig_pid = (pid_t)a[2];
			sess->files[h].sig_tid = false;
			sess->files[h].sig_tgid = (pid_t)a[2];
			sess->files[h].sig_fd = (int)a[0];
		}
		return r;
	case F_SETOWN_EX: {
		struct f_owner_ex owner, *ox = &owner;

		/* f_setown_ex(): copy_from_user, EFAULT */
		if (shim_copy_from(&owner, (uint64_t)a[2], sizeof(owner)))
			return -EFAULT;
		r = TSYS3(SYS_fcntl, a[0], cmd, &owner);
		if (r == 0) {
			struct shim_file *f = &sess->files[h];
			pid_t tgid = ox->pid, ppid;
			struct perf_cred cred;

			/* a thread owner's signal is raised in that thread: its
			 * process is the one to poke (session.c) */
			if (ox->type == F_OWNER_TID && ox->pid > 0 &&
			    task_cred(ox->pid, &tgid, &ppid, &cred))
				tgid = ox->pid;
			f->sig_tgid = tgid;
			f->sig_pid = ox->type == F_OWNER_PGRP ? -ox->pid : ox->pid;
			f->sig_tid = ox->type == F_OWNER_TID;
			f->sig_fd = (int)a[0];
		}
		return r;
	}
	case F_SETSIG:
		r = TSYS3(SYS_fcntl, a[0], cmd, a[2]);
		if (r == 0)
			sess->files[h].sig = (int)a[2];
		return r;
	default:
		/* F_SETFL's O_ASYNC (perf_fasync) lives in the core and the
		 * session, never on the pipe */
		return perf_fd_fcntl(&PF, NULL, h, a);
	}
}

/*
 * This process's ring mappings (PF.rings, sim/perf_file/rings.c) are
 * placed in the ring region, so the filter traps their munmap. A process
 * that forks does not pass them on (VM_DONTCOPY: MADV_DONTFORK here, the
 * child's table is emptied); an exec drops them with the table.
 *
 * Host op map_ring: len bytes of memfd at off somewhere free in the ring
 * region (pf->ring_lock held), tracked; a MAP_FIXED caller chose its
 * address, and a full region or table maps anywhere: those mappings are
 * untracked (their munmap is not seen; the file's release ends the ring).
 */
static long map_ring(void *ctx, struct perf_files *pf, const long a[6], int memfd, int64_t off,
		     bool *tracked)
{
	uintptr_t cand = PMUSIM_RING_ADDR, end = PMUSIM_RING_ADDR + PMUSIM_RING_SIZE;
	size_t len = ((size_t)a[1] + SHIM_PAGE - 1) & ~(SHIM_PAGE - 1);

	(void)ctx;
	while (*tracked && !(a[3] & MAP_FIXED) && cand + len <= end) {
		bool moved = false;
		long p;

		for (int i = 0; i < RING_MAPS; i++) {
			struct perf_ring_map *m = &pf->rings[i];

			if (m->addr && cand < m->addr + m->len && m->addr < cand + len) {
				cand = m->addr + m->len;
				moved = true;
			}
		}
		if (moved)
			continue;
		p = TSYS6(SYS_mmap, cand, len, a[2], MAP_SHARED | MAP_FIXED_NOREPLACE, memfd, off);
		if (p == -EEXIST) {     /* someone else's mapping: step past a page */
			cand += SHIM_PAGE;
			continue;
		}
		if (p < 0 || (uintptr_t)p != cand) {
			if (p >= 0)
				TSYS2(SYS_munmap, p, len);
			break;
		}
		TSYS3(SYS_madvise, cand, len, MADV_DONTFORK); /* VM_DONTCOPY */
		return (long)cand;
	}
	*tracked = false;
	return TSYS6(SYS_mmap, a[0], a[1], a[2], (a[3] & ~MAP_PRIVATE) | MAP_SHARED, memfd, off);
}

/* mmap of the ring: the core places it in the arena; the arena's memfd
 * is mapped here so data_head/data_tail are the writers' own. */
static long sys_mmap(int h, long *a)
{
	long p = perf_fd_mmap(&PF, NULL, native_task(my_tid()), h, a);

	shim_log("mmap(fd %ld = file %d, %ld bytes) -> %#lx (arena offset %#llx)", a[4], h, a[1], p,
		 (unsigned long long)perf_sys_mmap_offset(core, h));
	return p;
}

static long fd_syscall(long nr, int h, long *a)
{
	long r;

	if (nr == SYS_read || nr == SYS_readv || nr == SYS_preadv2 ||
	    (nr == SYS_ioctl && ((unsigned)a[1] == PERF_EVENT_IOC_ENABLE ||
				 (unsigned)a[1] == PERF_EVENT_IOC_REFRESH)))
		tell_native_self_count(h);
	r = perf_fd_no_op(nr, a);
	if (r)
		return r;
	switch (nr) {
	case SYS_read:
		return perf_fd_read(&PF, NULL, h, (uint64_t)a[1], (size_t)a[2]);
	case SYS_readv:
	case SYS_preadv2:       /* at position -1 (perf_fd_no_op) */
		return perf_fd_readv(&PF, NULL, h, (uint64_t)a[1], a[2]);
	case SYS_ioctl:
		return sys_ioctl(h, a);
	case SYS_fcntl:
		return sys_fcntl(h, a);
	case SYS_close:
		return perf_fd_close(&PF, NULL, a[0]);
	case SYS_dup:
		return perf_fd_dup(&PF, NULL, a[0], h, SHIM_FD_BASE, false);
	case SYS_mmap:
		return sys_mmap(h, a);
	case SYS_epoll_ctl:
		return sys_epoll_ctl(h, a);
	}
	return -ENOSYS;
}

/* dup2/dup3: the old fd and/or the target may be perf files. */
static long sys_dup23(long nr, long *a)
{
	int oh = fd_handle(a[0]), nh = a[0] == a[1] ? -1 : fd_handle(a[1]);
	long r;

	r = nr == SYS_dup2 ? TSYS2(SYS_dup2, a[0], a[1]) : TSYS3(SYS_dup3, a[0], a[1], a[2]);
	if (r < 0 || a[0] == a[1])
		return r;
	host_event_forget(core, a[1]);  /* a host event closed by the dup */
	if (oh >= 0 && !in_range(a[1]))
		shim_log("dup2 of a perf fd to %ld, outside the perf range: not intercepted", a[1]);
	return perf_fd_dup2_done(&PF, NULL, r, a, oh, nh);
}

/* close_range(): the perf files among the closed fds drop their
 * references; the session's arena fd stays open (the range is closed in
 * the pieces around it), as if it had been closed. */
/* The host's close_range(first, last, flags), in the pieces around the
 * session's arena fd, which stays open. */
static long close_range_keeping_arena(unsigned first, unsigned last, long flags)
{
	unsigned keep = (unsigned)arena_fd;
	long r;

	if (arena_fd < 0 || keep < first || keep > last)
		return TSYS3(SYS_close_range, first, last, flags);
	r = keep > first ? TSYS3(SYS_close_range, first, keep - 1, flags) : 0;
	if (r == 0 && keep < last)
		r = TSYS3(SYS_close_range, keep + 1, last, flags);
	return r;
}

static long sys_close_range(long *a)
{
	unsigned first = (unsigned)a[0], last = (unsigned)a[1];
	int handles[FD_SLOTS];
	long r;

	if (first > last)
		return -EINVAL;
	perf_fd_snapshot(&PF, NULL, first, last, handles);
	r = close_range_keeping_arena(first, last, a[2]);
	if (r == 0 && !(a[2] & CLOSE_RANGE_CLOEXEC))
		for (unsigned i = 0; i < FD_SLOTS; i++) {
			long fd = slot_fd(i);

			if (fd >= first && fd <= last)
				host_event_forget(core, (int)fd);
		}
	perf_fd_close_range_done(&PF, NULL, r, a, handles);
	return r;
}

/*
 * The session arena's fd: a program that closes every fd it did not open
 * (close, close_range, closefrom, a /proc/self/fd sweep) or marks them
 * close-on-exec must not take it from its children, which join the
 * session through it. close and FD_CLOEXEC are answered as done and not
 * done; a dup2 onto it moves it first. Returns true with *r set when
 * the call was the arena fd's.
 */
static bool arena_fd_syscall(long nr, long *a, long *r)
{
	if (arena_fd < 0)
		return false;
	if ((nr == SYS_dup2 || nr == SYS_dup3) && a[1] == arena_fd && a[0] != a[1]) {
		int moved = shim_fd_place(arena_fd, 0, true, false);

		if (moved < 0)
			return false;   /* no room: the dup2 takes it */
		shim_log("arena fd %d moved to %d (dup2 onto it)", arena_fd, moved);
		arena_fd = moved;
		snprintf(env_arena, sizeof(env_arena), PMUSIM_ENV_ARENA "=%d", moved);
		return false;           /* the dup2 itself goes on */
	}
	if (a[0] != arena_fd)
		return false;
	switch (nr) {
	case SYS_close:
		*r = 0;
		return true;
	case SYS_fcntl:
		if ((int)a[1] != F_SETFD)
			return false;
		*r = 0;
		return true;
	case SYS_ioctl:
		if ((unsigned)a[1] != FIOCLEX)
			return false;
		*r = 0;
		return true;
	}
	return false;
}

/* ---- execve ---- */

/* The session's environment as this process got it ("NAME=value"). */
static char env_shim[PATH_MAX];                 /* the library's path */
static char env_session[64], env_exe[PATH_MAX + 16];
static char env_asan[256];      /* an ASan pmusim's tolerance of the shim (cmd_run.c) */

#define MAX_ENV 4096

static bool env_is(const char *e, const char *name)
{
	size_t n = strlen(name);

	return strncmp(e, name, n) == 0 && e[n] == '=';
}

/*
 * The session's environment sticks to the tree: a program that clears its
 * environment (env -i, a CI runner) would otherwise exec images without
 * the shim, which the inherited filter kills at their first trapped
 * syscall. Copies envp into out (slots entries) with LD_PRELOAD leading
 * with the shim (after the ASan runtime of a sanitized one) and the PMUSIM_* variables restored; returns out, or envp
 * when it cannot.
 */
static char **sticky_env(char **envp, char **out, size_t slots, char *preload, size_t plen)
{
	bool had_preload = false, had_asan = false;
	size_t n = 0;

	if (!env_shim[0] || !env_arena[0])
		return envp;
	for (char **e = envp; e && *e; e++) {
		if (n + 6 > slots)
			return envp;
		if (env_is(*e, PMUSIM_ENV_ARENA) || env_is(*e, PMUSIM_ENV_SESSION) ||
		    env_is(*e, PMUSIM_ENV_EXE))
			continue;
		if (env_is(*e, "ASAN_OPTIONS"))
			had_asan = true;
		if (env_is(*e, "LD_PRELOAD")) {
			had_preload = true;
			if (!strstr(*e, "libpmusim_shim")) {
				const char *v = *e + strlen("LD_PRELOAD=");

				snprintf(preload, plen, "LD_PRELOAD=%s%s%s", env_shim, *v ? ":" : "", v);
				out[n++] = preload;
				continue;
			}
		}
		out[n++] = *e;
	}
	if (!had_preload) {
		snprintf(preload, plen, "LD_PRELOAD=%s", env_shim);
		out[n++] = preload;
	}
	if (!had_asan && env_asan[0])
		out[n++] = env_asan;
	out[n++] = env_arena;
	out[n++] = env_session;
	if (env_exe[0])
		out[n++] = env_exe;
	out[n] = NULL;
	return out;
}

static void env_capture(void)
{
	const char *v;
	Dl_info di;

	if (dladdr((void *)env_capture, &di) && di.dli_fname && di.dli_fname[0] == '/')
		snprintf(env_shim, sizeof(env_shim), "%s%s%s", shim_asan_runtime(),
			 *shim_asan_runtime() ? ":" : "", di.dli_fname);
	if ((v = getenv(PMUSIM_ENV_ARENA)))
		snprintf(env_arena, sizeof(env_arena), PMUSIM_ENV_ARENA "=%s", v);
	if ((v = getenv(PMUSIM_ENV_SESSION)))
		snprintf(env_session, sizeof(env_session), PMUSIM_ENV_SESSION "=%s", v);
	if ((v = getenv(PMUSIM_ENV_EXE)))
		snprintf(env_exe, sizeof(env_exe), PMUSIM_ENV_EXE "=%s", v);
	if ((v = getenv("ASAN_OPTIONS")) && strstr(v, "verify_asan_link_order=0"))
		snprintf(env_asan, sizeof(env_asan), "ASAN_OPTIONS=%s", v);
}

static long host_syscall(long nr, long *a);

/*
 * execve(2)/execveat(2) from the SIGSYS handler, a[env_at] the caller's
 * envp: with the session's environment kept (sticky_env), under the
 * interrupted context's mask, which the new image inherits (the handler's
 * own mask blocks almost every signal: a program started under it could
 * not be interrupted). The frame is sized to the environment: glibc's
 * posix_spawn child (system(), popen()) runs on a stack of about 36 KiB.
 */
static long exec_keeping_env(long nr, const long *a, int env_at)
{
	char **envp = (char **)a[env_at];
	size_t count = 0, plen = strlen(env_shim) + sizeof("LD_PRELOAD=:");
	long b[6];

	memcpy(b, a, sizeof(b));
	/* vectors execve cannot read: the host's EFAULT (argv precedes
	 * envp, at env_at - 1 for execve and execveat alike) */
	if (!shim_strv_readable((uint64_t)a[env_at - 1]) || !shim_strv_readable((uint64_t)envp))
		return host_syscall(nr, b);

	for (char **e = envp; e && *e && count < MAX_ENV; e++, count++)
		if (env_is(*e, "LD_PRELOAD"))
			plen += strlen(*e);
	char *nenv[count + 7], preload[plen];

	b[env_at] = (long)sticky_env(envp, nenv, count + 7, preload, plen);
	return host_syscall(nr, b);
}

/* A monitored task's execve: the program again, in the same pid, under
 * the emulator attached to this session's core. Returns only if that
 * fails (the caller then runs it natively). Not inlined: its frame is
 * only paid by monitored tasks. */
static __attribute__((noinline)) long reexec_emulated(const char *path, char **argv, long envp)
{
	char fdbuf[16], real[PATH_MAX];
	int n = 0, argc = 0;
	pid_t tid = my_tid();

	/* /proc/self/... names this process: after the re-exec it would
	 * name pmusim */
	if (strncmp(path, "/proc/", 6) == 0 && realpath(path, real))
		path = real;
	while (argv && argv[argc])
		argc++;
	if (argc + 10 >= 1024)
		return -E2BIG;
	char *nargv[argc + 10];
	int adopted = shim_session_adopt(tid);

	snprintf(fdbuf, sizeof(fdbuf), "%d", arena_fd);
	nargv[n++] = sess->exe;
	nargv[n++] = (char *)"exec";
	nargv[n++] = (char *)"--attach-arena";
	nargv[n++] = fdbuf;
	nargv[n++] = (char *)"--argv0";
	nargv[n++] = argc ? argv[0] : (char *)path;
	nargv[n++] = (char *)"--";
	nargv[n++] = (char *)path;
	for (int i = 1; i < argc; i++)
		nargv[n++] = argv[i];
	nargv[n] = NULL;
	shim_log("execve(%s): task %d runs emulated (took %d write ends)", path, (int)tid, adopted);

	long b[6] = { (long)sess->exe, (long)nargv, envp, 0, 0, 0 };
	long r = exec_keeping_env(SYS_execve, b, 2);

	shim_log("re-exec under %s failed: %ld", sess->exe, r);
	return r;
}

/* Whether PATH is an ELF the emulator runs for a guest architecture other
 * than the host's (AArch64 on this x86-64 shim): its e_machine, read
 * through the trampoline, never faulting. */
static bool foreign_guest_elf(const char *path)
{
	Elf64_Ehdr eh;
	long fd = TSYS3(SYS_open, path, O_RDONLY | O_CLOEXEC, 0);
	long n;

	if (fd < 0)
		return false;
	n = TSYS4(SYS_pread64, fd, &eh, sizeof(eh), 0);
	TSYS1(SYS_close, fd);
	return n == (long)sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
	       eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == EM_AARCH64;
}

/* execve of a monitored task: re-exec the program in the same pid under
 * the emulator attached to this session's core. Any other execve runs
 * natively, with the session's environment kept. */
static long sys_execve(long *a)
{
	const char *path = (const char *)a[0];

	/* a task with events runs emulated, to be counted; so does a child of
	 * a process counting the simulated CPUs system-wide */
	if (core && sess->exe[0] && (task_monitored(my_tid()) || owns_cpu_wide(getppid())) &&
	    shim_strv_readable((uint64_t)a[1])) {
		struct stat st;

		/* what execve would fail with, it fails with here (execvp goes
		 * on along PATH after ENOENT/EACCES) */
		long e = TSYS2(SYS_stat, path, &st);

		if (e < 0)
			return e;
		if (!S_ISREG(st.st_mode))
			return -EACCES;  /* do_open_execat(): not a regular file */
		e = TSYS2(SYS_access, path, X_OK);
		if (e < 0)
			return e;
		reexec_emulated(path, (char **)a[1], a[2]);
	}
	long r = exec_keeping_env(SYS_execve, a, 2);

	/* a program of a guest architecture the host cannot run (no
	 * binfmt_misc handler: ENOEXEC) runs emulated, counted or not, as
	 * binfmt_misc would hand it to qemu-user (search_binary_handler()) */
	if (r == -ENOEXEC && core && sess->exe[0] && shim_strv_readable((uint64_t)a[1]) &&
	    foreign_guest_elf(path))
		r = reexec_emulated(path, (char **)a[1], a[2]);
	return r;
}

/* ---- the SIGSYS handler ---- */

/* The monitored task took its write end: drop ours (POLLHUP at its exit). */
static void drop_adopted_write_ends(void)
{
	pid_t me = getpid();

	for (int h = 0; h < PERF_CORE_MAX_FILES; h++) {
		struct shim_file *f = &sess->files[h];

		if (f->ino && f->owner == me && f->adopted && f->wfd >= 0) {
			TSYS1(SYS_close, f->wfd);
			f->wfd = -1;
		}
	}
}

/* Whether path names the pmusim binary (PMUSIM_EXE, or /proc/self/exe
 * inside pmusim). */
static bool is_pmusim(const char *path)
{
	char real[PATH_MAX];
	const char *exe = env_exe[0] ? env_exe + strlen(PMUSIM_ENV_EXE "=") : NULL;

	if (!exe)
		return false;
	if (strcmp(path, exe) == 0)
		return true;
	return realpath(path, real) && strcmp(real, exe) == 0;
}

/* ---- poll ---- */

#define POLL_MAX 1024


/* Empties a perf file's pipe: its bytes only say "a wakeup happened". */
static void drain(int fd)
{
	char buf[256];
	int n = 0;

	while (TSYS3(SYS_ioctl, fd, FIONREAD, &n) == 0 && n > 0)
		if (TSYS3(SYS_read, fd, buf, n < (int)sizeof(buf) ? n : (int)sizeof(buf)) <= 0)
			break;
}

/*
 * perf_poll() of the perf file h at fd, for poll, select and epoll alike
 * (a POLLHUP from the end of a child process waits for its host exit):
 * consumes the ring's poll state and leaves the pipe saying whether there
 * is more to say: empty, or one byte for an EPOLLHUP or EPOLLERR that
 * lasts (no ring, task exited, a pinned event in error), which keeps
 * epoll's level. pipe_revents is the pipe's own
 * poll answer; its POLLHUP (the monitored task's write ends are gone) is
 * added. Returns the mask.
 */
static unsigned file_poll(int fd, int h, short pipe_revents)
{
	unsigned ev = perf_sys_poll(core, h);   /* perf_poll() */
	pid_t pid;

	if ((ev & POLLHUP) && (pid = perf_file_exit_pid(core, h)) > 0) {
		/* the end of a child process: as the emulator's
		 * guest_perf_poll(), wait until the host has made it a zombie
		 * (WNOWAIT: not reaped), so that its SIGCHLD is queued when
		 * the POLLHUP is seen, as exit_notify() follows
		 * perf_event_exit_task() in do_exit(); ECHILD at once for a
		 * process that is not the caller's child */
		siginfo_t si;

		TSYS6(SYS_waitid, P_PID, pid, (long)&si, WEXITED | WNOWAIT | __WALL, 0, 0);
	}
	if (pipe_revents & POLLHUP)
		return ev | POLLHUP;    /* the monitored task is gone */
	if (ev & (POLLHUP | POLLERR)) {
		/* no ring / exited / a pinned event in error: states, not
		 * events; the file stays ready, its byte stays */
		if (!(pipe_revents & POLLIN))
			shim_session_wakeup(NULL, h);
		return ev;
	}
	/* drained before the second look, so a wakeup racing with this
	 * leaves either its byte or its poll state, never neither */
	drain(fd);
	return ev | perf_sys_poll(core, h);
}

/* The same, asking the pipe first (epoll's path). */
static unsigned ep_perf_poll(int fd, int h)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec zero = { 0, 0 };

	TSYS6(SYS_ppoll, &p, 1, &zero, NULL, 8, 0);
	return file_poll(fd, h, p.revents);
}

/*
 * poll/ppoll over a set with perf fds: each perf fd answers what
 * perf_poll() returns (EPOLLHUP for an event without a ring, its ring's
 * consumed poll state otherwise, EPOLLHUP once the monitored task is gone:
 * the pipe's last writer closed); other fds answer as the host says. The
 * wait itself is the host's ppoll on the pipes, under the mask of the
 * interrupted context (or ppoll's own), so signals end it with EINTR.
 */
/* Host events' records so far into the core rings they feed. */
static void drain_host_feeds(void)
{
	if (core && host_events_feeding())
		host_events_drain(core);
}

/* The host's ppoll of fds for a poll's blocking round, with extra
 * (-1: none) last; host events that feed core rings wait with them (their
 * wakeups end the round, whose next turn copies their records). Returns
 * ppoll's value; *extra_rev gets extra's revents. */
static long wait_with_host_feeds(struct pollfd *fds, unsigned long n, struct timespec *tsp,
				 const uint64_t *mask, int extra, short *extra_rev)
{
	enum { FEEDS = 16 };
	static __thread struct pollfd all[SHIM_FD_END + FEEDS + 1];
	unsigned long k = 0;
	long r;

	*extra_rev = 0;
	if (!host_events_feeding() && extra < 0)
		return TSYS6(SYS_ppoll, fds, n, tsp, mask, 8, 0);
	if (n > SHIM_FD_END)
		return TSYS6(SYS_ppoll, fds, n, tsp, mask, 8, 0);
	memcpy(all, fds, n * sizeof(*fds));
	if (host_events_feeding())
		k = (unsigned long)host_events_poll_fds(all + n, FEEDS);
	if (extra >= 0)
		all[n + k++] = (struct pollfd){ .fd = extra, .events = POLLIN };
	r = TSYS6(SYS_ppoll, all, n + k, tsp, mask, 8, 0);
	memcpy(fds, all, n * sizeof(*fds));
	if (extra >= 0)
		*extra_rev = all[n + k - 1].revents;
	return r;
}

/*
 * The session's poke (a SIGSYS, SI_QUEUE with the session's magic: a
 * monitored task took its write ends, or fasync signals wait) must not end
 * a wait of the program's early: the kernel's poll would have gone on
 * (perf trace, which takes a poll that ends without an event for its end,
 * printed nothing when the poke of its workload's exec came during its
 * poll). So a poll's wait runs with SIGSYS blocked and a signalfd of
 * SIGSYS among its fds; a poke read there is handled as the handler
 * would (write ends dropped, queued fasync signals raised) and the wait
 * goes on, unless a signal of the program's was raised: then it ends with
 * EINTR, as natively. A SIGSYS that is not the session's (the program's
 * own) is queued back to the thread, which takes it as before.
 */
static int poke_fd = -1;
static uint64_t poke_ino;

/* This process's signalfd of SIGSYS, at the top of the perf fd windows
 * (made again if the program closed it). */
static int poke_fd_get(void)
{
	uint64_t m = 1ull << (SIGSYS - 1);
	struct stat st;
	long fd;
	int moved;

	if (poke_fd >= 0 && TSYS2(SYS_fstat, poke_fd, &st) == 0 && (uint64_t)st.st_ino == poke_ino &&
	    !S_ISFIFO(st.st_mode))
		return poke_fd;
	fd = TSYS4(SYS_signalfd4, -1, &m, 8, O_NONBLOCK | O_CLOEXEC);   /* SFD_NONBLOCK | SFD_CLOEXEC */
	if (fd < 0)
		return -1;
	moved = shim_fd_place((int)fd, 0, true, true);
	TSYS1(SYS_close, fd);
	if (moved < 0 || TSYS2(SYS_fstat, moved, &st) < 0)
		return -1;
	poke_ino = (uint64_t)st.st_ino;
	poke_fd = moved;
	return poke_fd;
}

/* The SIGSYS signals the poke fd holds: the session's pokes are handled
 * here, others queued back. Returns how many signals of the program's
 * this raised. */
static unsigned take_pokes(int fd)
{
	struct { uint32_t signo; int32_t err, code; uint32_t pid, uid; int32_t fdnum;
		 uint32_t tid, band, overrun, trapno; int32_t status, intval;
		 uint64_t ptr, utime, stime, addr; uint8_t pad[48]; } ss[4];  /* signalfd_siginfo */
	unsigned raised = 0;
	bool poked = false;
	long n;

	while ((n = TSYS3(SYS_read, fd, ss, sizeof(ss))) > 0) {
		for (long i = 0; i < n / (long)sizeof(ss[0]); i++) {
			siginfo_t si;

			if (ss[i].code == SI_QUEUE && ss[i].intval == (int32_t)SHIM_SESSION_MAGIC) {
				poked = true;
				continue;
			}
			memset(&si, 0, sizeof(si));
			si.si_signo = SIGSYS;
			si.si_code = ss[i].code;
			si.si_pid = (pid_t)ss[i].pid;
			si.si_uid = ss[i].uid;
			si.si_value.sival_ptr = (void *)(uintptr_t)ss[i].ptr;
			TSYS4(SYS_rt_tgsigqueueinfo, TSYS0(SYS_getpid), TSYS0(SYS_gettid), SIGSYS, &si);
			raised++;
		}
	}
	if (poked) {
		drop_adopted_write_ends();
		raised += shim_session_fasync_deliver();
	}
	return raised;
}

/* Host op poll_wait: the blocking round of a poll (sim/perf_file's
 * perf_fd_poll_fds), ctx the signal mask it runs under (NULL: the
 * thread's); the host events' records that came meanwhile go to their
 * core rings. */
static long poll_wait(void *ctx, struct pollfd *fds, unsigned long n, int64_t timeout_ns)
{
	struct timespec rem, *tsp = NULL;
	int pfd = poke_fd_get();
	uint64_t mask;
	short prev;
	long r;

	if (timeout_ns >= 0) {
		rem.tv_sec = timeout_ns / 1000000000;
		rem.tv_nsec = timeout_ns % 1000000000;
		tsp = &rem;
	}
	if (ctx)
		memcpy(&mask, ctx, sizeof(mask));
	else
		TSYS4(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, 8);
	if (pfd >= 0)
		mask |= 1ull << (SIGSYS - 1);
	r = wait_with_host_feeds(fds, n, tsp, &mask, pfd, &prev);
	if (r > 0 && (prev & POLLIN)) {
		r--;
		if (take_pokes(pfd))
			return -EINTR;  /* a signal of the program's came with it */
	}
	if (r >= 0)
		drain_host_feeds();
	return r;
}

/* poll/ppoll with arrays for a[1] entries (sys_poll). */
static long poll_set(long nr, long *a, struct pollfd *fds, int *hs)
{
	unsigned long n = (unsigned long)a[1];
	const sigset_t *mask = NULL;
	int64_t timeout = -1;
	struct timespec ts;
	uint64_t umask;
	bool any = false;
	long r;

	/* the caller's arrays and arguments are copied first; what cannot
	 * be read is the host's to answer (EFAULT, EINVAL, in its order) */
	if (shim_copy_from(fds, (uint64_t)a[0], n * sizeof(*fds)) ||
	    (nr == SYS_ppoll && a[2] && shim_copy_from(&ts, (uint64_t)a[2], sizeof(ts))) ||
	    (nr == SYS_ppoll && a[3] && (a[4] != 8 || shim_copy_from(&umask, (uint64_t)a[3], 8))))
		return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	for (unsigned long i = 0; i < n; i++) {
		hs[i] = fds[i].fd >= 0 ? fd_handle(fds[i].fd) : -1;
		any |= hs[i] >= 0 || host_event_is(fds[i].fd);
	}
	if (!any)
		return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (nr == SYS_poll) {
		if ((int)a[2] >= 0)
			timeout = (int64_t)(int)a[2] * 1000000;
		mask = cur_uc ? &cur_uc->uc_sigmask : NULL;
	} else {
		if (a[2] && perf_fd_timeout_ns(ts.tv_sec, ts.tv_nsec, false, &timeout))
			return -EINVAL;
		mask = a[3] ? (const sigset_t *)&umask : cur_uc ? &cur_uc->uc_sigmask : NULL;
	}
	r = perf_fd_poll_fds(&PF, (void *)mask, fds, n, hs, timeout);
	/* do_sys_poll(): each revents goes back with unsafe_put_user */
	if (r >= 0 && shim_copy_to((uint64_t)a[0], fds, n * sizeof(*fds)))
		return -EFAULT;
	return r;
}

static long sys_poll(long nr, long *a)
{
	static __thread struct pollfd small_fds[POLL_MAX];
	static __thread int small_hs[POLL_MAX];
	struct pollfd *fds = small_fds;
	int *hs = small_hs;
	unsigned long n = (unsigned long)a[1];
	size_t big = 0;
	long r;

	/* a set longer than POLL_MAX but within RLIMIT_NOFILE (beyond, the
	 * host's EINVAL) gets arrays of its own, mapped for the call */
	if (n > POLL_MAX) {
		struct rlimit rl;
		void *m;

		if (getrlimit(RLIMIT_NOFILE, &rl) || n > rl.rlim_cur)
			return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		big = n * (sizeof(*fds) + sizeof(*hs));
		m = (void *)TSYS6(SYS_mmap, 0, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if ((unsigned long)m > -4096ul)
			return (long)m;
		fds = m;
		hs = (int *)(fds + n);
	}
	r = poll_set(nr, a, fds, hs);
	if (big)
		TSYS6(SYS_munmap, (long)fds, big, 0, 0, 0, 0);
	return r;
}

/*
 * select/pselect6 over a set with perf fds: the same as poll (do_select()
 * reads each file's poll mask: readable on POLLIN_SET = IN|RDNORM|RDBAND|
 * HUP|ERR, writable on POLLOUT_SET, exceptional on POLLEX_SET = PRI); an
 * fd that is not open is EBADF. select updates its timeval with the time
 * left (poll_select_finish), pselect6 its timespec.
 */
static long sys_select(long nr, long *a)
{
	static __thread struct pollfd fds[SHIM_FD_END];
	static __thread int hs[SHIM_FD_END];
	static __thread unsigned long sets[3][SHIM_FD_END / PERF_FD_LONG_BITS];
	int nfds = (int)a[0];
	unsigned long *rs = a[1] ? sets[0] : NULL, *ws = a[2] ? sets[1] : NULL,
		      *es = a[3] ? sets[2] : NULL, *user[3] = { rs, ws, es };
	const sigset_t *mask = cur_uc ? &cur_uc->uc_sigmask : NULL;
	int64_t timeout = -1, start = perf_fd_now_ns();
	struct { uint64_t ss; uint64_t len; } sm = { 0, 0 };
	struct timespec ts;
	struct timeval tv;
	unsigned long n;
	uint64_t umask;
	long r;

	if (nfds < 0)
		return -EINVAL;
	/* the caller's sets and arguments are copied first; what cannot be
	 * read is the host's to answer (EFAULT, EINVAL, in its order) */
	if (nfds > SHIM_FD_END ||
	    (a[4] && nr == SYS_select && shim_copy_from(&tv, (uint64_t)a[4], sizeof(tv))) ||
	    (a[4] && nr == SYS_pselect6 && shim_copy_from(&ts, (uint64_t)a[4], sizeof(ts))) ||
	    (a[5] && nr == SYS_pselect6 && shim_copy_from(&sm, (uint64_t)a[5], sizeof(sm))) ||
	    (sm.ss && (sm.len != 8 || shim_copy_from(&umask, sm.ss, 8))) ||
	    (rs && shim_copy_from(rs, (uint64_t)a[1], PERF_FD_BITS_BYTES(nfds))) ||
	    (ws && shim_copy_from(ws, (uint64_t)a[2], PERF_FD_BITS_BYTES(nfds))) ||
	    (es && shim_copy_from(es, (uint64_t)a[3], PERF_FD_BITS_BYTES(nfds))))
		return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (!perf_fd_select_any(&PF, NULL, nfds, user))
		return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (nr == SYS_select) {
		if (a[4] && perf_fd_timeout_ns(tv.tv_sec, tv.tv_usec, true, &timeout))
			return -EINVAL;
	} else {
		if (a[4] && perf_fd_timeout_ns(ts.tv_sec, ts.tv_nsec, false, &timeout))
			return -EINVAL;
		if (sm.ss)
			mask = (const sigset_t *)&umask;
	}
	n = perf_fd_select_to_poll(&PF, NULL, nfds, user, fds, hs);
	r = perf_fd_poll_fds(&PF, (void *)mask, fds, n, hs, timeout);
	if (r >= 0)
		r = perf_fd_poll_to_select(nfds, user, fds, n);
	if (r < 0)
		return r;
	/* set_fd_set(): the sets go back, EFAULT */
	if ((rs && shim_copy_to((uint64_t)a[1], rs, PERF_FD_BITS_BYTES(nfds))) ||
	    (ws && shim_copy_to((uint64_t)a[2], ws, PERF_FD_BITS_BYTES(nfds))) ||
	    (es && shim_copy_to((uint64_t)a[3], es, PERF_FD_BITS_BYTES(nfds))))
		return -EFAULT;
	perf_fd_select_finish(&PF, NULL, nr, (uint64_t)a[4], timeout, start);
	return r;
}

/*
 * epoll over perf fds. The filter traps epoll_ctl on an fd in the range
 * and, in processes holding perf fds, every epoll_wait/epoll_pwait/
 * epoll_pwait2. A perf fd's pipe is registered with the shim's own data
 * (EP_TAG | fd) and the caller's events and data are kept per (epfd, fd)
 * in the table both syscall layers share (sim/core/perf_epoll.h, kept by
 * sim/perf_file); a wait
 * translates each tagged event into what the kernel's
 * ep_send_events() reports: ep_item_poll() -> perf_poll() (consumed),
 * masked with the caller's events, dropped when empty. The pipe carries
 * the level: a byte while perf_poll would say something (a wakeup's byte;
 * one kept for EPOLLHUP of an event without a ring), none otherwise, and
 * the pipe's own EPOLLHUP once the monitored task is gone.
 */
#define EP_TAG UINT64_C(0x706d7573696d0000)    /* "pmusim" << 16 | fd */
#define EP_TAG_MASK UINT64_C(0xffffffffffff0000)

static long sys_epoll_ctl(int h, long *a)
{
	int epfd = (int)a[0], op = (int)a[1], fd = (int)a[2];
	struct epoll_event caller, *uev = &caller, ev;
	long r;

	if (op == EPOLL_CTL_DEL) {
		r = TSYS4(SYS_epoll_ctl, epfd, op, fd, a[3]);
		if (r == 0)     /* the host's item went: ours too, if any */
			perf_fd_ep_ctl(&PF, NULL, epfd, op, fd, h, NULL);
		return r;
	}
	/* ep_op_has_event(): the event is copied first, EFAULT */
	if (shim_copy_from(&caller, (uint64_t)a[3], sizeof(caller)))
		return -EFAULT;
	if (op != EPOLL_CTL_ADD && op != EPOLL_CTL_MOD)
		return -EINVAL;
	/* the pipe is watched for input; the caller's mask applies at
	 * report time. EPOLLET, EPOLLONESHOT, EPOLLEXCLUSIVE, EPOLLWAKEUP
	 * keep their meaning on the pipe */
	ev.events = EPOLLIN | (uev->events & (EPOLLET | EPOLLONESHOT | EPOLLEXCLUSIVE | EPOLLWAKEUP));
	ev.data.u64 = EP_TAG | (uint64_t)fd;
	r = TSYS4(SYS_epoll_ctl, epfd, op, fd, &ev);
	if (r)
		return r;
	/* ep_insert()/ep_modify() poll the file once (ep_item_poll): a
	 * pending POLLIN is consumed there, as perf_poll()'s xchg does */
	r = perf_fd_ep_ctl(&PF, NULL, epfd, PERF_EP_CTL_SET, fd, h, uev);
	if (r) {
		TSYS4(SYS_epoll_ctl, epfd, EPOLL_CTL_DEL, fd, NULL);
		return r;               /* as ep_insert() past max_user_watches */
	}
	shim_log("epoll_ctl(%d, %s, fd %d = file %d, %#x)", epfd, op == EPOLL_CTL_ADD ? "ADD" : "MOD",
		 fd, h, uev->events);
	return 0;
}

static long sys_epoll_wait(long nr, long *a)
{
	int epfd = (int)a[0], max = (int)a[2];
	struct epoll_event *evs = (struct epoll_event *)a[1];
	uint64_t mask;
	int64_t timeout = -1, deadline = 0;
	bool has_mask;
	int pfd;
	long r;

	drain_host_feeds();
	r = perf_fd_epoll_args(&PF, NULL, nr, a, &timeout, &mask, &has_mask);
	if (r)
		return r;
	/* the wait runs under the interrupted context's mask, or the
	 * caller's (epoll_pwait*), so a signal ends it as it would */
	if (!has_mask)
		mask = cur_uc ? *(const uint64_t *)&cur_uc->uc_sigmask : 0;
	mask &= ~(1ull << (SIGSYS - 1));
	if (timeout > 0)
		deadline = perf_fd_now_ns() + timeout;
	pfd = sess && core && !passive ? poke_fd_get() : -1;
	for (;;) {
		struct timespec left = { 0, 0 }, *tsp = NULL;
		int out = 0;

		if (timeout > 0) {
			int64_t l = deadline - perf_fd_now_ns();

			if (l < 0)
				l = 0;
			left.tv_sec = l / 1000000000;
			left.tv_nsec = l % 1000000000;
			tsp = &left;
		} else if (timeout == 0) {
			tsp = &left;
		}
		if (timeout != 0 && pfd >= 0) {
			/* the wait on the epoll file beside the poke fd (poll_wait) */
			struct pollfd two[2] = { { .fd = epfd, .events = POLLIN },
						 { .fd = pfd, .events = POLLIN } };
			uint64_t wmask = mask | (1ull << (SIGSYS - 1));

			r = TSYS6(SYS_ppoll, two, 2, tsp, &wmask, 8, 0);
			if (r < 0)
				return r;
			if ((two[1].revents & POLLIN) && take_pokes(pfd))
				return -EINTR;  /* a signal of the program's came with it */
			if (r == 0)
				return 0;
			if (!two[0].revents)
				continue;       /* a poke alone: the wait goes on */
			left.tv_sec = left.tv_nsec = 0;
			tsp = &left;    /* ready: take the events */
		}
		r = TSYS6(SYS_epoll_pwait2, epfd, evs, max, tsp, &mask, 8);
		if (r == -ENOSYS)       /* before Linux 5.11: milliseconds */
			r = TSYS6(SYS_epoll_pwait, epfd, evs, max,
				  tsp ? tsp->tv_sec * 1000 + (tsp->tv_nsec + 999999) / 1000000 : -1,
				  &mask, 8);
		if (r <= 0 || !perf_fd_ep_any(&PF))
			return r;
		for (long i = 0; i < r; i++) {
			uint64_t d = evs[i].data.u64, data = 0;
			int64_t ev;

			if ((d & EP_TAG_MASK) != EP_TAG) {
				evs[out++] = evs[i];
				continue;
			}
			/* ep_send_events(): ep_item_poll() & the item's events */
			ev = perf_fd_ep_send(&PF, NULL, epfd, (int)(d & ~EP_TAG_MASK), &data);
			if (ev < 0) {
				evs[out++] = evs[i];    /* not ours after all */
				continue;
			}
			if (!ev)
				continue;
			evs[out].events = (uint32_t)ev;
			evs[out].data.u64 = data;
			out++;
		}
		if (out || timeout == 0 || (timeout > 0 && perf_fd_now_ns() >= deadline))
			return out;
	}
}

/* A syscall on a file that is not a perf file (in the range by chance):
 * the host's, under the interrupted context's signal mask, so a read that
 * blocks can be interrupted (and restarted) as it would be natively. */
static long host_syscall(long nr, long *a)
{
	uint64_t mask, handler_mask;
	long r;

	if (!cur_uc)
		return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	memcpy(&mask, &cur_uc->uc_sigmask, sizeof(mask));
	mask &= ~(1ull << (SIGSYS - 1));
	TSYS4(SYS_rt_sigprocmask, SIG_SETMASK, &mask, &handler_mask, 8);
	r = tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	TSYS4(SYS_rt_sigprocmask, SIG_SETMASK, &handler_mask, NULL, 8);
	return r;
}

/* The shim's ring mmap of a core file, for host_event_mmap(). */
static long map_core_ring(int h, long *a)
{
	return sys_mmap(h, a);
}

/* Whether this process opened core events that are still open: only then
 * can a ring it maps be shared by host and core events. */
static bool opened_core_files(void)
{
	pid_t me = (pid_t)TSYS0(SYS_getpid);

	for (int h = 0; h < PERF_CORE_MAX_FILES; h++)
		if (sess->files[h].ino && sess->files[h].owner == me)
			return true;
	return false;
}

/* A syscall on a host perf event in the range: its mmap, SET_OUTPUT and
 * close take part in rings shared with the core (host_events.c); the rest
 * is the host's. A process with no core events maps the host's own ring
 * (perf test 4.1 reads it right after its syscalls, with no trapped call
 * in between that could copy records into a core ring). */
static long host_event_syscall(long nr, long *a)
{
	struct perf_task *cur = native_task(my_tid());
	long r;

	if (nr == SYS_mmap && a[5] == 0 && cur && opened_core_files()) {
		r = host_event_mmap(core, cur, a, map_core_ring);
		shim_log("mmap(host fd %ld, %ld bytes) -> %#lx", a[4], a[1], r);
		if (r != -ENOSYS)
			return r;
	} else if (nr == SYS_ioctl && (unsigned)a[1] == PERF_EVENT_IOC_SET_OUTPUT && cur) {
		r = host_event_set_output(core, cur, a[0], a[2], a[2] == -1 ? -1 : fd_handle(a[2]));
		shim_log("ioctl(host fd %ld, SET_OUTPUT, %ld) -> %ld", a[0], a[2], r);
		return r;
	} else if (nr == SYS_close) {
		return host_event_close(core, a[0]);
	}
	return host_syscall(nr, a);
}

/*
 * A child that shares this process's memory until its exec (vfork,
 * posix_spawn, Python's _posixsubprocess, clone(CLONE_VM)) got a copy of
 * the fd table from the kernel but ran no atfork handler: the references
 * its closes would drop were never taken, and the shim's tables it would
 * change are the parent's. Its fd table changes are the host's alone.
 */
static bool fd_table_syscall_of_vm_child(long nr, const long *a)
{
	bool table = nr == SYS_close || nr == SYS_close_range || nr == SYS_dup ||
		     nr == SYS_dup2 || nr == SYS_dup3 ||
		     (nr == SYS_fcntl && (a[1] == F_DUPFD || a[1] == F_DUPFD_CLOEXEC));

	return table && TSYS0(SYS_getpid) != shim_pid;
}

/*
 * prctl(PR_SET_NAME) of a native thread: the host renames it (its checks,
 * its EFAULT), then, when the core knows the thread (events were opened on
 * it or by it), the core takes the same name and writes PERF_RECORD_COMM
 * as __set_task_comm() -> perf_event_comm(tsk, false) does, so the side
 * band in core rings has the thread's renames. The name is read as
 * prctl_set_name's strncpy_from_user(comm, arg2, TASK_COMM_LEN - 1) does
 * (no second prctl: a syscalls:sys_enter_prctl tracepoint counts them).
 */
static long sys_prctl_set_name(const long *a)
{
	char name[16];
	struct perf_task *t;
	long r = tramp_syscall(SYS_prctl, a[0], a[1], a[2], a[3], a[4], 0);

	if (r || (t = perf_task_find(core, my_tid())) == NULL)
		return r;
	perf_fd_comm_from_user(&PF, NULL, (uint64_t)a[1], name);
	perf_task_set_comm(core, t, name);
	shim_log("prctl(PR_SET_NAME, \"%s\") -> COMM", name);
	return r;
}

static long dispatch(long nr, long *a)
{
	long r;
	int h;

	if (nr == SYS_epoll_wait || nr == SYS_epoll_pwait || nr == SYS_epoll_pwait2)
		/* without perf items: one wait under the right mask */
		return sys_epoll_wait(nr, a);
	if (passive) {
		/* pmusim re-executing itself (a guest's execve) must keep the
		 * shim: the filter follows; its guests never see it
		 * (strip_preload) */
		if (nr == SYS_execve && shim_str_readable((uint64_t)a[0]) &&
		    is_pmusim((const char *)a[0]))
			return exec_keeping_env(SYS_execve, a, 2);
		/* waits (pmusim's host poll for a guest) under the interrupted
		 * context's mask, so signals still end them */
		if (nr == SYS_poll || nr == SYS_ppoll || nr == SYS_select || nr == SYS_pselect6)
			return host_syscall(nr, a);
		return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	}
	switch (nr) {
	case SYS_execve:
		return sys_execve(a);
	case SYS_execveat:
		/* fexecve and friends: native, the environment kept */
		return exec_keeping_env(SYS_execveat, a, 3);
	}
	if (!core)      /* no session core: the host's syscalls */
		return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (arena_fd_syscall(nr, a, &r))
		return r;
	/* the arena fd stays through a vm child's close_range too: the
	 * program it execs joins the session through it */
	if (fd_table_syscall_of_vm_child(nr, a))
		return nr == SYS_close_range
			? ((unsigned)a[0] > (unsigned)a[1] ? -EINVAL
			   : close_range_keeping_arena((unsigned)a[0], (unsigned)a[1], a[2]))
			: host_syscall(nr, a);
	/* a host event's records reach the core ring it shares before any
	 * perf syscall can look at it */
	drain_host_feeds();
	switch (nr) {
	case SYS_poll:
	case SYS_ppoll:
		return sys_poll(nr, a);
	case SYS_select:
	case SYS_pselect6:
		return sys_select(nr, a);
	case SYS_perf_event_open:
		return sys_perf_event_open(a);
	case SYS_prctl: {
		struct perf_task *cur;

		if (a[0] == PR_SET_NAME)
			return sys_prctl_set_name(a);
		cur = native_task(my_tid());

		long r = cur ? perf_sys_prctl_events(core, cur, a[0] == PR_TASK_PERF_EVENTS_ENABLE)
			     : -ENOMEM;

		shim_log("prctl(PR_TASK_PERF_EVENTS_%s) -> %ld",
			 a[0] == PR_TASK_PERF_EVENTS_ENABLE ? "ENABLE" : "DISABLE", r);
		return r;
	}
	case SYS_munmap:
		return perf_fd_munmap(&PF, NULL, (uint64_t)a[0], (uint64_t)a[1]);
	case SYS_dup2:
	case SYS_dup3:
		return sys_dup23(nr, a);
	case SYS_close_range:
		return sys_close_range(a);
	}
	h = fd_handle(nr == SYS_mmap ? a[4] : nr == SYS_epoll_ctl ? a[2] : a[0]);
	if (h < 0 && host_event_is(nr == SYS_mmap ? a[4] : a[0]))
		return host_event_syscall(nr, a);
	if (h < 0)      /* not a perf file: the host's syscall */
		return host_syscall(nr, a);
	return fd_syscall(nr, h, a);
}

/* The SIGSYS disposition the program asked for; the shim's handler stays
 * installed and passes it the signals that are not the filter's. */
static struct sigaction app_sigsys = { .sa_handler = SIG_DFL };

static void chain_sigsys(int sig, siginfo_t *si, void *ucv)
{
	struct sigaction sa = app_sigsys;

	if (sa.sa_handler == SIG_IGN)
		return;
	if (sa.sa_handler == SIG_DFL) {
		/* the default action: die of SIGSYS (with a core); raw
		 * calls, past the shim's own syscall() */
		uint64_t kdfl[4] = { 0 }, m = 1ull << (SIGSYS - 1);

		TSYS4(SYS_rt_sigaction, SIGSYS, kdfl, NULL, 8);
		TSYS4(SYS_rt_sigprocmask, SIG_UNBLOCK, &m, NULL, 8);
		TSYS3(SYS_tgkill, getpid(), TSYS0(SYS_gettid), SIGSYS);
		return;
	}
	if (sa.sa_flags & SA_SIGINFO)
		sa.sa_sigaction(sig, si, ucv);
	else
		sa.sa_handler(sig);
}

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
/* The most the handler's frames take below it (the exec path's, sized to
 * the environment, included). */
#define SHIM_CHILD_FRAMES (128u << 10)
#endif

static void sigsys_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	greg_t *g = uc->uc_mcontext.gregs;
	int saved_errno = errno;
	long a[6];

	(void)sig;
#if defined(__SANITIZE_ADDRESS__)
	/* A child sharing this memory (posix_spawn's clone) runs on a stack
	 * the parent mmapped, often where an earlier child's frames were:
	 * that one exec'd without returning, so ASan's poison of its frames
	 * outlives it (munmap keeps shadow). The frames below start clean. */
	if (shim_pid && TSYS0(SYS_getpid) != shim_pid) {
		uintptr_t sp = (uintptr_t)__builtin_frame_address(0);

		__asan_unpoison_memory_region((void *)(sp - SHIM_CHILD_FRAMES), SHIM_CHILD_FRAMES);
	}
#endif
	if (si->si_code == SI_QUEUE && si->si_value.sival_int == (int)SHIM_SESSION_MAGIC) {
		/* the session's poke: a monitored task took its write ends,
		 * and/or fasync signals wait to be raised here (session.c) */
		if (sess) {
			drop_adopted_write_ends();
			shim_session_fasync_deliver();
		}
		errno = saved_errno;
		return;
	}
	if (si->si_code != 1 /* SYS_SECCOMP */ || si->si_errno) {
		/* not the filter's (si_errno is the SECCOMP_RET_DATA: 0 for
		 * ours): the program's own SIGSYS */
		chain_sigsys(sig, si, ucv);
		errno = saved_errno;
		return;
	}
	cur_uc = uc;
	a[0] = g[REG_RDI];
	a[1] = g[REG_RSI];
	a[2] = g[REG_RDX];
	a[3] = g[REG_R10];
	a[4] = g[REG_R8];
	a[5] = g[REG_R9];
	g[REG_RAX] = dispatch(si->si_syscall, a);
	errno = saved_errno;
}

/* ---- keeping SIGSYS ours ---- */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);

int sigaction(int signum, const struct sigaction *act, struct sigaction *old)
{
	static sigaction_fn real;

	if (!real)
		real = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	if (signum == SIGSYS && active) {
		/* the shim's handler stays; the program's is recorded and gets
		 * the SIGSYS that are not the filter's (chain_sigsys). glibc's
		 * own sigaction() reads act and writes old in the caller too */
		if (old)
			*old = app_sigsys;
		if (act)
			app_sigsys = *act;
		return 0;
	}
	return real(signum, act, old);
}

/* The kernel's struct sigaction (rt_sigaction with an 8-byte mask). */
struct shim_ksa {
	void *handler;
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

typedef long (*syscall_fn)(long, ...);

/*
 * Raw syscall(2) of the two signal calls that would break the shim: a
 * program setting its own SIGSYS action, or blocking SIGSYS (a blocked
 * SIGSYS from seccomp kills), through syscall() rather than glibc's
 * wrappers (pmusim's own signal layer does). Everything else goes to
 * glibc's syscall() unchanged, through the filter.
 */
long syscall(long nr, ...)
{
	static syscall_fn real;
	long a1, a2, a3, a4, a5, a6;
	va_list ap;

	va_start(ap, nr);
	a1 = va_arg(ap, long);
	a2 = va_arg(ap, long);
	a3 = va_arg(ap, long);
	a4 = va_arg(ap, long);
	a5 = va_arg(ap, long);
	a6 = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	if (active && nr == SYS_rt_sigaction && a1 == SIGSYS) {
		struct shim_ksa act, old;

		/* do_sigaction()'s copies: EFAULT */
		if (a2 && shim_copy_from(&act, (uint64_t)a2, sizeof(act))) {
			errno = EFAULT;
			return -1;
		}
		if (a3) {
			old.handler = (void *)app_sigsys.sa_handler;
			old.flags = (unsigned long)app_sigsys.sa_flags;
			old.restorer = NULL;
			memcpy(&old.mask, &app_sigsys.sa_mask, sizeof(old.mask));
			if (shim_copy_to((uint64_t)a3, &old, sizeof(old))) {
				errno = EFAULT;
				return -1;
			}
		}
		if (a2) {
			memset(&app_sigsys, 0, sizeof(app_sigsys));
			app_sigsys.sa_handler = (sighandler_t)act.handler;
			app_sigsys.sa_flags = (int)act.flags;
			memcpy(&app_sigsys.sa_mask, &act.mask, sizeof(act.mask));
		}
		return 0;
	}
	uint64_t m;

	if (active && nr == SYS_rt_sigprocmask && a2 &&
	    ((int)a1 == SIG_BLOCK || (int)a1 == SIG_SETMASK) &&
	    shim_copy_from(&m, (uint64_t)a2, sizeof(m)) == 0) {
		if (m & (1ull << (SIGSYS - 1))) {
			m &= ~(1ull << (SIGSYS - 1));
			return real(nr, a1, (long)&m, a3, a4, a5, a6);
		}
	}
	return real(nr, a1, a2, a3, a4, a5, a6);
}

sighandler_t signal(int signum, sighandler_t handler)
{
	struct sigaction sa, old;

	/* glibc's signal(): BSD semantics, SA_RESTART */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, signum);
	if (sigaction(signum, &sa, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

static int mask_call(sigmask_fn real, int how, const sigset_t *set, sigset_t *old)
{
	sigset_t s;

	/* glibc's own wrappers read the set in the caller too */
	if (set && active && (how == SIG_BLOCK || how == SIG_SETMASK) && sigismember(set, SIGSYS)) {
		s = *set;
		sigdelset(&s, SIGSYS);  /* a blocked SIGSYS from seccomp kills */
		set = &s;
	}
	return real(how, set, old);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn real;

	if (!real)
		real = (sigmask_fn)dlsym(RTLD_NEXT, "sigprocmask");
	return mask_call(real, how, set, old);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	static sigmask_fn real;

	if (!real)
		real = (sigmask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
	return mask_call(real, how, set, old);
}

/* ---- perf fds received over a unix socket (SCM_RIGHTS) ---- */

/*
 * scm_detach_fds() installs each received file at the lowest free fd,
 * normally below the perf range. A received fd that is a session pipe (its
 * inode in the session's table) is moved into the range (the cmsg's number
 * rewritten, O_CLOEXEC kept as MSG_CMSG_CLOEXEC set it) and the new holder
 * takes a core reference of the file (receive_fd(): the fd holds the file).
 * Not a trapped syscall but an interposer of libc's recvmsg/recvmmsg, so
 * other processes' socket traffic costs nothing. If the range is full the
 * fd stays where it landed, not intercepted (as before).
 */
static uint64_t s_tag(long fd);
static int s_identify(void *ctx, long fd, uint64_t *tag);

static void adopt_received_fd(void *arg, int *fd)
{
	uint64_t tag;
	long fl, nfd;
	int h;

	(void)arg;
	if (in_range(*fd) || !(tag = s_tag(*fd)) || (h = s_identify(NULL, *fd, &tag)) < 0)
		return;
	fl = TSYS2(SYS_fcntl, *fd, F_GETFD);
	nfd = place_fd(*fd, SHIM_FD_BASE, fl > 0 && (fl & FD_CLOEXEC));
	if (nfd < 0) {
		shim_log("SCM_RIGHTS: perf file %d at fd %d: range full, not intercepted", h, *fd);
		return;
	}
	perf_fd_adopt(&PF, NULL, nfd, h, tag, true);
	TSYS1(SYS_close, *fd);
	shim_log("SCM_RIGHTS: perf file %d received at fd %d, moved to %ld", h, *fd, nfd);
	*fd = (int)nfd;
	/* this process holds perf fds now: its poll() answers as perf_poll */
	if (!tramp_poll_filter_present())
		tramp_poll_filter_install();
}

static void adopt_received(struct msghdr *msg)
{
	if (core && !passive)
		perf_fd_scm_each(msg, adopt_received_fd, NULL);
}

typedef ssize_t (*recvmsg_fn)(int, struct msghdr *, int);
typedef int (*recvmmsg_fn)(int, struct mmsghdr *, unsigned, int, struct timespec *);

ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	static recvmsg_fn real;
	ssize_t r;

	if (!real)
		real = (recvmsg_fn)dlsym(RTLD_NEXT, "recvmsg");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	r = real(fd, msg, flags);
	if (r >= 0)
		adopt_received(msg);
	return r;
}

int recvmmsg(int fd, struct mmsghdr *vec, unsigned vlen, int flags, struct timespec *timeout)
{
	static recvmmsg_fn real;
	int r;

	if (!real)
		real = (recvmmsg_fn)dlsym(RTLD_NEXT, "recvmmsg");
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	r = real(fd, vec, vlen, flags, timeout);
	for (int i = 0; i < r; i++)
		adopt_received(&vec[i].msg_hdr);
	return r;
}

/* ---- fork and exit: references of inherited perf fds ---- */

static void scan_one(void *ctx, int fd)
{
	(void)ctx;
	fd_handle(fd);  /* fills the fd table */
}

/* After exec: the perf fds this image inherited (not CLOEXEC) join the
 * cache, so a fork takes their references. Only the open fds of the
 * windows are looked at. */
static void scan_inherited_fds(void)
{
	fd_scan_open(tramp_syscall, SHIM_FD_BASE, SHIM_FD_END, scan_one, NULL);
	if (sess->fd_base2)
		fd_scan_open(tramp_syscall, sess->fd_base2, sess->fd_base2 + SHIM_FD_WINDOW,
			     scan_one, NULL);
}

static void atfork_child(void)
{
	shim_pid = getpid();
	self_count_told = false;        /* a process of its own */
	/* VM_DONTCOPY: the parent's rings are not the child's */
	perf_fd_rings_fork(&PF, false);
	host_events_forget_all();
	/* dup_fd(): the child holds every file too */
	perf_fd_fork(&PF, NULL, false);
}

static void __attribute__((destructor)) shim_fini(void)
{
	if (!core || passive)
		return;
	/* exit_files(): the process's references go; an _exit or a crash
	 * leaves them to the session's end (docs/shim.md) */
	perf_fd_release(&PF, NULL, false, NULL, 0);
}

/* Removes the shim from LD_PRELOAD (inside pmusim: the guest must not
 * load it). */
static void strip_preload(void)
{
	const char *pl = getenv("LD_PRELOAD");
	char buf[4096], *out = buf, *save, *tok, *copy;

	if (!pl || strlen(pl) >= sizeof(buf))
		return;
	copy = strdup(pl);
	if (!copy)
		return;
	*out = 0;
	for (tok = strtok_r(copy, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
		if (strstr(tok, "libpmusim_shim") || (*shim_asan_runtime() && !strcmp(tok, shim_asan_runtime())))
			continue;
		out += snprintf(out, sizeof(buf) - (size_t)(out - buf), "%s%s", out == buf ? "" : ":", tok);
	}
	free(copy);
	if (buf[0])
		setenv("LD_PRELOAD", buf, 1);
	else
		unsetenv("LD_PRELOAD");
}

static void __attribute__((constructor)) shim_init(void)
{
	const char *exe = getenv(PMUSIM_ENV_EXE);
	struct sigaction sa;
	char self[PATH_MAX];
	ssize_t n;
	int err;

	if (!getenv(PMUSIM_ENV_SESSION))
		return;         /* not in a session: do nothing at all */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
		self[n] = 0;
	passive = exe && n > 0 && strcmp(self, exe) == 0;
	shim_session_set_sys(tramp_syscall);
	err = tramp_map();
	if (err) {
		fprintf(stderr, "pmusim shim: cannot map the trampoline at %#lx: %s\n",
			PMUSIM_TRAMP_ADDR, strerror(-err));
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigsys_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGSYS);
	sigdelset(&sa.sa_mask, SIGSEGV);
	sigdelset(&sa.sa_mask, SIGBUS);
	sigdelset(&sa.sa_mask, SIGILL);
	sigdelset(&sa.sa_mask, SIGFPE);
	if (tramp_sigaction(SIGSYS, sigsys_handler, sa.sa_flags, &sa.sa_mask) == 0) {
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGSYS);
		sigprocmask(SIG_UNBLOCK, &s, NULL);
	}
	active = true;
	if (passive) {
		env_capture();
		strip_preload();
	} else {
		env_capture();
		err = shim_session_join(NULL, &core);
		if (err) {
			fprintf(stderr, "pmusim shim: cannot join the session: %s\n", strerror(-err));
			core = NULL;
		} else {
			sess = shim_session_get();
			PF.core = core;
			model = perf_core_model(core);
			arena_fd = atoi(getenv(PMUSIM_ENV_ARENA));
			scan_inherited_fds();
			host_events_init(native_task);
			shim_pid = getpid();
			pthread_atfork(NULL, NULL, atfork_child);
		}
	}
	if (!tramp_filter_present()) {
		err = tramp_filter_install(sess ? (unsigned)sess->fd_base2 : 0);
		if (err)
			fprintf(stderr, "pmusim shim: cannot install the seccomp filter: %s\n",
				strerror(-err));
		else
			shim_log("seccomp filter installed (pid %d)", (int)getpid());
	}
}

/* ---- the host operations of the shim's perf fds (sim/perf_file) ---- */

/* What the layer passes (close, munmap, FIONBIO/FIOCLEX, F_SETFL/GETFL)
 * never blocks: the trampoline, under the handler's mask, as before. */
static long s_pass(void *ctx, long nr, const long a[6])
{
	(void)ctx;
	return tramp_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int s_copy_from(void *ctx, void *dst, uint64_t uaddr, size_t len)
{
	(void)ctx;
	return shim_copy_from(dst, uaddr, len);
}

static int s_copy_to(void *ctx, uint64_t uaddr, const void *src, size_t len)
{
	(void)ctx;
	return shim_copy_to(uaddr, src, len);
}

static long s_dup_fd(void *ctx, long fd, long min, bool cloexec)
{
	(void)ctx;
	return place_fd(fd, min, cloexec);
}

static long s_slot(long fd)
{
	return in_range(fd) ? (long)fd_slot(fd) : -1;
}

static long s_slot_fd(long i)
{
	return slot_fd((unsigned)i);
}

/* A perf fd is a session pipe's read end: its inode is the tag. */
static uint64_t s_tag(long fd)
{
	struct stat st;

	if (TSYS2(SYS_fstat, fd, &st) < 0 || !S_ISFIFO(st.st_mode))
		return 0;
	return (uint64_t)st.st_ino;
}

static bool s_live(int h, uint64_t tag)
{
	return sess->files[h].ino == tag;
}

/* Any session pipe in the windows is a perf fd, however it got there
 * (fork, exec, a dup the table did not see). */
static int s_identify(void *ctx, long fd, uint64_t *tag)
{
	(void)ctx;
	(void)fd;
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++)
		if (sess->files[h].ino == *tag)
			return h;
	return -1;
}

static bool s_async(void *ctx, int h)
{
	(void)ctx;
	return sess->files[h].async;
}

static void s_set_async(void *ctx, int h, long fd, bool on)
{
	(void)ctx;
	(void)fd;
	sess->files[h].async = on;
}

static unsigned s_poll(void *ctx, long fd, int h, short revents)
{
	(void)ctx;
	if (revents == PERF_FD_REVENTS_UNKNOWN)
		return ep_perf_poll((int)fd, h);
	return file_poll((int)fd, h, revents);
}

static const struct perf_file_host shim_files_host = {
	.sys = tramp_syscall,
	.pass = s_pass,
	.copy_from = s_copy_from,
	.copy_to = s_copy_to,
	.make_fd = make_fd,
	.dup_fd = s_dup_fd,
	.slot = s_slot,
	.slot_fd = s_slot_fd,
	.identify = s_identify,
	.tag = s_tag,
	.live = s_live,
	.async = s_async,
	.set_async = s_set_async,
	.put = file_check_released,
	.map_ring = map_ring,
	.poll = s_poll,
	.poll_wait = poll_wait,
};

#if defined(__SANITIZE_ADDRESS__)
/* A sanitized shim runs in unsanitized programs (perf) under the ASan
 * runtime `pmusim run` preloads: their own leaks are theirs, not pmusim's
 * (LeakSanitizer's hook). pmusim itself keeps its leak check. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return !passive;
}
#endif
