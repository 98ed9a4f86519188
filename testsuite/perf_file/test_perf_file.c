/*
 * test_perf_file.c - the perf file layer (sim/perf_file) over a host of
 * plain pipes in this process, table-driven where the answers are the
 * kernel's: the errnos of what perf_fops lacks, fasync's siginfo
 * (send_sigio_to_task, band_table), select's sets (do_select); and the
 * file references an fd table holds through install, dup, dup2,
 * close_range, fork and a ring mapping that outlives its fd (the event
 * lives until its last reference, perf_release).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "pmu_models/pmu_model.h"
#include "sim/perf_file/perf_file.h"
#include "sim/synthetic/synthetic_machine.h"

/* ---- the host: pipes' read ends, slot = fd, flat memory ---- */

#define SLOTS 1024
static struct perf_fd_slot slots[SLOTS];
static bool async_on[PERF_CORE_MAX_FILES];
static int put_calls;

static long h_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long r = syscall(nr, a1, a2, a3, a4, a5, a6);

	return r < 0 ? -errno : r;
}

static long h_pass(void *ctx, long nr, const long a[6])
{
	(void)ctx;
	return h_sys(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int h_copy_from(void *ctx, void *dst, uint64_t uaddr, size_t len)
{
	(void)ctx;
	if (!uaddr)
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)uaddr, len);
	return 0;
}

static int h_copy_to(void *ctx, uint64_t uaddr, const void *src, size_t len)
{
	(void)ctx;
	if (!uaddr)
		return -EFAULT;
	memcpy((void *)(uintptr_t)uaddr, src, len);
	return 0;
}

static long h_make_fd(void *ctx, int h, unsigned long flags, uint64_t *tag)
{
	int p[2];

	(void)ctx;
	(void)h;
	(void)flags;
	if (pipe(p))
		return -errno;
	close(p[1]);
	*tag = 1;
	return p[0];
}

static long h_dup_fd(void *ctx, long fd, long min, bool cloexec)
{
	(void)ctx;
	return h_sys(SYS_fcntl, fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, min, 0, 0, 0);
}

static long h_slot(long fd)
{
	return fd >= 0 && fd < SLOTS ? fd : -1;
}

static long h_slot_fd(long i)
{
	return i;
}

static bool h_async(void *ctx, int h)
{
	(void)ctx;
	return async_on[h];
}

static void h_set_async(void *ctx, int h, long fd, bool on)
{
	(void)ctx;
	(void)fd;
	async_on[h] = on;
}

static void h_put(void *ctx, int h)
{
	(void)ctx;
	(void)h;
	put_calls++;
}

static long h_map_ring(void *ctx, struct perf_files *pf, const long a[6], int memfd, int64_t off,
		       bool *tracked)
{
	void *p = mmap(NULL, (size_t)a[1], (int)a[2], MAP_SHARED, memfd, off);

	(void)ctx;
	(void)pf;
	(void)tracked;
	return p == MAP_FAILED ? -errno : (long)(uintptr_t)p;
}

static struct perf_files pf;

static unsigned h_poll(void *ctx, long fd, int h, short revents)
{
	(void)ctx;
	(void)fd;
	(void)revents;
	return perf_sys_poll(pf.core, h);
}

static long h_poll_wait(void *ctx, struct pollfd *fds, unsigned long n, int64_t ns)
{
	(void)ctx;
	(void)fds;
	(void)n;
	(void)ns;
	return -EINTR;
}

static const struct perf_file_host host = {
	.sys = h_sys, .pass = h_pass, .copy_from = h_copy_from, .copy_to = h_copy_to,
	.make_fd = h_make_fd, .dup_fd = h_dup_fd, .slot = h_slot, .slot_fd = h_slot_fd,
	.async = h_async, .set_async = h_set_async, .put = h_put, .map_ring = h_map_ring,
	.poll = h_poll, .poll_wait = h_poll_wait,
};

static struct perf_files pf = { .host = &host, .slots = slots, .nr_slots = SLOTS, .max_rings = 8 };
static struct synthetic_machine sm;
static struct perf_task *task;

