/*
 * sys_misc.c - prctl filtering, and the fixed answers for calls the guest
 * may not make on pmusim's behalf (x86-64's arch_prctl: x86_64/arch_prctl.c).
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sim/linux/guest.h"
#include "sim/linux/sys_handlers.h"

/* prctl: most options act on the calling host thread, which is the guest
 * thread; those that would change pmusim itself are refused. */
long sys_prctl(struct guest_thread *t, const uint64_t a[6])
{
	(void)t;
	switch (a[0]) {
	case PR_SET_MM:
		return -EPERM;            /* needs CAP_SYS_RESOURCE: refused */
	case PR_SET_SECCOMP:
		return -EINVAL;           /* a filter would bind pmusim's own calls */
	case PR_GET_TSC:
		if (!guest_access_ok(t, a[1], sizeof(int), PROT_WRITE))
			return -EFAULT;
		*(int *)(uintptr_t)a[1] = PR_TSC_ENABLE;
		return 0;
	case PR_SET_TSC:
		return a[1] == PR_TSC_ENABLE ? 0 : -EINVAL;
	default:
		{
			long r = syscall(SYS_prctl, a[0], a[1], a[2], a[3], a[4]);

			return r < 0 ? -errno : r;
		}
	}
}

long sys_enosys(struct guest_thread *t, const uint64_t a[6])
{
	(void)t; (void)a;
	return -ENOSYS;
}

long sys_eperm(struct guest_thread *t, const uint64_t a[6])
{
	(void)t; (void)a;
	return -EPERM;
}
