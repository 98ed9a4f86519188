/*
 * session.h - what every process of one `pmusim run` session agrees on: the
 * fixed addresses (the core's shared arena, the shim's trampoline page),
 * the reserved fd range of perf files, the environment that names the
 * session, and the per-file state the shim keeps in the arena beside the
 * core (struct shim_session). Used by `pmusim run` (sim/cli/cmd_run.c),
 * the preloaded shim (shim.c) and, for wakeups from emulated workloads,
 * by any process attached to the arena (session.c).
 */
#ifndef PMUSIM_SHIM_SESSION_H
#define PMUSIM_SHIM_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "sim/core/perf_core.h"

/* The shared arena of the session's core: same address in every process. */
#define PMUSIM_ARENA_ADDR ((void *)0x5a0000000000UL)
#define PMUSIM_ARENA_SIZE (512UL << 20)
/* The trampoline page: syscalls made from it pass the seccomp filter. */
#define PMUSIM_TRAMP_ADDR 0x59f000000000UL
#define PMUSIM_TRAMP_SIZE 4096UL

/* Ring mappings of native clients: the shim places them here, and the
 * filter traps munmap only of addresses in this region (high 32 bits of
 * the address == PMUSIM_RING_ADDR >> 32), so the core sees perf_mmap_close
 * while every other munmap costs nothing. */
#define PMUSIM_RING_ADDR 0x59e000000000UL
#define PMUSIM_RING_SIZE (1UL << 32)

/* Perf files are real fds in a window of SHIM_FD_WINDOW numbers the filter
 * traps syscalls on (low 32 bits & SHIM_FD_MASK == the window's base):
 * [SHIM_FD_BASE, SHIM_FD_END), and when that is full (a program with
 * more than a thousand files of its own) a second window at
 * shim_session.fd_base2, chosen by pmusim run from the hard RLIMIT_NOFILE
 * (0: none). Both lie above the soft limit programs usually have; the
 * shim raises it for the moment of placing an fd there (sim/core/
 * fd_place.h). The session's arena memfd is the first window's top fd,
 * SHIM_ARENA_FD: the shim answers a close, close_range, dup2 onto it or
 * FD_CLOEXEC of it without really doing it, so a program that closes
 * every fd it did not open keeps its children in the session. */
#define SHIM_FD_BASE   1024
#define SHIM_FD_END    2048
#define SHIM_FD_WINDOW 1024
#define SHIM_FD_MASK   0xfffffc00U
#define SHIM_ARENA_FD  (SHIM_FD_END - 1)
/* The second window lies below min(hard limit, this): the kernel's fd
 * table grows to the highest open fd, and every fork copies it. */
#define SHIM_FD_BASE2_CEIL 65536

/* The filter answers close(SHIM_PROBE_FD) with this errno, so a process
 * can tell that its tree already has the filter (filters survive exec and
 * must not be stacked twice). */
#define SHIM_PROBE_FD    0x7ffffff0
#define SHIM_PROBE_ERRNO 4000

/* Environment of the session's processes. */
#define PMUSIM_ENV_ARENA   "PMUSIM_ARENA_FD"   /* inherited memfd of the arena */
#define PMUSIM_ENV_SESSION "PMUSIM_SESSION"    /* address of struct shim_session */
#define PMUSIM_ENV_EXE     "PMUSIM_EXE"        /* the pmusim binary (re-exec) */
/* the host CPUs `pmusim run` may use, "0,1,...": its tree runs on those
 * numbered like the simulated CPUs, the emulators' helper threads
 * (access_replay.c) on any of these */
#define PMUSIM_ENV_HOST_CPUS "PMUSIM_HOST_CPUS"

/* fasync reasons one file may have in flight to its owner */
#define SHIM_SIGQ_LEN 64

#define SHIM_SESSION_MAGIC UINT64_C(0x6e6f69737365534d) /* "MSession" */