static int setup(void **state)
{
	struct perf_core_config cfg = { .model = pmu_model_find("skylake"), .nr_cpus = 1,
					.paranoid = -1 };
	struct perf_machine m;
	struct perf_core *core;

	(void)state;
	memset(slots, 0, sizeof(slots));
	memset(async_on, 0, sizeof(async_on));
	sm.profile = synthetic_default_profile;
	m = synthetic_machine_ops(&sm);
	if (!cfg.model || perf_core_create(&cfg, &m, &core))
		return -1;
	sm.core = core;
	pf.core = core;
	task = perf_task_create(core, 100, 100, (struct perf_cred){ .uid = 0, .cap_perfmon = true });
	perf_cpu_switch_to(perf_core_cpu(core, 0), task);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	perf_core_destroy(pf.core);
	pf.core = NULL;
	return 0;
}

/* A sampling instructions event on the task, installed as a perf fd. */
static long open_fd(int *h)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				     .config = PERF_COUNT_HW_INSTRUCTIONS, .sample_period = 1000 };

	*h = perf_sys_event_open(pf.core, task, &perf_uaccess_direct, (uint64_t)(uintptr_t)&a, 0,
				 -1, -1, 0);
	assert_true(*h >= 0);
	return perf_fd_install(&pf, NULL, *h, 0);
}

static bool alive(int h)
{
	return perf_file_event(pf.core, h) != NULL;
}

/* ---- rows ---- */

struct no_op_row {
	int line;
	const char *kernel;
	long nr;
	long a[6];
	long want;
};

static const struct no_op_row no_op_rows[] = {
	{ __LINE__, "vfs_write: no FMODE_CAN_WRITE", SYS_write, { 0 }, -EINVAL },
	{ __LINE__, "vfs_writev", SYS_writev, { 0 }, -EINVAL },
	{ __LINE__, "ksys_pread64: a negative position first", SYS_pread64, { 0, 0, 8, -1 }, -EINVAL },
	{ __LINE__, "ksys_pread64: no FMODE_PREAD", SYS_pread64, { 0, 0, 8, 0 }, -ESPIPE },
	{ __LINE__, "ksys_pwrite64: no FMODE_PWRITE", SYS_pwrite64, { 0, 0, 8, 4096 }, -ESPIPE },
	{ __LINE__, "ksys_lseek: whence past SEEK_MAX", SYS_lseek, { 0, 0, SEEK_HOLE + 1 }, -EINVAL },
	{ __LINE__, "vfs_llseek: no FMODE_LSEEK", SYS_lseek, { 0, 0, SEEK_SET }, -ESPIPE },
	{ __LINE__, "do_preadv: no FMODE_PREAD", SYS_preadv, { 0 }, -ESPIPE },
	{ __LINE__, "do_preadv: a negative position", SYS_preadv, { 0, 0, 1, -2 }, -EINVAL },
	{ __LINE__, "do_preadv2: position -1 is readv", SYS_preadv2, { 0, 0, 1, -1 }, 0 },
	{ __LINE__, "do_preadv2: at a position", SYS_preadv2, { 0, 0, 1, 8 }, -ESPIPE },
	{ __LINE__, "do_pwritev2: position -1 is writev", SYS_pwritev2, { 0, 0, 1, -1 }, -EINVAL },
	{ __LINE__, "do_sys_ftruncate: not opened for writing", SYS_ftruncate, { 0 }, -EINVAL },
	{ __LINE__, "vfs_fsync_range: no ->fsync", SYS_fsync, { 0 }, -EINVAL },
	{ __LINE__, "vfs_fsync_range: no ->fsync", SYS_fdatasync, { 0 }, -EINVAL },
	{ __LINE__, "read is perf_read: not answered here", SYS_read, { 0 }, 0 },
};

static void test_no_op_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(no_op_rows) / sizeof(no_op_rows[0]); i++) {
		const struct no_op_row *r = &no_op_rows[i];

		if (perf_fd_no_op(r->nr, r->a) != r->want)
			fail_msg("line %d (%s): %ld, want %ld", r->line, r->kernel,
				 perf_fd_no_op(r->nr, r->a), r->want);
	}
}

struct sigio_row {
	int line;
	int fsig, reason;
	int signo, code;
	long band;
};

/* send_sigio_to_task(): band_table[reason - POLL_IN]; SI_SIGIO for a
 * signal with codes of its own; without F_SETSIG, SIGIO with SI_KERNEL */
