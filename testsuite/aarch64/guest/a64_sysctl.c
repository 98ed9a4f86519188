/*
 * a64_sysctl.c - guest program: /proc/sys/kernel/perf_user_access as an
 * arm64 kernel has it (drivers/perf/arm_pmuv3.c: armv8_pmu_sysctl_table,
 * 0644, proc_dointvec_minmax between 0 and 1). argv[1]: the value the
 * simulated kernel was started with. The file reads it as "%d\n"; anyone
 * but root is refused a write open (EACCES). As root: "1" turns EL0
 * access on (a user-read event's page gets its counter's index and an mrs
 * of it through PMSELR_EL0 and PMXEVCNTR_EL0 reads), "2" and "x" are EINVAL and change nothing, "0" turns it
 * off again (the mrs is SIGILL, ILL_ILLOPC). stat and access see a
 * 0644 file of root's. Exits 1 on a difference.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "a64_perf.h"

#define PATH "/proc/sys/kernel/perf_user_access"

static int ok = 1;

static void expect(const char *what, long got, long want)
{
	printf("%-36s %6ld expected %6ld %s\n", what, got, want, got == want ? "ok" : "WRONG");
	ok &= got == want;
}

/* The value the file reads, or -1 - errno */
static long read_value(void)
{
	char buf[16] = "";
	int fd = open(PATH, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1 - errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n != 2 || buf[1] != '\n')
		return -1000;
	return buf[0] - '0';
}

/* write(2)'s result for text, or -errno (of the open or the write) */
static long write_value(const char *text)
{
	int fd = open(PATH, O_WRONLY);
	long r;

	if (fd < 0)
		return -errno;
	r = write(fd, text, strlen(text));
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	long start = argc > 1 ? atol(argv[1]) : 0;
	struct perf_event_attr a;
	struct perf_event_mmap_page *pg;
	struct sigaction sa;
	uint64_t v = 0;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = a64_on_ill;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sa, NULL);

	expect("reads the kernel's value", read_value(), start);
	{
		struct stat st, dir;

		/* proc_sys_getattr(): the table's 0644, root's, size 0; root
		 * as its directory's owner shows it (the overflow uid in a
		 * user namespace that does not map root) */
		expect("stat", stat(PATH, &st), 0);
		expect("its mode", st.st_mode, S_IFREG | 0644);
		expect("stat of /proc/sys/kernel", stat("/proc/sys/kernel", &dir), 0);
		expect("its owner", st.st_uid, dir.st_uid);
		expect("its size", st.st_size, 0);
		expect("access(R_OK)", access(PATH, R_OK), 0);
		expect("access(W_OK)", access(PATH, W_OK) ? -errno : 0, geteuid() ? -EACCES : 0);
	}
	if (geteuid() != 0) {
		expect("write open by a user", write_value("1"), -EACCES);
		expect("value unchanged", read_value(), start);
		return !ok;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_RAW;
	a.config = 0x08;                  /* INST_RETIRED */
	a.config1 = 0x2;                  /* rdpmc */
	a.exclude_kernel = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	pg = fd >= 0 ? mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	if (pg == MAP_FAILED) {
		printf("cannot open or map a user-read event\n");
		return 1;
	}

	expect("write \"1\\n\"", write_value("1\n"), 2);
	expect("reads 1", read_value(), 1);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);   /* the page's index is updated */
	/* hw.idx of an event counter: 1..6 (a profiler's own events may
	 * hold the first ones) */
	expect("page index is an event counter's", pg->index >= 1 && pg->index <= 6, 1);
	a64_ill_traps = 0;
	__asm__ volatile("msr pmselr_el0, %1\n\tisb\n\tmrs %0, pmxevcntr_el0"
			 : "+r"(v) : "r"((uint64_t)pg->index - 1));
	expect("its mrs: no SIGILL", a64_ill_traps, 0);

	expect("write \"2\"", write_value("2"), -EINVAL);
	expect("write \"x\"", write_value("x"), -EINVAL);
	expect("still 1", read_value(), 1);

	expect("write \"0\"", write_value("0"), 1);
	expect("reads 0", read_value(), 0);
	a64_ill_traps = 0;
	__asm__ volatile("mrs %0, pmevcntr0_el0" : "+r"(v));
	expect("mrs pmevcntr0_el0: SIGILL", a64_ill_traps, 1);
	munmap(pg, sysconf(_SC_PAGESIZE));
	close(fd);
	if (start)
		write_value("1");
	return !ok;
}
