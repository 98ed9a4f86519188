/*
 * sysctl.h - the guest's /proc/sys files of the simulated kernel
 * (sysctl.c): kernel.perf_user_access for a guest on a PMUv3 model.
 */
#ifndef PMUSIM_SYSCTL_H
#define PMUSIM_SYSCTL_H

#include <stdbool.h>
#include <stdint.h>

struct guest_thread;

/* Does the simulated kernel serve this absolute path for t? */
bool sysctl_owns(struct guest_thread *t, const char *path);
/* Opens it with the guest's open flags: fd or -errno (-EACCES for a
 * write by anyone but root). */
long sysctl_open(struct guest_thread *t, const char *path, int flags);
/* A host file that stat(2) and access(2) of path (sysctl_owns) answer
 * for: one of the host's /proc/sys/kernel files, 0644 and root's as
 * every entry of a kernel's ctl_table with mode 0644 is. */
const char *sysctl_stat_twin(const char *path);

/* write(fd, buf, len) of the guest: the sysctl's write when fd is a
 * writable sysctl file (len or -errno), else SYSCTL_NOT_MINE. */
#define SYSCTL_NOT_MINE (-0x7fffffffL)
long sysctl_write(struct guest_thread *t, const uint64_t a[6]);

#endif
