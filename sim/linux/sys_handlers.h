/*
 * sys_handlers.h - the syscall handlers of the ordinary areas (files, memory,
 * time, identity/limits/misc), one file per area: sys_file.c, sys_mem.c,
 * sys_time.c, sys_misc.c. Signal, thread and process handlers live in their
 * own area's headers (signal.h, thread*.h, process*.h).
 */
#ifndef PMUSIM_SYS_HANDLERS_H
#define PMUSIM_SYS_HANDLERS_H

#include <stdint.h>

struct guest_thread;

#define SYSCALL_DECL(name) long sys_##name(struct guest_thread *t, const uint64_t a[6])

/* sys_file.c */
/* What a guest path names (procfs.h): *out the pointer to pass to the host
 * (the program's path for /proc/self/exe), buf its copy (PATH_MAX bytes).
 * The procfs kind, or -EFAULT / -ENAMETOOLONG / -ENOENT. */
long guest_fix_path(struct guest_thread *t, uint64_t gp, const char **out, char *buf);
SYSCALL_DECL(open);
SYSCALL_DECL(write);
SYSCALL_DECL(openat);
SYSCALL_DECL(openat2);
SYSCALL_DECL(creat);
SYSCALL_DECL(truncate);
SYSCALL_DECL(ftruncate);
SYSCALL_DECL(close);
SYSCALL_DECL(close_range);
SYSCALL_DECL(dup2);
SYSCALL_DECL(dup3);
SYSCALL_DECL(fcntl);
SYSCALL_DECL(readlink);
SYSCALL_DECL(readlinkat);
SYSCALL_DECL(stat);
SYSCALL_DECL(lstat);
SYSCALL_DECL(newfstatat);
SYSCALL_DECL(statx);
SYSCALL_DECL(access);
SYSCALL_DECL(faccessat);
SYSCALL_DECL(faccessat2);

/* sys_mem.c */
SYSCALL_DECL(mmap);
SYSCALL_DECL(munmap);
SYSCALL_DECL(mprotect);
SYSCALL_DECL(pkey_mprotect);
SYSCALL_DECL(mremap);
SYSCALL_DECL(brk);
SYSCALL_DECL(madvise);
SYSCALL_DECL(shmat);
SYSCALL_DECL(shmdt);

/* sys_time.c */
SYSCALL_DECL(clock_gettime);
SYSCALL_DECL(gettimeofday);
SYSCALL_DECL(time);

/* sys_misc.c */
SYSCALL_DECL(arch_prctl);
SYSCALL_DECL(prctl);
SYSCALL_DECL(enosys);
SYSCALL_DECL(eperm);

#endif
