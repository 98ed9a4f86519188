/*
 * uaccess.c - copies between the SIGSYS handler and the caller's memory
 * (uaccess.h). The handler runs in the caller's process, so a direct
 * memcpy from a bad pointer would crash the program where the kernel
 * returns EFAULT. process_vm_readv/process_vm_writev on the own pid (made
 * from the trampoline, which the filter passes) fault the way
 * copy_from_user/copy_to_user do: a page that is not mapped, or not
 * readable (writable), ends the copy, the call reports a short count,
 * and nothing is signalled. The own thread group passes
 * ptrace_may_access() without any LSM or Yama check, and a CLONE_VM child
 * (vfork, posix_spawn) reads the memory it shares.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "syscall_shim/tramp.h"
#include "syscall_shim/uaccess.h"

#define UA_PAGE 4096UL  /* x86-64 PAGE_SIZE: the unit of a fault */

/* One process_vm_readv/writev of up to len bytes; returns the bytes
 * moved (short at the first fault) or -errno. */
static long vm_copy(long nr, void *local, uint64_t remote, size_t len)
{
	struct iovec l = { local, len }, r = { (void *)(uintptr_t)remote, len };
	long n = TSYS6(nr, TSYS0(SYS_getpid), &l, 1, &r, 1, 0);

	if (n == -ENOSYS || n == -EPERM) {
		/* a host (a container's own filter) without these calls: the
		 * caller's memory as is, as before */
		if (nr == SYS_process_vm_readv)
			memcpy(local, (const void *)(uintptr_t)remote, len);
		else
			memcpy((void *)(uintptr_t)remote, local, len);
		return (long)len;
	}
	return n;
}

int shim_copy_from(void *dst, uint64_t uaddr, size_t len)
{
	if (!len)
		return 0;
	return vm_copy(SYS_process_vm_readv, dst, uaddr, len) == (long)len ? 0 : -EFAULT;
}

/*
 * process_vm_writev pins the pages it writes, which costs more than the
 * trap itself (a perf read() went from 1.0x to 1.55x of the trap). Faults
 * come a page at a time, so one probe per page the buffer touches tells:
 * time(2) stores its 8 bytes with put_user(), a write fault exactly as
 * copy_to_user's. Then a plain copy. A buffer another thread unmaps in
 * between still faults in the shim; a probe that fails takes the exact
 * path (what lies before the fault is written, as copy_to_user does).
 */
int shim_copy_to(uint64_t uaddr, const void *src, size_t len)
{
	uint64_t end = uaddr + len;

	if (!len)
		return 0;
	if (len >= 8 && end > uaddr) {
		uint64_t page;

		for (page = uaddr & ~(uint64_t)(UA_PAGE - 1); page < end; page += UA_PAGE) {
			uint64_t at = page < uaddr ? uaddr : page;

			if (at + 8 > end)
				at = end - 8;
			if (TSYS1(SYS_time, at) < 0)
				break;
		}
		if (page >= end) {
			memcpy((void *)(uintptr_t)uaddr, src, len);
			return 0;
		}
	}
	return vm_copy(SYS_process_vm_writev, (void *)src, uaddr, len) == (long)len ? 0 : -EFAULT;
}

/* Reads a string's bytes in chunks (short reads stop at a fault, so a
 * string at the end of the last readable page is still found). */
bool shim_str_readable(uint64_t uaddr)
{
	char chunk[256];

	for (int i = 0; i < 1024; i++) {     /* MAX_ARG_STRLEN: 32 pages */
		long n = vm_copy(SYS_process_vm_readv, chunk, uaddr, sizeof(chunk));

		if (n <= 0)
			return false;
		if (memchr(chunk, 0, (size_t)n))
			return true;
		uaddr += (uint64_t)n;
	}
	return false;
}

bool shim_strv_readable(uint64_t uaddr)
{
	uint64_t v[32];

	if (!uaddr)
		return true;    /* execve takes a NULL vector as empty */
	for (;;) {
		long n = vm_copy(SYS_process_vm_readv, v, uaddr, sizeof(v));

		if (n < (long)sizeof(v[0]))
			return false;
		for (long i = 0; i < n / (long)sizeof(v[0]); i++) {
			if (!v[i])
				return true;
			if (!shim_str_readable(v[i]))
				return false;
		}
		uaddr += (uint64_t)n & ~(sizeof(v[0]) - 1);
	}
}

static int ua_from(void *ctx, void *dst, uint64_t uaddr, size_t len)
{
	(void)ctx;
	return shim_copy_from(dst, uaddr, len);
}

static int ua_to(void *ctx, uint64_t uaddr, const void *src, size_t len)
{
	(void)ctx;
	return shim_copy_to(uaddr, src, len);
}

const struct perf_uaccess shim_uaccess = { .copy_from = ua_from, .copy_to = ua_to, .ctx = NULL };
