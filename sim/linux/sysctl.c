/*
 * sysctl.c - the guest's /proc/sys files that the simulated kernel owns:
 * kernel.perf_user_access, which drivers/perf/arm_pmuv3.c registers
 * (armv8_pmu_register_sysctl_table()) and only arm64 kernels have, so
 * only a guest on a PMUv3 model sees it. Its value is the core's
 * (perf_core_user_access); the host, an x86-64 kernel, has no such file.
 *
 * An open gives a memfd holding the value as proc_dointvec prints it
 * ("%d\n"); one opened for writing (root only: the file is 0644, root's)
 * is marked by its memfd name, and write() on it is the sysctl's write,
 * proc_dointvec_minmax() between SYSCTL_ZERO and SYSCTL_ONE
 * (armv8pmu_proc_user_access_handler()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/perf_core.h"
#include "sim/linux/guest.h"
#include "sim/linux/sys_perf.h"
#include "sim/linux/sysctl.h"

#define USER_ACCESS_PATH "/proc/sys/kernel/perf_user_access"
#define WRITABLE_NAME "pmusim:sysctl:perf_user_access"

/* Set once a writable sysctl file was opened: until then no write()
 * pays for the look at its fd. */
static bool any_writable;

/* The kernel's model is its core's: a `pmusim run` session's, or an
 * emulated ancestor's, whatever this process was started with. */
bool sysctl_owns(struct guest_thread *t, const char *path)
{
	struct perf_core *core = perf_guest_core();
	const struct pmu_model *m = core ? perf_core_model(core) : t->proc->model;

	return m && m->arch == PMU_ARCH_ARM_PMUV3 && !strcmp(path, USER_ACCESS_PATH);
}

long sysctl_open(struct guest_thread *t, const char *path, int flags)
{
	int acc = flags & O_ACCMODE, fd;
	struct perf_core *core = perf_guest_core();
	char text[16];
	int n;

	(void)t;
	(void)path;
	/* sysctl_perm(): 0644, root's: others may only read */
	if (acc != O_RDONLY && geteuid() != 0)
		return -EACCES;
	if ((flags & O_CREAT) && (flags & O_EXCL))
		return -EEXIST;
	fd = memfd_create(acc == O_RDONLY ? "pmusim:sysctl" : WRITABLE_NAME,
			  (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return -errno;
	n = snprintf(text, sizeof(text), "%d\n", core ? perf_core_user_access(core) : 0);
	if (acc != O_WRONLY && write(fd, text, (size_t)n) != n) {
		close(fd);
		return -EIO;
	}
	lseek(fd, 0, SEEK_SET);
	if (acc != O_RDONLY)
		any_writable = true;
	return fd;
}

/* Is fd a writable sysctl file (its memfd's name)? */
static bool writable_fd(long fd)
{
	char link[64], target[128];
	ssize_t n;

	if (!any_writable || fd < 0)
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%ld", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = 0;
	return !strncmp(target, "/memfd:" WRITABLE_NAME, strlen("/memfd:" WRITABLE_NAME));
}

/*
 * proc_dointvec_minmax() for one int: leading blanks, an optional sign,
 * decimal digits, then only blanks (a newline ends it); a value outside
 * 0..1 is -EINVAL, as is anything else. Returns len on success.
 */
static long write_user_access(const char *buf, size_t len)
{
	struct perf_core *core = perf_guest_core();
	size_t i = 0;
	bool neg = false, digits = false;
	long v = 0;

	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n'))
		i++;
	if (i < len && (buf[i] == '-' || buf[i] == '+'))
		neg = buf[i++] == '-';
	for (; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		digits = true;
		if (v < 1000000)
			v = v * 10 + (buf[i] - '0');
	}
	if (!digits)
		return -EINVAL;
	for (; i < len; i++)
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != 0)
			return -EINVAL;
	if (neg)
		v = -v;
	if (v < 0 || v > 1)
		return -EINVAL;
	/* a 0 also turns EL0 access off on every CPU at once
	 * (armv8pmu_disable_user_access_ipi()): the core's value is what
	 * every EL0 access checks */
	if (core)
		perf_core_set_user_access(core, (int)v);
	return (long)len;
}

long sysctl_write(struct guest_thread *t, const uint64_t a[6])
{
	char buf[64];
	size_t len = a[2];

	if (!writable_fd((long)a[0]))
		return SYSCTL_NOT_MINE;
	if (len >= sizeof(buf))
		return -EINVAL;
	if (len && !guest_access_ok(t, a[1], len, PROT_READ))
		return -EFAULT;
	memcpy(buf, (const void *)(uintptr_t)a[1], len);
	return write_user_access(buf, len);
}

/* proc_sys_getattr() gives every table entry its mode, root's uid and
 * size 0: so does kernel.shmmax (0644 in ipc_sysctls, on every kernel
 * with SysV IPC), the host's file stat and access stand on; not one that
 * a `pmusim run` session replaces with a file of its own. */
const char *sysctl_stat_twin(const char *path)
{
	(void)path;
	return "/proc/sys/kernel/shmmax";
}