/* What the shim knows of one core file handle. */
struct shim_file {
	uint64_t ino;           /* inode of the pipe whose read end is the perf fd; 0: free */
	pid_t owner;            /* process that opened it (holds the first read end) */
	int owner_fd;           /* the perf fd in owner */
	pid_t target;           /* tid the event is attached to, 0 for CPU-wide */
	int wfd;                /* owner's write end, -1 once it is handed over */
	pid_t holder;           /* process holding the write end now */
	bool adopted;           /* the monitored task took a write end */
	bool async;             /* O_ASYNC (kept here: the pipe never has it) */
	bool on_opener;         /* the event's task is the opening process */
	bool counts_opener;     /* ... and it is a hardware/cache/raw event */
	/* F_SETOWN/F_SETSIG as set on the perf fd (for the fasync signal) */
	pid_t sig_pid;          /* >0 process, <0 process group, 0 none */
	bool sig_tid;           /* F_OWNER_TID */
	int sig;                /* F_SETSIG, 0: SIGIO */
	int sig_fd;             /* si_fd */
	pid_t sig_tgid;         /* process of the owner (a thread owner's tgid) */
	/* fasync signals not yet raised in the owner (session.c): reasons
	 * (POLL_IN..POLL_HUP) in order; producers serialise on sigq_lock, the
	 * owner's threads take entries by advancing sigq_head */
	uint32_t sigq_lock;
	uint32_t sigq_head, sigq_tail;
	uint32_t sigq_lost;     /* reasons dropped on a full queue */
	uint8_t sigq[SHIM_SIGQ_LEN];
};

struct shim_session {
	uint64_t magic;
	char exe[PATH_MAX];     /* pmusim, for the re-exec of monitored tasks */
	char log[PATH_MAX];     /* --log FILE or "" */
	int arena_fd;           /* the arena memfd's number in every process */
	int fd_base2;           /* the second window of perf fds, or 0 */
	struct shim_file files[PERF_CORE_MAX_FILES];
};

/* The session this process belongs to (after shim_session_join), or NULL. */
struct shim_session *shim_session_get(void);
/* Joins the session named by the environment: attaches the arena and the
 * core with machine (NULL: the shim's own hooks). Returns 0 or -errno;
 * -ENOENT when there is no session in the environment. */
int shim_session_join(const struct perf_machine *machine, struct perf_core **core);
/* The same for `pmusim exec --attach-arena FD`: the arena's memfd named
 * by the option (the session struct still comes from the environment). */
int shim_session_join_fd(int arena_fd, const struct perf_machine *machine,
			 struct perf_core **core);
/* Whether a core handle is a native client's file (a pipe of the shim):
 * its wakeups and signals go through shim_session_wakeup/_fasync. */
bool shim_session_owns(int handle);
/* The handle of a perf fd a process inherited from a native client (the
 * read end of a session pipe, found by inode), or -1. */
int shim_session_handle_of_fd(int fd);
/* Machine hooks for processes attached to a session (the shim and, for
 * emulated workloads, `pmusim exec --attach-arena`): a wakeup writes a
 * byte to the file's pipe (POLLIN); fasync sends the owner's signal. */
void shim_session_wakeup(void *ctx, int handle);
void shim_session_fasync(void *ctx, int handle, int si_code);
/* The owner's side of fasync: raises, in this thread, every queued
 * signal whose target it is (a process's main thread, or the F_OWNER_TID
 * thread), with the kernel's siginfo. Run by the shim's SIGSYS handler
 * on the session's poke (SI_QUEUE, SHIM_SESSION_MAGIC). */
unsigned shim_session_fasync_deliver(void);   /* returns how many it raised */
/* Emulated workload: the task tid is about to run emulated; take a write
 * end of the pipe of every file attached to it, so its exit (even a
 * crash) gives the perf fds POLLHUP. Returns how many it took. */
int shim_session_adopt(pid_t tid);
/* Whether fd lies in a window of perf fds of session s (shim_session_get):
 * the numbers the filter traps. */
bool shim_fd_in_window(const struct shim_session *s, long fd);
/* The second window's base for a hard RLIMIT_NOFILE of hard (0: none). */
int shim_fd_base2(long hard);
/* Places a dup of fd in a window of perf fds at or above min: the first,
 * else the second; the lowest free number, or with top the highest.
 * Returns the new fd or -errno (fd_place()). */
int shim_fd_place(int fd, int min, bool top, bool cloexec);
/* How shim_fd_place makes its syscalls in this process (the shim's
 * trampoline); NULL by default: the plain calls. */
void shim_session_set_sys(long (*sys)(long, long, long, long, long, long, long));
/* The write ends a monitored task took (shim_session_adopt): fds of this
 * process that are the session's and not the program's; own() is called
 * with each. For `pmusim exec --attach-arena`, which hides them (and the
 * arena fd it was given) from its guest. */
void shim_session_own_fds(void (*own)(void *ctx, int fd), void *ctx);
/* The ASan runtime of a sanitized build (pmusim, the shim), which leads
 * the tree's LD_PRELOAD before the shim: ASan must be a process's first
 * library. "" in a build without ASan. */
const char *shim_asan_runtime(void);
/* Appends one line to the session log (--log), if any. */
void shim_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
