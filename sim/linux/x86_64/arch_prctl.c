/*
 * x86_64/arch_prctl.c - arch_prctl: the FS and GS bases (TLS) and the
 * x86-64 feature queries, as do_arch_prctl_64() and do_arch_prctl_common().
 */
#include <asm/prctl.h>
#include <errno.h>
#include <sys/mman.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/sys_handlers.h"

#ifndef ARCH_GET_XCOMP_SUPP
#define ARCH_GET_XCOMP_SUPP 0x1021
#endif

/* do_arch_prctl_64() and do_arch_prctl_common() */
long sys_arch_prctl(struct guest_thread *t, const uint64_t a[6])
{
	uint64_t *out = (uint64_t *)(uintptr_t)a[1];

	switch (a[0]) {
	case ARCH_SET_FS:
		if (a[1] >= GUEST_TASK_SIZE)   /* TASK_SIZE_MAX */
			return -EPERM;
		t->fs_base = a[1];
		return vcpu_set_fs(t->cpu, a[1]);
	case ARCH_SET_GS:
		if (a[1] >= GUEST_TASK_SIZE)
			return -EPERM;
		t->gs_base = a[1];
		return vcpu_set_gs(t->cpu, a[1]);
	case ARCH_GET_FS:
	case ARCH_GET_GS:
		if (!guest_access_ok(t, a[1], 8, PROT_WRITE))
			return -EFAULT;
		*out = a[0] == ARCH_GET_FS ? vcpu_reg(t->cpu, UC_X86_REG_FS_BASE) :
					     vcpu_reg(t->cpu, UC_X86_REG_GS_BASE);
		return 0;
	case ARCH_GET_CPUID:
		return 1;                 /* CPUID does not fault */
	case ARCH_SET_CPUID:
		return -ENODEV;           /* no CPUID faulting, as on this host */
	case ARCH_GET_XCOMP_SUPP:
		if (!guest_access_ok(t, a[1], 8, PROT_WRITE))
			return -EFAULT;
		*out = 0x3;               /* x87 | SSE: the emulated CPU's state */
		return 0;
	default:
		return -EINVAL;
	}
}