static const struct sigio_row sigio_rows[] = {
	{ __LINE__, 0, POLL_IN, SIGIO, SI_KERNEL, 0 },
	{ __LINE__, 40, POLL_IN, 40, POLL_IN, POLLIN | POLLRDNORM },
	{ __LINE__, 40, POLL_HUP, 40, POLL_HUP, POLLHUP | POLLERR },
	{ __LINE__, SIGIO, POLL_IN, SIGIO, POLL_IN, POLLIN | POLLRDNORM },
	{ __LINE__, SIGTRAP, POLL_IN, SIGTRAP, SI_SIGIO, POLLIN | POLLRDNORM },
	{ __LINE__, SIGSEGV, POLL_HUP, SIGSEGV, SI_SIGIO, POLLHUP | POLLERR },
	{ __LINE__, SIGUSR1, POLL_IN, SIGUSR1, POLL_IN, POLLIN | POLLRDNORM },
};

static void test_sigio_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sigio_rows) / sizeof(sigio_rows[0]); i++) {
		const struct sigio_row *r = &sigio_rows[i];
		siginfo_t si;
		int sig = perf_fd_sigio_info(r->fsig, 7, r->reason, &si);

		if (sig != r->signo || si.si_signo != r->signo || si.si_code != r->code ||
		    (r->code != SI_KERNEL && (si.si_band != r->band || si.si_fd != 7)))
			fail_msg("line %d: signal %d code %d band %#lx fd %d", r->line, sig,
				 si.si_code, (long)si.si_band, si.si_fd);
	}
}

struct select_row {
	int line;
	const char *what;
	short events_in;        /* which set the fd is in: POLLIN, POLLOUT, POLLPRI */
	short revents;
	long want;              /* the count, or -errno */
};

/* do_select(): POLLIN_SET, POLLOUT_SET, POLLEX_SET; an fd not open EBADF */
static const struct select_row select_rows[] = {
	{ __LINE__, "EPOLLHUP is readable", POLLIN, POLLHUP, 1 },
	{ __LINE__, "EPOLLERR is readable", POLLIN, POLLERR, 1 },
	{ __LINE__, "EPOLLERR is writable", POLLOUT, POLLERR, 1 },
	{ __LINE__, "EPOLLHUP is not writable", POLLOUT, POLLHUP, 0 },
	{ __LINE__, "EPOLLPRI is exceptional", POLLPRI, POLLPRI, 1 },
	{ __LINE__, "EPOLLIN is not exceptional", POLLPRI, POLLIN, 0 },
	{ __LINE__, "not open", POLLIN, POLLNVAL, -EBADF },
};

static void test_select_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(select_rows) / sizeof(select_rows[0]); i++) {
		const struct select_row *r = &select_rows[i];
		unsigned long set[3][2] = { { 0 } }, *sets[3] = { set[0], set[1], set[2] };
		int k = r->events_in == POLLIN ? 0 : r->events_in == POLLOUT ? 1 : 2;
		struct pollfd fds[4];
		int hs[4];
		unsigned long n;
		long got;

		set[k][0] = 1ul << 5;
		n = perf_fd_select_to_poll(&pf, NULL, 6, sets, fds, hs);
		assert_int_equal(n, 1);
		assert_int_equal(fds[0].fd, 5);
		fds[0].revents = r->revents;
		got = perf_fd_poll_to_select(6, sets, fds, n);
		if (got != r->want || (got == 1 && set[k][0] != 1ul << 5) || (got == 0 && set[k][0]))
			fail_msg("line %d (%s): %ld, want %ld", r->line, r->what, got, r->want);
	}
}

/* install, dup, dup2 over it, close: the last reference releases */
static void test_references(void **state)
{
	int h, plain[2];
	long fd, d;
	long a[6] = { 0 };

	(void)state;
	fd = open_fd(&h);
	assert_true(fd >= 0);
	assert_int_equal(perf_fd_handle(&pf, NULL, fd), h);
	d = perf_fd_dup(&pf, NULL, fd, h, 0, false);
	assert_true(d >= 0);
	assert_int_equal(perf_fd_handle(&pf, NULL, d), h);
	assert_int_equal(perf_fd_close(&pf, NULL, fd), 0);
	assert_int_equal(perf_fd_handle(&pf, NULL, fd), -1);
	assert_true(alive(h));                  /* the dup holds it */
	/* dup2 of a plain pipe over the dup: do_dup2() closes the file */
	assert_int_equal(pipe(plain), 0);
	a[0] = plain[0];
	a[1] = d;
	assert_int_equal(perf_fd_dup2_done(&pf, NULL, dup2(plain[0], (int)d), a, -1, h), d);
	assert_false(alive(h));
	assert_int_equal(perf_fd_handle(&pf, NULL, d), -1);
	close(plain[0]);
	close(plain[1]);
	close((int)d);
}

