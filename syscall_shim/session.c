/*
 * session.c - joining a `pmusim run` session and the session's machine
 * hooks that any attached process can run (session.h): the arena named by
 * the environment, wakeups as a byte in a perf file's pipe, fasync signals
 * queued for the file's owner and raised by its shim, the monitored task
 * taking over the pipe's write end (POLLHUP at its exit), and the --log
 * file.
 *
 * Nothing here may call a trapped syscall on a perf fd: wakeups reach the
 * pipe through /proc/<owner>/fd/<fd>, a fresh write end outside the range.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "sim/core/arena.h"
#include "sim/core/fd_place.h"
#include "sim/perf_file/perf_file.h"
#include "syscall_shim/session.h"

static struct shim_session *session;
static fd_place_sys place_sys;  /* the shim's trampoline, or NULL (session.h) */

void shim_session_set_sys(fd_place_sys sys)
{
	place_sys = sys;
}

bool shim_fd_in_window(const struct shim_session *s, long fd)
{
	unsigned base = (unsigned)fd & SHIM_FD_MASK;

	return base == SHIM_FD_BASE || (s && s->fd_base2 && base == (unsigned)s->fd_base2);
}

int shim_fd_base2(long hard)
{
	long top = (hard < SHIM_FD_BASE2_CEIL ? hard : SHIM_FD_BASE2_CEIL) & ~(long)(SHIM_FD_WINDOW - 1);

	return top - SHIM_FD_WINDOW >= SHIM_FD_END ? (int)(top - SHIM_FD_WINDOW) : 0;
}

int shim_fd_place(int fd, int min, bool top, bool cloexec)
{
	int base2 = session ? session->fd_base2 : 0;
	int r = -EMFILE;

	/* the first window, below the arena's fd; then the second */
	if (min < SHIM_ARENA_FD)
		r = fd_place(place_sys, fd, min > SHIM_FD_BASE ? min : SHIM_FD_BASE, SHIM_ARENA_FD,
			     top, cloexec);
	if (r == -EMFILE && base2 && min < base2 + SHIM_FD_WINDOW)
		r = fd_place(place_sys, fd, min > base2 ? min : base2, base2 + SHIM_FD_WINDOW,
			     top, cloexec);
	return r;
}

struct shim_session *shim_session_get(void)
{
	return session;
}

static const struct perf_machine_ops session_ops = {
	.wakeup = shim_session_wakeup,
	.fasync = shim_session_fasync,
};
static const struct perf_machine session_machine = { .ops = &session_ops, .native_tsc = true };

int shim_session_join(const struct perf_machine *machine, struct perf_core **core)
{
	const char *fd_s = getenv(PMUSIM_ENV_ARENA);

	if (!fd_s)
		return -ENOENT;
	return shim_session_join_fd(atoi(fd_s), machine, core);
}

int shim_session_join_fd(int fd, const struct perf_machine *machine, struct perf_core **core)
{
	const char *ss = getenv(PMUSIM_ENV_SESSION);
	struct perf_arena *arena;
	struct shim_session *s;
	int err;

	if (!ss || fd < 0)
		return -ENOENT;
	s = (struct shim_session *)(uintptr_t)strtoull(ss, NULL, 0);
	err = perf_arena_attach(fd, &arena);
	if (err == -EEXIST && perf_arena_root(PMUSIM_ARENA_ADDR))
		arena = PMUSIM_ARENA_ADDR;      /* already mapped (inherited by fork) */
	else if (err)
		return err;
	if (s->magic != SHIM_SESSION_MAGIC)
		return -EINVAL;
	*core = perf_core_attach(arena, machine ? machine : &session_machine);
	if (!*core)
		return -EINVAL;
	session = s;
	return 0;
}

bool shim_session_owns(int handle)
{
	return session && handle >= 0 && handle < PERF_CORE_MAX_FILES &&
	       session->files[handle].ino != 0;
}

int shim_session_handle_of_fd(int fd)
{
	struct stat st;

	if (!session || fstat(fd, &st) || !S_ISFIFO(st.st_mode))
		return -1;
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++)
		if (session->files[h].ino == st.st_ino)
			return h;
	return -1;
}

/* Opens a write end of the pipe behind the perf fd of f, or -errno. */
static int open_write_end(const struct shim_file *f)
{
	char path[64];
	int fd;

	if (f->owner == getpid() && f->wfd >= 0)
		return fcntl(f->wfd, F_DUPFD_CLOEXEC, 3);
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)f->owner, f->owner_fd);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* perf_event_wakeup() -> wake_up_all(&event->waitq): a byte in the pipe
 * wakes poll, select and epoll waiters. Reads go to the core and do not
 * drain it; the shim's poll, select and epoll answers do, as they consume
 * perf_poll's state (docs/shim.md). */
