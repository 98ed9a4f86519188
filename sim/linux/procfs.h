/*
 * procfs.h - the guest's own /proc/<pid> directory (procfs.c).
 *
 * The guest runs on host threads of the pmusim process, so the host's
 * /proc/self is pmusim's: same pid and fd table, but pmusim's memory, its
 * command line and its helper thread. The files a program reads about
 * itself are made to describe the guest, as the kernel would for the
 * emulated program; the others stay the host's (docs/machine.md).
 */
#ifndef PMUSIM_PROCFS_H
#define PMUSIM_PROCFS_H

#include <stdint.h>

struct guest_thread;

/* What a path names, for the path syscalls (procfs_classify). */
enum procfs_kind {
	PROCFS_HOST = 0,      /* anything else: the host's file */
	PROCFS_EXE,           /* the own exe link: the guest program */
	PROCFS_HIDDEN,        /* one of pmusim's fds or threads: ENOENT */
	/* directories whose entries getdents filters */
	PROCFS_DIR_FD,
	PROCFS_DIR_FDINFO,
	PROCFS_DIR_TASK,
	/* generated files (a read-only memfd made at open) */
	PROCFS_CPUINFO,
	PROCFS_MAPS,
	PROCFS_AUXV,
	PROCFS_CMDLINE,
	PROCFS_ENVIRON,
	PROCFS_STAT,
	PROCFS_STATUS,
	PROCFS_KALLSYMS,      /* the simulated kernel's (kernel_symbols.c) */
	PROCFS_TRACE_ID,      /* tracefs events/<system>/<name>/id and format */
	PROCFS_TRACE_FORMAT,  /* of the simulated kernel's tracepoints */
};
#define PROCFS_IS_DIR(k) ((k) >= PROCFS_DIR_FD && (k) <= PROCFS_DIR_TASK)
#define PROCFS_IS_GENERATED(k) ((k) >= PROCFS_CPUINFO)

/*
 * The part of path after the calling process's own /proc directory:
 * /proc/self/, /proc/thread-self/, /proc/PID/, each optionally followed by
 * task/TID/ of the calling thread. NULL if path is not under it.
 */
const char *procfs_self_rest(struct guest_thread *t, const char *path);

/* Classifies an absolute path as above (relative paths are the host's). */
enum procfs_kind procfs_classify(struct guest_thread *t, const char *path);

/* Opens a generated file of kind k (flags: the guest's O_CLOEXEC); path is
 * the path the guest gave (the host file it patches). Returns fd or -errno. */
long procfs_open_generated(struct guest_thread *t, enum procfs_kind k, const char *path,
			   int flags);

/* After an execve, before the new image runs: the generated files the
 * guest kept open describe the new image. */
void procfs_after_exec(struct guest_thread *t);

/* Notes that fd was opened on a directory of kind k (PROCFS_IS_DIR). */
void procfs_track_dir(struct guest_thread *t, enum procfs_kind k, long fd);

/* getdents/getdents64 (t->syscall_nr): passed to the host; on a tracked
 * directory the entries of pmusim's fds and threads are removed. */
long procfs_getdents(struct guest_thread *t, const uint64_t a[6]);

#endif
