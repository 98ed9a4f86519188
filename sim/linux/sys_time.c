/*
 * sys_time.c - clocks. By default the guest reads the host clocks (wall time
 * must agree with file times, timeouts and the other processes). With
 * --virtual-time the clocks come from the virtual clock (retired
 * instructions x CPI at the model's frequency): CLOCK_MONOTONIC* and
 * CLOCK_BOOTTIME and the CPU-time clocks are virtual nanoseconds (a
 * relative sleep moves the first, not the CPU-time ones), CLOCK_REALTIME
 * is the host time at start plus them.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/sys_handlers.h"

static uint64_t virt_ns(struct guest_thread *t, clockid_t id)
{
	uint64_t ns = id == CLOCK_PROCESS_CPUTIME_ID || id == CLOCK_THREAD_CPUTIME_ID ?
		      vcpu_virtual_cpu_ns(t->cpu) : vcpu_virtual_ns(t->cpu);

	if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE || id == CLOCK_TAI)
		ns += t->proc->vt_epoch_ns;
	return ns;
}

long sys_clock_gettime(struct guest_thread *t, const uint64_t a[6])
{
	clockid_t id = (clockid_t)a[0];
	struct timespec *ts = (struct timespec *)(uintptr_t)a[1];
	uint64_t ns;

	if (!t->proc->opt.virtual_time || id < 0 || id > CLOCK_TAI)
		return guest_uptr_check(t, a) ?: (syscall(SYS_clock_gettime, a[0], a[1]) < 0 ? -errno : 0);
	if (!guest_access_ok(t, a[1], sizeof(*ts), PROT_WRITE))
		return -EFAULT;
	ns = virt_ns(t, id);
	ts->tv_sec = (time_t)(ns / 1000000000u);
	ts->tv_nsec = (long)(ns % 1000000000u);
	return 0;
}

long sys_gettimeofday(struct guest_thread *t, const uint64_t a[6])
{
	struct timeval *tv = (struct timeval *)(uintptr_t)a[0];
	uint64_t ns;

	if (!t->proc->opt.virtual_time)
		return guest_uptr_check(t, a) ?: (syscall(SYS_gettimeofday, a[0], a[1]) < 0 ? -errno : 0);
	if (a[1] && !guest_access_ok(t, a[1], sizeof(struct timezone), PROT_WRITE))
		return -EFAULT;
	if (a[1])
		syscall(SYS_gettimeofday, NULL, a[1]);
	if (!tv)
		return 0;
	if (!guest_access_ok(t, a[0], sizeof(*tv), PROT_WRITE))
		return -EFAULT;
	ns = virt_ns(t, CLOCK_REALTIME);
	tv->tv_sec = (time_t)(ns / 1000000000u);
	tv->tv_usec = (long)(ns % 1000000000u / 1000);
	return 0;
}

long sys_time(struct guest_thread *t, const uint64_t a[6])
{
	long s;

	if (!t->proc->opt.virtual_time)
		return guest_uptr_check(t, a) ?: syscall(SYS_time, a[0]);
	s = (long)(virt_ns(t, CLOCK_REALTIME) / 1000000000u);
	if (a[0]) {
		if (!guest_access_ok(t, a[0], sizeof(long), PROT_WRITE))
			return -EFAULT;
		*(long *)(uintptr_t)a[0] = s;
	}
	return s;
}