/* fork's references and their undo; close_range; exit */
static void test_fork_close_range(void **state)
{
	int h, hs[SLOTS];
	long fd = open_fd(&h), a[6] = { 0 };

	(void)state;
	perf_fd_fork(&pf, NULL, false);         /* dup_fd(): the child's copy */
	assert_int_equal(perf_fd_close(&pf, NULL, fd), 0);
	assert_true(alive(h));
	fd = open_fd(&h);
	perf_fd_fork(&pf, NULL, false);
	perf_fd_fork(&pf, NULL, true);          /* the fork failed */
	perf_fd_snapshot(&pf, NULL, (unsigned)fd, (unsigned)fd, hs);
	a[0] = fd;
	a[1] = fd;
	perf_fd_close_range_done(&pf, NULL, syscall(SYS_close_range, fd, fd, 0), a, hs);
	assert_false(alive(h));
	fd = open_fd(&h);
	assert_int_equal(perf_fd_release(&pf, NULL, false, NULL, 0), 1);
	assert_false(alive(h));
	close((int)fd);
}

/* a ring mapping holds the file past its fd's close; munmap that splits it
 * is EINVAL (perf_mmap_may_split); PROT_EXEC is EPERM (path_noexec) */
static void test_ring(void **state)
{
	int h;
	long fd = open_fd(&h), a[6] = { 0, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 0, 0 };
	long addr;
	int puts_before;

	(void)state;
	a[4] = fd;
	a[2] |= PROT_EXEC;
	assert_int_equal(perf_fd_mmap(&pf, NULL, task, h, a), -EPERM);
	a[2] &= ~PROT_EXEC;
	a[5] = 1;
	assert_int_equal(perf_fd_mmap(&pf, NULL, task, h, a), -EINVAL);
	a[5] = 0;
	addr = perf_fd_mmap(&pf, NULL, task, h, a);
	assert_true(addr > 0);
	assert_int_equal(perf_fd_close(&pf, NULL, fd), 0);
	assert_true(alive(h));
	assert_int_equal(perf_fd_munmap(&pf, NULL, (uint64_t)addr, 4096), -EINVAL);
	assert_true(alive(h));
	puts_before = put_calls;
	assert_int_equal(perf_fd_munmap(&pf, NULL, (uint64_t)addr, 2 * 4096), 0);
	assert_false(alive(h));
	assert_int_equal(put_calls, puts_before + 1);
}

/* F_SETFL's O_ASYNC and FIOASYNC are perf_fasync(); F_GETFL shows it */
static void test_async(void **state)
{
	int h, on = 0;
	long fd = open_fd(&h);
	long a[6] = { fd, F_SETFL, O_ASYNC | O_NONBLOCK };

	(void)state;
	assert_int_equal(perf_fd_fcntl(&pf, NULL, h, a), 0);
	assert_true(async_on[h]);
	a[1] = F_GETFL;
	assert_true(perf_fd_fcntl(&pf, NULL, h, a) & O_ASYNC);
	assert_true(perf_fd_fcntl(&pf, NULL, h, a) & O_NONBLOCK);
	a[1] = FIOASYNC;
	a[2] = (long)(uintptr_t)&on;
	assert_int_equal(perf_fd_ioctl(&pf, NULL, task, &perf_uaccess_direct, h, a, NULL), 0);
	assert_false(async_on[h]);
	a[2] = 0;                               /* get_user(): EFAULT */
	assert_int_equal(perf_fd_ioctl(&pf, NULL, task, &perf_uaccess_direct, h, a, NULL), -EFAULT);
	a[1] = F_GETFL;
	assert_false(perf_fd_fcntl(&pf, NULL, h, a) & O_ASYNC);
	/* SET_OUTPUT to an fd that is no perf file: perf_fget_light's EBADF */
	a[1] = PERF_EVENT_IOC_SET_OUTPUT;
	a[2] = 0;
	assert_int_equal(perf_fd_ioctl(&pf, NULL, task, &perf_uaccess_direct, h, a, NULL), -EBADF);
	assert_int_equal(perf_fd_close(&pf, NULL, fd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_op_rows),
		cmocka_unit_test(test_sigio_rows),
		cmocka_unit_test(test_select_rows),
		cmocka_unit_test_setup_teardown(test_references, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_close_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_async, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