void shim_session_wakeup(void *ctx, int handle)
{
	struct shim_file *f;
	char b = 0;
	int fd;

	(void)ctx;
	if (!session || handle < 0 || handle >= PERF_CORE_MAX_FILES)
		return;
	f = &session->files[handle];
	if (!f->ino)
		return;
	fd = open_write_end(f);
	if (fd < 0)
		return;
	int queued = 0;

	/* one byte is enough: POLLIN is level (docs/shim.md) */
	if (ioctl(fd, FIONREAD, &queued) == 0 && queued == 0) {
		sigset_t pipe_set, old, pending;
		bool was_pending;

		/* a pipe whose perf fds are all closed has no reader: EPIPE,
		 * never a SIGPIPE for the process that happens to run the core */
		sigemptyset(&pipe_set);
		sigaddset(&pipe_set, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
		sigpending(&pending);
		was_pending = sigismember(&pending, SIGPIPE);
		if (write(fd, &b, 1) < 0 && errno == EPIPE && !was_pending) {
			struct timespec zero = { 0, 0 };

			sigtimedwait(&pipe_set, NULL, &zero);
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	close(fd);
}

/*
 * kill_fasync() -> send_sigio_to_task(): si_signo is F_SETSIG's signal,
 * si_code the reason, si_fd the fd, si_band the reason's band; without
 * F_SETSIG a plain SIGIO (SEND_SIG_PRIV: si_code SI_KERNEL).
 *
 * Linux lets only a thread give itself a signal with si_code >= 0
 * (do_rt_sigqueueinfo, do_rt_tgsigqueueinfo), so the reason is queued in
 * the session (struct shim_file's sigq) and the owner's thread is poked
 * with a SIGSYS (SI_QUEUE, SHIM_SESSION_MAGIC); its shim raises the real
 * signal to itself (shim_session_fasync_deliver). A process owner is
 * poked in its main thread, whose rt_sigqueueinfo(own tgid) is a
 * process-directed signal as send_sigio's PIDTYPE_TGID is; a thread
 * owner (F_OWNER_TID) in that thread. A process group owner gets a plain
 * kill() of the signal (si_code SI_USER; docs/shim.md).
 */
/* The thread a file's signals are raised in (see above). */
static pid_t sig_thread(const struct shim_file *f)
{
	return f->sig_pid;      /* a process's main thread has tid == pid */
}

static pid_t sig_process(const struct shim_file *f)
{
	return f->sig_tid ? f->sig_tgid : f->sig_pid;
}

/* Queues sig with si to this thread: process-directed from the main
 * thread of a process owner, thread-directed otherwise. */
static long queue_to(pid_t pid, pid_t tid, bool thread, int sig, siginfo_t *si)
{
	if (!thread && tid == pid)
		return syscall(SYS_rt_sigqueueinfo, pid, sig, si);
	return syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, si);
}

/* Raises one queued reason of f in this thread (send_sigio_to_task()). */
static void raise_reason(const struct shim_file *f, int si_code)
{
	pid_t tid = (pid_t)syscall(SYS_gettid), pid = getpid();
	siginfo_t si;
	int sig = perf_fd_sigio_info(f->sig, f->sig_fd, si_code, &si);
	if (queue_to(pid, tid, f->sig_tid, sig, &si) < 0 && sig != SIGIO) {
		/* do_send_sig_info() failed (the RT queue is full): the
		 * plain SIGIO of case 0 */
		sig = perf_fd_sigio_fallback(&si);
		queue_to(pid, tid, f->sig_tid, sig, &si);
	}
}

unsigned shim_session_fasync_deliver(void)
{
	unsigned raised = 0;
	pid_t tid, pid;

	if (!session)
		return 0;
	tid = (pid_t)syscall(SYS_gettid);
	pid = getpid();
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++) {
		struct shim_file *f = &session->files[h];
		uint32_t head;

		if (__atomic_load_n(&f->sigq_head, __ATOMIC_ACQUIRE) ==
		    __atomic_load_n(&f->sigq_tail, __ATOMIC_ACQUIRE) || !f->ino)
			continue;
		/* a thread owner's signals are raised in that thread; a
		 * process's in its main thread, or in whichever thread got
		 * the poke if the main thread is gone */
		if (f->sig_tid ? f->sig_pid != tid : f->sig_pid != pid)
			continue;
		head = __atomic_load_n(&f->sigq_head, __ATOMIC_ACQUIRE);
		while (head != __atomic_load_n(&f->sigq_tail, __ATOMIC_ACQUIRE)) {
			int code = f->sigq[head % SHIM_SIGQ_LEN];

			/* several threads (or a nested poke) may drain: the one
			 * that advances head raises the entry */
			if (__atomic_compare_exchange_n(&f->sigq_head, &head, head + 1, false,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				raise_reason(f, code);
				raised++;
				head++;
			}
		}
	}
	return raised;
}

void shim_session_fasync(void *ctx, int handle, int si_code)
{
	struct shim_file *f;
	siginfo_t si;
	pid_t tid;
	long r;

	(void)ctx;
	if (!session || handle < 0 || handle >= PERF_CORE_MAX_FILES)
		return;
	f = &session->files[handle];
	if (!f->ino || !f->sig_pid)
		return;         /* f_setown() never called: send_sigio() has no pid */
	if (f->sig_pid < 0) {
		/* a process group: one kill() reaches each member (si_code
		 * SI_USER, no si_fd; docs/shim.md) */
		syscall(SYS_kill, f->sig_pid, f->sig ? f->sig : SIGIO);
		return;
	}
	/* queue the reason, in order (one signal per call) */
	while (__atomic_exchange_n(&f->sigq_lock, 1, __ATOMIC_ACQUIRE))
		;
	if (f->sigq_tail - __atomic_load_n(&f->sigq_head, __ATOMIC_ACQUIRE) < SHIM_SIGQ_LEN) {
		f->sigq[f->sigq_tail % SHIM_SIGQ_LEN] = (uint8_t)si_code;
		__atomic_store_n(&f->sigq_tail, f->sigq_tail + 1, __ATOMIC_RELEASE);
	} else {
		f->sigq_lost++; /* the owner is not taking its signals */
	}
	__atomic_store_n(&f->sigq_lock, 0, __ATOMIC_RELEASE);
	tid = (pid_t)syscall(SYS_gettid);
	if (tid == sig_thread(f) && getpid() == sig_process(f)) {
		shim_session_fasync_deliver();  /* the owner itself: at once */
		return;
	}
	/* poke the owner's thread; its shim raises the signal */
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGSYS;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = (int)SHIM_SESSION_MAGIC;
	r = syscall(SYS_rt_tgsigqueueinfo, sig_process(f), sig_thread(f), SIGSYS, &si);
	if (r < 0 && !f->sig_tid)
		/* the main thread is gone: any thread of the process */
		syscall(SYS_rt_sigqueueinfo, sig_process(f), SIGSYS, &si);
}

int shim_session_adopt(pid_t tid)
{
	int n = 0;

	if (!session)
		return 0;
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++) {
		struct shim_file *f = &session->files[h];
		siginfo_t si;
		int fd;

		if (!f->ino || f->target != tid || f->adopted)
			continue;
		fd = open_write_end(f);
		if (fd < 0)
			continue;
		/* kept without CLOEXEC, at the top of a window: it must live
		 * as long as this task, through its exec into the emulator,
		 * where it is one of pmusim's own fds (shim_session_own_fds) */
		int keep = shim_fd_place(fd, 0, true, false);

		close(fd);
		if (keep < 0)
			continue;
		f->adopted = true;
		f->holder = getpid();
		n++;
		/* tell the owner to drop its write end (shim.c: the SIGSYS
		 * handler's SI_QUEUE message) */
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGSYS;
		si.si_code = SI_QUEUE;
		si.si_pid = getpid();
		si.si_value.sival_int = (int)SHIM_SESSION_MAGIC;
		if (f->owner != getpid())
			syscall(SYS_rt_sigqueueinfo, f->owner, SIGSYS, &si);
	}
	return n;
}

struct own_scan {
	void (*own)(void *ctx, int fd);
	void *ctx;
};

/* A write end of a session file's pipe is the session's. */
static void own_if_write_end(void *ctx, int fd)
{
	const struct own_scan *sc = ctx;
	struct stat st;
	int fl;

	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode))
		return;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (fl & O_ACCMODE) != O_WRONLY)
		return;
	for (int h = 0; h < PERF_CORE_MAX_FILES; h++) {
		if (session->files[h].ino == st.st_ino) {
			sc->own(sc->ctx, fd);
			return;
		}
	}
}

void shim_session_own_fds(void (*own)(void *ctx, int fd), void *ctx)
{
	struct own_scan sc = { own, ctx };

	if (!session)
		return;
	fd_scan_open(place_sys, SHIM_FD_BASE, SHIM_FD_END, own_if_write_end, &sc);
	if (session->fd_base2)
		fd_scan_open(place_sys, session->fd_base2, session->fd_base2 + SHIM_FD_WINDOW,
			     own_if_write_end, &sc);
}

void shim_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, fd;

	if (!session || !session->log[0])
		return;
	n = snprintf(buf, sizeof(buf), "[%d] ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	fd = open(session->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (write(fd, buf, (size_t)n) < 0) {
		/* nothing to do */
	}
	close(fd);
}

const char *shim_asan_runtime(void)
{
#if defined(__SANITIZE_ADDRESS__)
	extern void __asan_init(void);
	static Dl_info info;

	if (info.dli_fname || dladdr((void *)__asan_init, &info))
		return info.dli_fname;
#endif
	return "";
}
