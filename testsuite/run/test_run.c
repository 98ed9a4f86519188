/*
 * test_run.c - end-to-end tests of `pmusim run` and the seccomp shim:
 * errors and exit statuses, the virtual sysfs/procfs, the perf fd
 * contract as a native client sees it (shim_client), Debian's unmodified
 * perf, and the shim leaving unmonitored work alone. Table-driven: each
 * row carries its __LINE__ and the kernel (or bash) function its expected
 * value comes from.
 *
 * Environment (set by meson.build): PMUSIM, the binary; SHIM_CLIENT.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

struct result {
	int status;             /* waitpid status */
	char out[1 << 20];
	char err[16384];
};

static const char *pmusim(void)
{
	const char *p = getenv("PMUSIM");

	return p ? p : "pmusim";
}

/* Runs argv with stdin from /dev/null, collecting stdout and stderr; kills
 * it after timeout_s. */
static void run(char *const argv[], int timeout_s, struct result *r)
{
	int po[2], pe[2];
	size_t no = 0, ne = 0;
	time_t end = time(NULL) + timeout_s;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	assert_int_equal(pipe2(po, O_CLOEXEC), 0);
	assert_int_equal(pipe2(pe, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit nocore = { 0, 0 };
		int null = open("/dev/null", O_RDONLY);

		setrlimit(RLIMIT_CORE, &nocore);
		dup2(null, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	struct pollfd pf[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
	int open_fds = 2;

	while (open_fds && time(NULL) < end) {
		if (poll(pf, 2, 1000) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			char *buf = i ? r->err : r->out;
			size_t *n = i ? &ne : &no, cap = i ? sizeof(r->err) : sizeof(r->out);
			ssize_t k;

			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP)))
				continue;
			k = read(pf[i].fd, buf + *n, cap - 1 - *n);
			if (k <= 0) {
				close(pf[i].fd);
				pf[i].fd = -1;
				open_fds--;
			} else {
				*n += (size_t)k;
			}
		}
	}
	if (open_fds)
		kill(pid, SIGKILL);
	waitpid(pid, &r->status, 0);
	for (int i = 0; i < 2; i++)
		if (pf[i].fd >= 0)
			close(pf[i].fd);
}

static void dump(const struct result *r)
{
	print_message("--- status %#x\n--- stdout:\n%s--- stderr:\n%s", r->status, r->out, r->err);
}

/* Runs script with /bin/sh under pmusim run. */
static void run_under(const char *script, int timeout_s, struct result *r)
{
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)"/bin/sh",
			 (char *)"-c", (char *)script, NULL };

	run(argv, timeout_s, r);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- errors: one line, exit 2, or the shell's 126/127 ---- */

static const struct {
	int line;
	const char *name, *from;
	const char *args[6];
	int status;
	const char *err;        /* the line starts with this */
} error_rows[] = {
	{ __LINE__, "unknown model", "cmd_run()", { "--model", "nosuch", "--", "true" }, 2,
	  "pmusim: unknown model 'nosuch'" },
	{ __LINE__, "unknown option", "getopt_long", { "--bogus", "--", "true" }, 2,
	  "pmusim: run: unknown option '--bogus'" },
	{ __LINE__, "no command", "cmd_run()", { "--" }, 2, "pmusim: run: no command" },
	{ __LINE__, "missing argument", "getopt_long", { "--counters" }, 2,
	  "pmusim: option '--counters' needs an argument" },
	{ __LINE__, "zero counters", "cmd_run()", { "--counters", "0", "--", "true" }, 2,
	  "pmusim: --counters: '0' is not a number" },
	{ __LINE__, "bad frequency", "cmd_run()", { "--freq", "fast", "--", "true" }, 2,
	  "pmusim: --freq: 'fast'" },
	{ __LINE__, "bad paranoid", "cmd_run()", { "--paranoid", "9", "--", "true" }, 2,
	  "pmusim: --paranoid: '9'" },
	{ __LINE__, "path not found", "bash execute_disk_command()", { "--", "/nonexistent/x" }, 127,
	  "pmusim: /nonexistent/x: No such file or directory" },
	{ __LINE__, "command not found", "bash search_for_command()",
	  { "--", "no-such-command-pmusim" }, 127, "pmusim: no-such-command-pmusim: command not found" },
	{ __LINE__, "not executable", "bash shell_execve() EACCES", { "--", "/etc/passwd" }, 126,
	  "pmusim: /etc/passwd: Permission denied" },
	{ __LINE__, "directory", "bash shell_execve() EISDIR", { "--", "/tmp" }, 126,
	  "pmusim: /tmp: Is a directory" },
};

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(error_rows) / sizeof(error_rows[0]); i++) {
		char *argv[10] = { (char *)pmusim(), (char *)"run" };
		static struct result r;
		int n = 2;

		for (int j = 0; error_rows[i].args[j]; j++)
			argv[n++] = (char *)error_rows[i].args[j];
		run(argv, 20, &r);
		if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != error_rows[i].status ||
		    strncmp(r.err, error_rows[i].err, strlen(error_rows[i].err)) ||
		    count_lines(r.err) != 1) {
			dump(&r);
			fail_msg("row at line %d (%s, %s)", error_rows[i].line, error_rows[i].name,
				 error_rows[i].from);
		}
	}
}

/* ---- the command's exit status, or its death by signal ---- */

static const struct {
	int line;
	const char *name, *script;
	int exit_code, sig;
} status_rows[] = {
	{ __LINE__, "exit 0", "exit 0", 0, 0 },
	{ __LINE__, "exit 7", "exit 7", 7, 0 },
	{ __LINE__, "exit 255", "exit 255", 255, 0 },
	{ __LINE__, "SIGTERM", "kill -TERM $$", 0, SIGTERM },
	{ __LINE__, "SIGSEGV", "kill -SEGV $$", 0, SIGSEGV },
	{ __LINE__, "SIGKILL", "kill -KILL $$", 0, SIGKILL },
	/* a tree that clears its environment keeps the shim (sticky_env):
	 * without it the inherited filter would kill the shell's exec */
	{ __LINE__, "env -i", "env -i /bin/sh -c '/bin/true; exit 3'", 3, 0 },
	{ __LINE__, "unset LD_PRELOAD", "unset LD_PRELOAD; /bin/sh -c '/bin/true; exit 4'", 4, 0 },
	/* a SIGSYS that is not the filter's reaches the program's action
	 * (chain_sigsys): here the default, death by SIGSYS */
	{ __LINE__, "kill -SYS", "kill -SYS $$", 0, SIGSYS },
	{ __LINE__, "trap SYS", "trap 'exit 6' SYS; kill -SYS $$; exit 1", 6, 0 },
	/* static native programs: one that makes no trapped syscall runs; one
	 * that execs dies of the filter's SIGSYS (docs/shim.md, Limits) */
	{ __LINE__, "static, no trapped syscall", "exec \"$RUN_LOOP\"", 0, 0 },
	{ __LINE__, "static, execve", "exec \"$RUN_STATIC_EXEC\"", 0, SIGSYS },
};

static void test_status(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(status_rows) / sizeof(status_rows[0]); i++) {
		static struct result r;
		bool ok;

		run_under(status_rows[i].script, 20, &r);
		if (status_rows[i].sig)
			ok = WIFSIGNALED(r.status) && WTERMSIG(r.status) == status_rows[i].sig;
		else
			ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == status_rows[i].exit_code;
		if (!ok) {
			dump(&r);
			fail_msg("row at line %d (%s)", status_rows[i].line, status_rows[i].name);
		}
	}
}

/* ---- the virtual sysfs/procfs ---- */

static const struct {
	int line;
	const char *from;
	const char *opts[5];
	const char *file, *content;
} vfs_rows[] = {
	{ __LINE__, "x86 perf_pmu_register(&pmu, \"cpu\", PERF_TYPE_RAW)", { NULL },
	  "/sys/bus/event_source/devices/cpu/type", "4\n" },
	{ __LINE__, "PMU_FORMAT_ATTR(event, \"config:0-7\")", { NULL },
	  "/sys/bus/event_source/devices/cpu/format/event", "config:0-7\n" },
	{ __LINE__, "PMU_FORMAT_ATTR(umask, \"config:8-15\")", { NULL },
	  "/sys/bus/event_source/devices/cpu/format/umask", "config:8-15\n" },
	{ __LINE__, "x86_event_sysfs_show(): INSTRUCTIONS is 0x00c0", { NULL },
	  "/sys/bus/event_source/devices/cpu/events/instructions", "event=0xc0\n" },
	{ __LINE__, "get_attr_rdpmc(): attr_rdpmc 1", { NULL },
	  "/sys/bus/event_source/devices/cpu/rdpmc", "1\n" },
	{ __LINE__, "perf_event_mux_interval_ms_show()", { "--mux-interval", "7", NULL },
	  "/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms", "7\n" },
	{ __LINE__, "intel_pmu_caps: max_precise of Skylake", { NULL },
	  "/sys/bus/event_source/devices/cpu/caps/max_precise", "3\n" },
	{ __LINE__, "proc_dointvec(perf_event_paranoid)", { "--paranoid", "-1", NULL },
	  "/proc/sys/kernel/perf_event_paranoid", "-1\n" },
	{ __LINE__, "proc_dointvec(perf_event_mlock_kb) default 512 + 4", { NULL },
	  "/proc/sys/kernel/perf_event_mlock_kb", "516\n" },
	{ __LINE__, "cpu_online_mask of --cpus 4", { "--cpus", "4", NULL },
	  "/sys/devices/system/cpu/online", "0-3\n" },
	{ __LINE__, "armv8 PMU: dynamic type of the model", { "--model", "pmuv3", NULL },
	  "/sys/bus/event_source/devices/armv8_pmuv3_0/type", "10\n" },
	{ __LINE__, "armpmu_cpumask_show()", { "--model", "pmuv3", "--cpus", "2", NULL },
	  "/sys/bus/event_source/devices/armv8_pmuv3_0/cpus", "0-1\n" },
	{ __LINE__, "ARMV8_EVENT_ATTR(inst_retired, 0x08): armv8pmu_events_sysfs_show()",
	  { "--model", "pmuv3", NULL },
	  "/sys/bus/event_source/devices/armv8_pmuv3_0/events/inst_retired", "event=0x0008\n" },
	{ __LINE__, "the host's PMUs stay listed", { NULL },
	  "/sys/bus/event_source/devices/software/type", "1\n" },
};

static void test_vfs(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vfs_rows) / sizeof(vfs_rows[0]); i++) {
		char *argv[12] = { (char *)pmusim(), (char *)"run" };
		static struct result r;
		int n = 2;

		for (int j = 0; vfs_rows[i].opts[j]; j++)
			argv[n++] = (char *)vfs_rows[i].opts[j];
		argv[n++] = (char *)"--";
		argv[n++] = (char *)"cat";
		argv[n++] = (char *)vfs_rows[i].file;
		run(argv, 20, &r);
		if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) || strcmp(r.out, vfs_rows[i].content)) {
			dump(&r);
			fail_msg("row at line %d (%s): %s", vfs_rows[i].line, vfs_rows[i].from,
				 vfs_rows[i].file);
		}
	}
}

/* ---- a native client's perf fds (shim_client) ---- */

static const struct {
	int line;
	const char *mode, *from;
} client_rows[] = {
	{ __LINE__, "read", "perf_read_one(), perf_read_group(), perf_event__read_size()" },
	{ __LINE__, "ioctl", "_perf_ioctl(), perf_event_set_output(), perf_event_task_disable()" },
	{ __LINE__, "fdops", "perf_fops, dup_fd(), fput()" },
	{ __LINE__, "passthrough", "a software event on a native task: the host's" },
	{ __LINE__, "mmap", "perf_mmap(), perf_event_init_userpage()" },
	{ __LINE__, "inherit", "copy_files() at fork" },
	{ __LINE__, "range", "syscalls on other files in the fd range" },
	{ __LINE__, "pollhup", "perf_poll(): EPOLLHUP without a ring; is_event_hup() after the task exits" },
	{ __LINE__, "threads", "find_lively_task_by_vpid(0): each thread its own task" },
	{ __LINE__, "exec", "do_close_on_exec(): CLOEXEC perf fds go, others stay" },
	{ __LINE__, "select", "do_select() over perf_poll(): POLLIN_SET, timeval left" },
	{ __LINE__, "fasync", "kill_fasync() -> send_sigio_to_task(): si_code, si_fd, si_band; _perf_event_refresh()" },
	{ __LINE__, "epoll", "ep_item_poll() -> perf_poll(): EPOLLHUP, consumed EPOLLIN, is_event_hup()" },
	{ __LINE__, "munmap", "perf_mmap_close(), perf_mmap(): data_page_nr(), perf_mmap_may_split()" },
	{ __LINE__, "scm", "scm_detach_fds() -> receive_fd(): a perf file over SCM_RIGHTS, fput()" },
	{ __LINE__, "sharedring", "perf_event_set_output(), ring_buffer_attach(), perf_event_comm_output(), perf_output_wakeup()" },
	{ __LINE__, "nativecomm", "__set_task_comm() -> perf_event_comm() of a native task in a core ring" },
	{ __LINE__, "vfork", "copy_files() at vfork: the child's close_range/close are its own" },
};

static void test_client(void **state)
{
	const char *client = getenv("SHIM_CLIENT");

	(void)state;
	if (!client)
		skip();
	for (size_t i = 0; i < sizeof(client_rows) / sizeof(client_rows[0]); i++) {
		/* CPU-wide events (mode exec) for a user without CAP_PERFMON:
		 * perf_event_paranoid 0 (perf_allow_cpu()) */
		char *argv[8] = { (char *)pmusim(), (char *)"run" };
		int n = 2;
		char want[64];
		static struct result r;

		if (!strcmp(client_rows[i].mode, "exec")) {
			argv[n++] = (char *)"--paranoid";
			argv[n++] = (char *)"0";
		}
		argv[n++] = (char *)"--";
		argv[n++] = (char *)client;
		argv[n++] = (char *)client_rows[i].mode;

		run(argv, 60, &r);
		snprintf(want, sizeof(want), "ok %s\n", client_rows[i].mode);
		if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) || strcmp(r.out, want)) {
			dump(&r);
			fail_msg("row at line %d (%s: %s)", client_rows[i].line, client_rows[i].mode,
				 client_rows[i].from);
		}
	}
}

/* ---- Debian's perf ---- */

#define PERF "/usr/bin/perf"

/* Splits one `perf stat -x,` line into fields (value, unit, event, ...). */
static int csv_fields(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	for (char *p = line; *p && n < max; p++) {
		if (*p == ',') {
			*p = 0;
			f[n++] = p + 1;
		}
	}
	return n;
}

static void test_perf_stat_sw(void **state)
{
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			 (char *)"stat", (char *)"-x,", (char *)"-e",
			 (char *)"task-clock,context-switches", (char *)"--", (char *)"true", NULL };
	static const char *const names[] = { "task-clock", "context-switches" };
	static struct result r;
	char *save, *line;
	int seen = 0;

	(void)state;
	if (access(PERF, X_OK))
		skip();
	run(argv, 60, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		dump(&r);
		fail_msg("perf stat failed");
	}
	/* perf stat -x, prints to stderr: value,unit,event,run time,run%,... */
	for (line = strtok_r(r.err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[16];
		int n = csv_fields(line, f, 16);

		if (n < 5 || seen >= 2)
			continue;
		/* perf asks for NAME:u where perf_event_paranoid keeps the
		 * user out of the kernel */
		if (strncmp(f[2], names[seen], strlen(names[seen])) ||
		    (f[2][strlen(names[seen])] && strcmp(f[2] + strlen(names[seen]), ":u")))
			fail_msg("event %d is %s, not %s", seen, f[2], names[seen]);
		assert_string_equal(f[1], seen == 0 ? "msec" : "");
		seen++;
	}
	assert_int_equal(seen, 2);
}

/* `perf stat -e instructions:u,branches:u -- forker loop`: a workload that
 * forks a child which execs loop.S; the child's counts reach perf's events
 * through inheritance (perf_event_exit_task -> sync_child_event), the exec
 * keeps them (no remove_on_exec): forker.S's 13 + 7 instructions and 2
 * branches, plus loop.S's 2N+4 and N. */
static void test_perf_stat_inherit(void **state)
{
	const char *forker = getenv("RUN_FORKER"), *loop = getenv("RUN_LOOP");
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			 (char *)"stat", (char *)"-x,", (char *)"-e",
			 (char *)"instructions:u,branches:u", (char *)"--", (char *)forker,
			 (char *)loop, NULL };
	static const unsigned long long want[] = { 13 + 7 + 2000004, 2 + 1000000 };
	static struct result r;
	char *save, *line;
	int seen = 0;

	(void)state;
	if (access(PERF, X_OK) || !forker || !loop)
		skip();
	run(argv, 60, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		dump(&r);
		fail_msg("perf stat of forker");
	}
	for (line = strtok_r(r.err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[16];

		if (csv_fields(line, f, 16) < 5 || seen >= 2)
			continue;
		if (strtoull(f[0], NULL, 10) != want[seen]) {
			dump(&r);
			fail_msg("%s: %s, by arithmetic %llu", f[2], f[0], want[seen]);
		}
		seen++;
	}
	assert_int_equal(seen, 2);
}

/* `perf stat` of family.S, a process that forks a child which
 * execs loop.S and runs two threads of its own: every task's counts reach
 * perf's events by inheritance (perf_event_init_task at fork and clone,
 * sync_child_event at each exit), so the totals are the arithmetic sum of
 * family.S's comment: 12000057 instructions, 6000006 branches, exactly
 * (the threads' first instructions count too: a new thread's task goes on
 * its CPU before it runs). */
static void test_perf_stat_family(void **state)
{
	const char *family = getenv("RUN_FAMILY"), *loop = getenv("RUN_LOOP");
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			 (char *)"stat", (char *)"-x,", (char *)"-e",
			 (char *)"instructions:u,branches:u", (char *)"--", (char *)family,
			 (char *)loop, NULL };
	static const struct {
		int line;
		unsigned long long want;
		const char *from;
	} rows[] = {
		{ __LINE__, 2000034ull + 2000011 + 3000006 + 5000006,
		  "instructions: sync_child_event() of every task" },
		{ __LINE__, (3ull + 1000000) + (1 + 1000000) + (1 + 1500000) + (1 + 2500000),
		  "branches: sync_child_event() of every task" },
	};
	static struct result r;
	char *save, *line;
	unsigned seen = 0;

	(void)state;
	if (access(PERF, X_OK) || !family || !loop)
		skip();
	run(argv, 60, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		dump(&r);
		fail_msg("perf stat of family");
	}
	for (line = strtok_r(r.err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[16];
		unsigned long long v;

		if (csv_fields(line, f, 16) < 5 || seen >= 2)
			continue;
		v = strtoull(f[0], NULL, 10);
		if (v != rows[seen].want) {
			dump(&r);
			fail_msg("line %d (%s): %s %llu, by arithmetic %llu", rows[seen].line,
				 rows[seen].from, f[2], v, rows[seen].want);
		}
		seen++;
	}
	assert_int_equal(seen, 2);
}

/* `perf stat -a -- loop`: system-wide events on the simulated CPUs; the
 * workload, a child of the process counting them, runs emulated there and
 * the CPU events count it exactly. perf_event_paranoid 0 lets a user
 * without CAP_PERFMON open CPU-wide events (perf_allow_cpu()). */
static void test_perf_stat_system_wide(void **state)
{
	const char *loop = getenv("RUN_LOOP");
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--paranoid", (char *)"0",
			 (char *)"--", (char *)PERF,
			 (char *)"stat", (char *)"-x,", (char *)"-a", (char *)"-e",
			 (char *)"instructions:u,branches:u", (char *)"--", (char *)loop, NULL };
	static const unsigned long long want[] = { 2000004, 1000000 };
	static struct result r;
	char *save, *line;
	int seen = 0;

	(void)state;
	if (access(PERF, X_OK) || !loop)
		skip();
	run(argv, 60, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		dump(&r);
		fail_msg("perf stat -a");
	}
	for (line = strtok_r(r.err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[16];

		if (csv_fields(line, f, 16) < 5 || seen >= 2)
			continue;
		if (strtoull(f[0], NULL, 10) != want[seen]) {
			dump(&r);
			fail_msg("%s: %s, by arithmetic %llu", f[2], f[0], want[seen]);
		}
		seen++;
	}
	assert_int_equal(seen, 2);
}

/* `perf stat -e instructions:u,branches:u -- loop`: exact counts of a
 * workload that runs emulated in perf's forked child (loop.S: 2N+4
 * instructions, N branches, N = 1000000). Needs the emulator's join of the
 * session core (`pmusim exec --attach-arena`): skipped, saying
 * so, while perf reports the events as not counted. */
static void test_perf_stat_exact(void **state)
{
	const char *loop = getenv("RUN_LOOP");
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			 (char *)"stat", (char *)"-x,", (char *)"-e",
			 (char *)"instructions:u,branches:u", (char *)"--", (char *)loop, NULL };
	static const struct { const char *event; unsigned long long want; } rows[] = {
		{ "instructions:u", 2 * 1000000ULL + 4 },
		{ "branches:u", 1000000ULL },
	};
	static struct result r;
	char *save, *line;
	int seen = 0;

	(void)state;
	if (access(PERF, X_OK) || !loop)
		skip();
	run(argv, 120, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		dump(&r);
		fail_msg("perf stat failed");
	}
	if (strstr(r.err, "<not counted>")) {
		print_message("skipped: the emulated workload does not join the session core yet "
			      "(pmusim exec --attach-arena)\n");
		skip();
	}
	for (line = strtok_r(r.err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[16];
		int n = csv_fields(line, f, 16);

		if (n < 5 || seen >= 2)
			continue;
		assert_string_equal(f[2], rows[seen].event);
		assert_int_equal(strtoull(f[0], NULL, 10), rows[seen].want);
		/* one event per counter: never multiplexed (run% 100.00) */
		assert_string_equal(f[4], "100.00");
		seen++;
	}
	assert_int_equal(seen, 2);
}

/* perf record runs to completion: its probes (cloexec on sched_getcpu()'s
 * CPU, precise_ip fallbacks), per-CPU rings with SET_OUTPUT, side-band
 * dummies, and its poll loop ending on POLLHUP or the child's exit. */
static const struct {
	int line;
	const char *name;
	const char *paranoid;   /* pmusim run --paranoid, or NULL: the host's */
	const char *args[8];
} record_rows[] = {
	{ __LINE__, "per task, -c", NULL, { "-e", "instructions:u", "-c", "10000", NULL } },
	{ __LINE__, "per task, -F -g", NULL, { "-F", "1000", "-g", NULL } },
	/* CPU-wide events for a user without CAP_PERFMON (perf_allow_cpu()) */
	{ __LINE__, "system-wide", "0", { "-a", "-e", "instructions:u", "-c", "10000", NULL } },
};

static void test_perf_record(void **state)
{
	const char *loop = getenv("RUN_LOOP");

	(void)state;
	if (access(PERF, X_OK) || !loop)
		skip();
	for (size_t i = 0; i < sizeof(record_rows) / sizeof(record_rows[0]); i++) {
		char data[] = "/tmp/pmusim-test-rec-XXXXXX";
		char *argv[24] = { (char *)pmusim(), (char *)"run" };
		static struct result r;
		int n = 2, fd = mkstemp(data);

		assert_true(fd >= 0);
		close(fd);
		if (record_rows[i].paranoid) {
			argv[n++] = (char *)"--paranoid";
			argv[n++] = (char *)record_rows[i].paranoid;
		}
		argv[n++] = (char *)"--";
		argv[n++] = (char *)PERF;
		argv[n++] = (char *)"record";
		argv[n++] = (char *)"-o";
		argv[n++] = data;
		for (int j = 0; record_rows[i].args[j]; j++)
			argv[n++] = (char *)record_rows[i].args[j];
		argv[n++] = (char *)"--";
		argv[n++] = (char *)loop;
		run(argv, 60, &r);
		unlink(data);
		if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) ||
		    strstr(r.err, "unexpected") || !strstr(r.err, "Captured and wrote")) {
			dump(&r);
			fail_msg("row at line %d (%s)", record_rows[i].line, record_rows[i].name);
		}
	}
}

/*
 * A host tracepoint in the core's ring: `perf record -a` of instructions:u
 * (the core's, first on CPU 0, so its ring is the one perf maps) and
 * sched:sched_switch (the host's, redirected into it with SET_OUTPUT).
 * loop.S retires 2N+4 = 2000004 instructions: 20 samples at -c 100000;
 * the host switches CPU 0 at least once while the workload runs and ends,
 * as `perf record -e sched:sched_switch -a` always records natively. The
 * side band has the workload's [vdso] MMAP2, as the kernel's exec gives it
 * (perf test 8 natively: "[0x...(0x2000) @ 0 00:00 0 0]: r-xp [vdso]").
 */
/* Whether perf script --show-mmap-events text has loop's [vdso] MMAP2. */
static bool workload_vdso_line(const char *text)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *e = strchr(l, '\n'), *v = strstr(l, " @ 0 00:00 0 0]: r-xp [vdso]");

		if (v && (!e || v < e) && strncmp(l + strspn(l, " "), "loop ", 5) == 0)
			return true;
	}
	return false;
}

static void test_perf_record_tracepoint(void **state)
{
	const char *loop = getenv("RUN_LOOP");
	char data[] = "/tmp/pmusim-test-tp-XXXXXX";
	static struct result r, s;
	int fd, samples = 0, switches = 0;

	(void)state;
	/* the tracepoint is the host's: an account that may not read tracefs
	 * (not root) cannot open it natively either */
	if (access(PERF, X_OK) || !loop ||
	    access("/sys/kernel/tracing/events/sched/sched_switch/id", R_OK))
		skip();
	fd = mkstemp(data);
	assert_true(fd >= 0);
	close(fd);
	{
		char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
				 (char *)"record", (char *)"-o", data, (char *)"-a", (char *)"-e",
				 (char *)"instructions:u", (char *)"-c", (char *)"100000",
				 (char *)"-e", (char *)"sched:sched_switch", (char *)"--",
				 (char *)loop, NULL };
		char *script[] = { (char *)PERF, (char *)"script", (char *)"-i", data,
				   (char *)"-F", (char *)"event", NULL };
		char *mmaps[] = { (char *)PERF, (char *)"script", (char *)"-i", data,
				  (char *)"--show-mmap-events", NULL };

		run(argv, 60, &r);
		run(mmaps, 60, &s);
		/* exec's side band: the vdso special mapping (perf_event_mmap()
		 * of a VMA without a file: offset 0, no device, "[vdso]"), on
		 * the workload's line (-a also synthesizes other tasks') */
		if (!workload_vdso_line(s.out)) {
			dump(&s);
			fail_msg("no PERF_RECORD_MMAP2 of [vdso]");
		}
		run(script, 60, &s);
	}
	unlink(data);
	for (const char *p = s.out; (p = strstr(p, "instructions:u")); p++)
		samples++;
	for (const char *p = s.out; (p = strstr(p, "sched:sched_switch")); p++)
		switches++;
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) || !strstr(r.err, "Captured and wrote") ||
	    samples != 20 || switches < 1) {
		dump(&r);
		dump(&s);
		fail_msg("%d instructions samples (want 20), %d sched_switch", samples, switches);
	}
}

/* An emulated workload that forks and execs (a shell running a program)
 * under perf stat: it runs to its end in the emulator with the session's
 * filter inherited, and perf stat exits with its status (as natively). */
static void test_perf_workload_status(void **state)
{
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			 (char *)"stat", (char *)"-x,", (char *)"-e", (char *)"instructions:u",
			 (char *)"--", (char *)"/bin/sh", (char *)"-c",
			 (char *)"/bin/true && echo ran; exit 5", NULL };
	static struct result r;

	(void)state;
	if (access(PERF, X_OK))
		skip();
	run(argv, 120, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) != 5 || strcmp(r.out, "ran\n") ||
	    strstr(r.err, "Bad system call")) {
		dump(&r);
		fail_msg("perf stat of a forking, exec'ing emulated shell");
	}
}

/* ---- multiplexing, as perf stat shows it ----
 *
 * The oracle replays the kernel's rotation by hand for the task context's
 * flexible groups (ctx_flexible_sched_in -> merge_sched_in, and
 * perf_rotate_context -> rotate_ctx): each interval, groups are tried in
 * list order; a group goes on if every hardware group before it went on
 * (can_add_hw) and its general-purpose events fit in the counters left;
 * instructions, cycles and ref-cycles take their fixed counters (x86
 * __perf_sched_find_counter prefers them); at the interval's end the first
 * group moves to the list's end. The enabled time comes from task-clock, a
 * software event that never multiplexes.
 */
#define MUX_MS 1

struct mux_group {
	const char *events[3];
	bool fixed;             /* on a fixed counter (never short of one) */
};

#define GP(...) { { __VA_ARGS__ }, false }
#define FX(e) { { e }, true }

static const struct {
	int line;
	const char *name;
	const char *counters;   /* --counters, or NULL */
	unsigned gp;            /* general-purpose counters that means */
	struct mux_group groups[8];
	unsigned ng;
} mux_rows[] = {
	{ __LINE__, "5 GP + 3 fixed events, 4 counters", NULL, 4,
	  { GP("branches:u"), GP("branch-misses:u"), GP("cache-references:u"),
	    GP("cache-misses:u"), GP("bus-cycles:u"), FX("instructions:u"),
	    FX("cycles:u"), FX("ref-cycles:u") }, 8 },
	{ __LINE__, "the same with --counters 2", "2", 2,
	  { GP("branches:u"), GP("branch-misses:u"), GP("cache-references:u"),
	    GP("cache-misses:u"), GP("bus-cycles:u"), FX("instructions:u"),
	    FX("cycles:u"), FX("ref-cycles:u") }, 8 },
	{ __LINE__, "a group that fits is never split", "2", 2,
	  { GP("branches:u"), GP("branch-misses:u"),
	    GP("cache-references:u", "cache-misses:u"), FX("instructions:u") }, 4 },
};

static unsigned group_size(const struct mux_group *g)
{
	unsigned n = 0;

	while (n < 3 && g->events[n])
		n++;
	return n;
}

/* Running time of each group over enabled ns of 1 ms intervals. */
static void mux_oracle(const struct mux_group *groups, unsigned ng, unsigned gp,
		       uint64_t enabled, uint64_t *run)
{
	unsigned order[8];

	for (unsigned i = 0; i < ng; i++) {
		order[i] = i;
		run[i] = 0;
	}
	for (uint64_t t = 0; t < enabled; t += MUX_MS * 1000000ull) {
		uint64_t len = enabled - t < MUX_MS * 1000000ull ? enabled - t : MUX_MS * 1000000ull;
		unsigned left = gp, first;
		bool can_add_hw = true;

		for (unsigned k = 0; k < ng; k++) {
			const struct mux_group *g = &groups[order[k]];
			bool fits = can_add_hw && (g->fixed || group_size(g) <= left);

			if (fits) {
				run[order[k]] += len;
				if (!g->fixed)
					left -= group_size(g);
			} else {
				can_add_hw = false;
			}
		}
		first = order[0];
		memmove(order, order + 1, (ng - 1) * sizeof(order[0]));
		order[ng - 1] = first;
	}
}

static void test_perf_mux(void **state)
{
	const char *loop = getenv("RUN_LOOP_MUX");

	(void)state;
	if (access(PERF, X_OK) || !loop)
		skip();
	for (size_t i = 0; i < sizeof(mux_rows) / sizeof(mux_rows[0]); i++) {
		char events[512] = "task-clock", *argv[24], *save, *line;
		uint64_t want[8], got_run[8][3] = { { 0 } }, enabled = 0;
		static struct result r;
		unsigned n = 0;

		for (unsigned g = 0; g < mux_rows[i].ng; g++) {
			const struct mux_group *mg = &mux_rows[i].groups[g];

			strcat(events, group_size(mg) > 1 ? ",{" : ",");
			for (unsigned e = 0; e < group_size(mg); e++) {
				if (e)
					strcat(events, ",");
				strcat(events, mg->events[e]);
			}
			if (group_size(mg) > 1)
				strcat(events, "}");
		}
		argv[n++] = (char *)pmusim();
		argv[n++] = (char *)"run";
		argv[n++] = (char *)"--mux-interval";
		argv[n++] = (char *)"1";
		if (mux_rows[i].counters) {
			argv[n++] = (char *)"--counters";
			argv[n++] = (char *)mux_rows[i].counters;
		}
		argv[n++] = (char *)"--";
		argv[n++] = (char *)PERF;
		argv[n++] = (char *)"stat";
		argv[n++] = (char *)"-x,";
		argv[n++] = (char *)"-e";
		argv[n++] = events;
		argv[n++] = (char *)"--";
		argv[n++] = (char *)loop;
		argv[n] = NULL;
		run(argv, 60, &r);
		if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
			dump(&r);
			fail_msg("row at line %d (%s): perf stat failed", mux_rows[i].line,
				 mux_rows[i].name);
		}
		/* value,unit,event,run time (ns),run%,... */
		for (line = strtok_r(r.err, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *f[16];

			if (csv_fields(line, f, 16) < 5)
				continue;
			/* perf asks for task-clock:u where perf_event_paranoid
			 * keeps the user out of the kernel */
			if (strcmp(f[2], "task-clock") == 0 || strcmp(f[2], "task-clock:u") == 0) {
				enabled = strtoull(f[3], NULL, 10);
				continue;
			}
			for (unsigned g = 0; g < mux_rows[i].ng; g++)
				for (unsigned e = 0; e < group_size(&mux_rows[i].groups[g]); e++)
					if (strcmp(f[2], mux_rows[i].groups[g].events[e]) == 0)
						got_run[g][e] = strtoull(f[3], NULL, 10);
		}
		if (enabled < 3 * MUX_MS * 1000000ull) {
			dump(&r);
			fail_msg("row at line %d (%s): enabled %llu ns, too short to rotate",
				 mux_rows[i].line, mux_rows[i].name, (unsigned long long)enabled);
		}
		mux_oracle(mux_rows[i].groups, mux_rows[i].ng, mux_rows[i].gp, enabled, want);
		for (unsigned g = 0; g < mux_rows[i].ng; g++) {
			for (unsigned e = 0; e < group_size(&mux_rows[i].groups[g]); e++) {
				uint64_t got = got_run[g][e];
				/* rotations fall on block boundaries of the emulated
				 * code: allow 0.1% of the enabled time */
				uint64_t tol = enabled / 1000;

				if (got + tol < want[g] || got > want[g] + tol) {
					dump(&r);
					fail_msg("row at line %d (%s): %s ran %llu ns, the rotation gives "
						 "%llu of %llu", mux_rows[i].line, mux_rows[i].name,
						 mux_rows[i].groups[g].events[e], (unsigned long long)got,
						 (unsigned long long)want[g], (unsigned long long)enabled);
				}
				/* a group is never split: its members run together */
				assert_int_equal(got, got_run[g][0]);
			}
		}
	}
}

/* ---- perf record, then perf report / script / annotate ---- */

/* Records prog under pmusim run into a fresh file; returns its name in
 * data (removed by the caller). Period 100000: 30k samples a second of
 * virtual time, under perf_event_max_sample_rate (no throttling). */
static void record(const char *prog, bool callchain, char *data)
{
	char *argv[20] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			   (char *)"record", (char *)"-q", (char *)"-e", (char *)"instructions:u",
			   (char *)"-c", (char *)"100000", (char *)"-o", data };
	static struct result r;
	int n = 12, fd = mkstemp(data);

	assert_true(fd >= 0);
	close(fd);
	if (callchain)
		argv[n++] = (char *)"-g";
	argv[n++] = (char *)"--";
	argv[n++] = (char *)prog;
	argv[n] = NULL;
	run(argv, 60, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		dump(&r);
		unlink(data);
		fail_msg("perf record of %s", prog);
	}
}

/* Runs a perf tool on data (natively: reading a file needs no session). */
static void perf_tool(struct result *r, const char *data, const char *const *args)
{
	char *argv[20] = { (char *)PERF };
	int n = 1;

	for (; *args; args++)
		argv[n++] = (char *)*args;
	argv[n++] = (char *)"-i";
	argv[n++] = (char *)data;
	argv[n] = NULL;
	run(argv, 60, r);
	if (!WIFEXITED(r->status) || WEXITSTATUS(r->status)) {
		dump(r);
		fail_msg("perf %s failed", argv[1]);
	}
}

/* perf report's overhead per function against the arithmetic of funcs.S
 * (1/6, 2/6, 3/6 within 1 percentage point); perf script's comm, pid, tid
 * and symbols; perf annotate of the hot function. */
static void test_perf_report(void **state)
{
	static const char *const report[] = { "report", "--stdio", "--sort", "sym", NULL };
	static const char *const script[] = { "script", "-F", "comm,pid,tid,ip,sym", NULL };
	static const char *const annotate[] = { "annotate", "--stdio", "-s", "f3", NULL };
	static const struct { const char *sym; double share; } rows[] = {
		{ "f1", 100.0 * 2000001 / 12000013 },
		{ "f2", 100.0 * 4000001 / 12000013 },
		{ "f3", 100.0 * 6000001 / 12000013 },
	};
	const char *prog = getenv("RUN_FUNCS");
	char data[] = "/tmp/pmusim-test-report-XXXXXX", *save, *line;
	static struct result r;
	int samples = 0, pid = -1;
	double pct[3] = { -1, -1, -1 };

	(void)state;
	if (access(PERF, X_OK) || !prog)
		skip();
	record(prog, false, data);

	perf_tool(&r, data, report);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		double p;
		char sym[64];

		if (sscanf(line, " %lf%% [.] %63s", &p, sym) != 2)
			continue;
		for (int i = 0; i < 3; i++)
			if (strcmp(sym, rows[i].sym) == 0)
				pct[i] = p;
	}
	for (int i = 0; i < 3; i++) {
		if (pct[i] < rows[i].share - 1 || pct[i] > rows[i].share + 1) {
			dump(&r);
			unlink(data);
			fail_msg("%s: %.2f%% in perf report, %.2f%% by arithmetic", rows[i].sym,
				 pct[i], rows[i].share);
		}
	}

	perf_tool(&r, data, script);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char comm[32], sym[64];
		unsigned long long ip;
		int p, t;

		if (sscanf(line, " %31s %d/%d %llx %63s", comm, &p, &t, &ip, sym) != 5)
			continue;
		assert_string_equal(comm, "funcs");     /* COMM of the exec */
		assert_int_equal(p, t);                 /* a single-threaded process */
		if (pid < 0)
			pid = p;
		assert_int_equal(p, pid);
		assert_true(sym[0] == 'f' && sym[1] >= '1' && sym[1] <= '3' && !sym[2]);
		samples++;
	}
	/* 12000013 instructions, one sample each 100000 */
	assert_int_equal(samples, 120);

	perf_tool(&r, data, annotate);
	unlink(data);
	if (!strstr(r.out, "dec") || !strstr(r.out, "jne")) {
		dump(&r);
		fail_msg("perf annotate of f3");
	}
}

/* perf record -g: the frame-pointer callchains name main as the caller of
 * both workers (perf script), and perf report -g caller shows it. */
static void test_perf_callchain(void **state)
{
	static const char *const script[] = { "script", "-F", "ip,sym", NULL };
	static const char *const report[] = { "report", "--stdio", "--no-children", "-g",
					      "caller", "--sort", "sym", NULL };
	const char *prog = getenv("RUN_CALLERS");
	char data[] = "/tmp/pmusim-test-chain-XXXXXX", *save, *line;
	static struct result r;
	int in_worker = 0, with_main = 0;
	bool expect_caller = false;

	(void)state;
	if (access(PERF, X_OK) || !prog)
		skip();
	record(prog, true, data);
	perf_tool(&r, data, script);
	/* each sample: its IP's line, then one line per caller */
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		bool worker = strstr(line, "work_a") || strstr(line, "work_b");

		if (expect_caller) {
			size_t len = strlen(line);

			with_main += len > 5 && strcmp(line + len - 5, " main") == 0;
			expect_caller = false;
			continue;
		}
		if (worker) {
			in_worker++;
			expect_caller = true;
		}
	}
	/* a sample at a worker's first instruction (before its frame is
	 * built) skips main, as the kernel's walk does */
	if (in_worker < 50 || with_main * 100 < in_worker * 95) {
		dump(&r);
		unlink(data);
		fail_msg("%d of %d worker samples have main as their caller", with_main, in_worker);
	}
	perf_tool(&r, data, report);
	unlink(data);
	if (!strstr(r.out, "main") || !strstr(r.out, "work_a") || !strstr(r.out, "work_b")) {
		dump(&r);
		fail_msg("perf report -g caller");
	}
}

/* perf record of forker: the side band tells the story the kernel's
 * would (COMM exec of forker, FORK of the child, COMM exec of loop, EXITs)
 * and every sample lands on the child, comm loop, 20 of them (its 2000011
 * instructions at one sample each 100000). */
static void test_perf_record_inherit(void **state)
{
	static const char *const script[] = { "script", "--show-task-events", "-F",
					      "comm,pid,tid", NULL };
	const char *forker = getenv("RUN_FORKER"), *loop = getenv("RUN_LOOP");
	char data[] = "/tmp/pmusim-test-fork-XXXXXX", *save, *line, want[64];
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			 (char *)"record", (char *)"-q", (char *)"-e", (char *)"instructions:u",
			 (char *)"-c", (char *)"100000", (char *)"-o", data, (char *)"--",
			 (char *)forker, (char *)loop, NULL };
	static struct result r;
	int parent = -1, child = -1, samples = 0, exits = 0;
	bool comm_loop = false;

	(void)state;
	if (access(PERF, X_OK) || !forker || !loop)
		skip();
	int fd = mkstemp(data);

	assert_true(fd >= 0);
	close(fd);
	run(argv, 60, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		dump(&r);
		unlink(data);
		fail_msg("perf record of forker");
	}
	perf_tool(&r, data, script);
	unlink(data);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *f = strstr(line, "PERF_RECORD_FORK(");
		int c, ct, p, pt;

		if (f && sscanf(f, "PERF_RECORD_FORK(%d:%d):(%d:%d)", &c, &ct, &p, &pt) == 4) {
			child = c;
			parent = p;
			continue;
		}
		snprintf(want, sizeof(want), "COMM exec: loop:%d/%d", child, child);
		if (child > 0 && strstr(line, want))
			comm_loop = true;
		else if (strstr(line, "PERF_RECORD_EXIT"))
			exits++;
		else if (!strstr(line, "PERF_RECORD")) {
			char comm[32];
			int sp, st;

			if (sscanf(line, " %31s %d/%d", comm, &sp, &st) == 3) {
				assert_string_equal(comm, "loop");
				assert_int_equal(sp, child);
				assert_int_equal(st, child);
				samples++;
			}
		}
	}
	if (parent <= 0 || child <= 0 || child == parent || !comm_loop || samples != 20 ||
	    exits < 2) {
		dump(&r);
		fail_msg("fork %d -> %d, COMM exec loop %d, %d samples, %d exits", parent, child,
			 comm_loop, samples, exits);
	}
}

/* `perf record -c 100000` of family.S: samples land on the task
 * that ran the instructions (inherited events write to the parent's ring
 * with the child's pid/tid, perf_output_sample): 20 on the main thread
 * (comm family), 30 and 50 on its two threads, 20 on the forked child
 * after its exec (comm loop), within one sample each; the side band has
 * the child's FORK, its COMM exec, a FORK per thread and four EXITs, and
 * perf exits 0. */
static void test_perf_record_family(void **state)
{
	static const char *const script[] = { "script", "--show-task-events", "-F",
					      "comm,pid,tid", NULL };
	const char *family = getenv("RUN_FAMILY"), *loop = getenv("RUN_LOOP");
	char data[] = "/tmp/pmusim-test-family-XXXXXX", *save, *line;
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			 (char *)"record", (char *)"-q", (char *)"-e", (char *)"instructions:u",
			 (char *)"-c", (char *)"100000", (char *)"-o", data, (char *)"--",
			 (char *)family, (char *)loop, NULL };
	static struct result r;
	struct { int tid, n; } thr[2] = { { 0, 0 }, { 0, 0 } };
	int main_pid = -1, child = -1, main_n = 0, child_n = 0, other = 0;
	int forks = 0, exits = 0, comm_loop = 0;

	(void)state;
	if (access(PERF, X_OK) || !family || !loop)
		skip();
	int fd = mkstemp(data);

	assert_true(fd >= 0);
	close(fd);
	run(argv, 60, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		dump(&r);
		unlink(data);
		fail_msg("perf record of family");
	}
	perf_tool(&r, data, script);
	unlink(data);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *f = strstr(line, "PERF_RECORD_FORK(");
		char comm[32];
		int p, t, pp, pt, k;

		if (f && sscanf(f, "PERF_RECORD_FORK(%d:%d):(%d:%d)", &p, &t, &pp, &pt) == 4) {
			forks++;
			if (p != pp)
				child = p;      /* a process; the threads share the pid */
			continue;
		}
		if (strstr(line, "PERF_RECORD_EXIT")) {
			exits++;
			continue;
		}
		if (strstr(line, "COMM exec: loop:")) {
			comm_loop++;
			continue;
		}
		if (strstr(line, "PERF_RECORD") || sscanf(line, " %31s %d/%d", comm, &p, &t) != 3)
			continue;
		if (strcmp(comm, "loop") == 0) {
			child_n++;
			if (child < 0)
				child = p;
			if (p != child || t != child)
				other++;
			continue;
		}
		if (strcmp(comm, "family") != 0) {
			other++;
			continue;
		}
		if (main_pid < 0)
			main_pid = p;
		if (p != main_pid) {
			other++;
			continue;
		}
		if (t == p) {
			main_n++;
			continue;
		}
		for (k = 0; k < 2 && thr[k].tid && thr[k].tid != t; k++)
			;
		if (k == 2) {
			other++;
			continue;
		}
		thr[k].tid = t;
		thr[k].n++;
	}
	/* the threads in the order of their counts */
	if (thr[0].n > thr[1].n) {
		int n = thr[0].n;

		thr[0].n = thr[1].n;
		thr[1].n = n;
	}
	if (abs(main_n - 20) > 1 || abs(child_n - 20) > 1 || abs(thr[0].n - 30) > 1 ||
	    abs(thr[1].n - 50) > 1 || other || forks != 3 || comm_loop != 1 || exits < 4) {
		dump(&r);
		fail_msg("main %d, child %d, threads %d %d (20, 20, 30, 50), %d misplaced, "
			 "%d forks, %d COMM exec loop, %d exits",
			 main_n, child_n, thr[0].n, thr[1].n, other, forks, comm_loop, exits);
	}
}

/* perf record of a workload with two threads (inherit to threads,
 * perf_event_init_task on clone): each thread's spin() holds 60 samples
 * on its own tid, none land on the main thread, and the side band has a
 * FORK and an EXIT per thread. */
static void test_perf_record_threads(void **state)
{
	static const char *const script[] = { "script", "--show-task-events", "-F",
					      "comm,pid,tid,ip,sym", NULL };
	const char *prog = getenv("RUN_THREADS");
	char data[] = "/tmp/pmusim-test-thr-XXXXXX", *save, *line;
	int tids[2] = { 0, 0 }, count[2] = { 0, 0 }, forks = 0, exits = 0, pid = -1, other = 0;
	static struct result r;

	(void)state;
	if (access(PERF, X_OK) || !prog)
		skip();
	record(prog, false, data);
	perf_tool(&r, data, script);
	unlink(data);
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char comm[32], sym[64];
		unsigned long long ip;
		int p, t, k;

		if (strstr(line, "PERF_RECORD_FORK"))
			forks++;
		if (strstr(line, "PERF_RECORD_EXIT"))
			exits++;
		if (strstr(line, "PERF_RECORD") ||
		    sscanf(line, " %31s %d/%d %llx %63s", comm, &p, &t, &ip, sym) != 5)
			continue;
		assert_string_equal(comm, "threads");
		if (pid < 0)
			pid = p;
		assert_int_equal(p, pid);
		if (strcmp(sym, "spin") != 0 || t == p) {
			other++;
			continue;
		}
		for (k = 0; k < 2 && tids[k] && tids[k] != t; k++)
			;
		assert_true(k < 2);
		tids[k] = t;
		count[k]++;
	}
	if (count[0] != 60 || count[1] != 60 || other || forks != 2 || exits != 3) {
		dump(&r);
		fail_msg("threads %d:%d %d:%d, %d other samples, %d forks, %d exits", tids[0],
			 count[0], tids[1], count[1], other, forks, exits);
	}
}

/* perf list: the model's sysfs events (Kernel PMU event) and, through
 * PERF_CPUID, perf's own JSON table of the modelled CPU */
static void test_perf_list(void **state)
{
	char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
			 (char *)"list", (char *)"pmu", NULL };
	static struct result r;

	(void)state;
	if (access(PERF, X_OK))
		skip();
	run(argv, 60, &r);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) ||
	    !strstr(r.out, "cpu/instructions/") || !strstr(r.out, "[Kernel PMU event]") ||
	    !strstr(r.out, "\n  inst_retired.any")) {
		dump(&r);
		fail_msg("perf list does not show the model's events");
	}
}

/* Raw and sysfs-named events, parsed by perf through the virtual sysfs
 * (type, format/, events/) into raw configs the core opens, counting
 * loop.S exactly (2N+4 instructions, N branches, N = 1000000). */
static const struct {
	int line;
	const char *from;
	const char *model, *event;
	unsigned long long want;
	const char *log;        /* what the shim's log must show, or NULL */
} raw_rows[] = {
	{ __LINE__, "INST_RETIRED.ANY_P (event 0xc0, umask 0)", "skylake",
	  "cpu/event=0xc0,umask=0x00/u", 2000004, "perf_event_open(type 4, config 0xc0," },
	{ __LINE__, "BR_INST_RETIRED.ALL_BRANCHES (event 0xc4)", "skylake",
	  "cpu/event=0xc4/u", 1000000, "perf_event_open(type 4, config 0xc4," },
	{ __LINE__, "umask into config:8-15: INST_RETIRED.PREC_DIST, retired instructions",
	  "skylake", "cpu/event=0xc0,umask=0x01/u", 2000004, "perf_event_open(type 4, config 0x1c0," },
	{ __LINE__, "events/inst_retired.any (event=0xc0)", "skylake", "cpu/inst_retired.any/u",
	  2000004, NULL },
	{ __LINE__, "PMUv3 INST_RETIRED (0x08), the model's type", "pmuv3",
	  "armv8_pmuv3_0/event=0x08/u", 2000004, "perf_event_open(type 10, config 0x8," },
	{ __LINE__, "ARMV8_EVENT_ATTR(inst_retired)", "pmuv3", "armv8_pmuv3_0/inst_retired/u",
	  2000004, NULL },
};

static void test_perf_raw_syntax(void **state)
{
	const char *loop = getenv("RUN_LOOP");

	(void)state;
	if (access(PERF, X_OK) || !loop)
		skip();
	for (size_t i = 0; i < sizeof(raw_rows) / sizeof(raw_rows[0]); i++) {
		char log[] = "/tmp/pmusim-test-run-XXXXXX";
		int fd = mkstemp(log);
		char *argv[] = { (char *)pmusim(), (char *)"run", (char *)"--model",
				 (char *)raw_rows[i].model, (char *)"--log", log, (char *)"--",
				 (char *)PERF, (char *)"stat", (char *)"-x,", (char *)"-e",
				 (char *)raw_rows[i].event, (char *)"--", (char *)loop, NULL };
		static struct result r;
		char text[8192] = "", *f[16];
		bool ok;

		assert_true(fd >= 0);
		run(argv, 60, &r);
		assert_true(read(fd, text, sizeof(text) - 1) >= 0);
		close(fd);
		unlink(log);
		ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 &&
		     (!raw_rows[i].log || strstr(text, raw_rows[i].log)) &&
		     csv_fields(r.err, f, 16) >= 5 && strtoull(f[0], NULL, 10) == raw_rows[i].want &&
		     strchr("0123456789", f[0][0]);
		if (!ok) {
			dump(&r);
			print_message("--- log:\n%s", text);
			fail_msg("row at line %d (%s): %s", raw_rows[i].line, raw_rows[i].from,
				 raw_rows[i].event);
		}
	}
}

/* The shim leaves unmonitored work alone: same bytes, no perf traffic. */
static void test_sha256_untouched(void **state)
{
	char file[] = "/tmp/pmusim-test-sha-XXXXXX", log[] = "/tmp/pmusim-test-log-XXXXXX";
	int fd = mkstemp(file), lfd = mkstemp(log);
	char *native[] = { (char *)"sha256sum", file, NULL };
	char *under[] = { (char *)pmusim(), (char *)"run", (char *)"--log", log, (char *)"--",
			  (char *)"sha256sum", file, NULL };
	static struct result a, b;
	char buf[65536], text[4096] = "";

	(void)state;
	assert_true(fd >= 0 && lfd >= 0);
	for (int i = 0; i < 256; i++) {
		memset(buf, i, sizeof(buf));
		assert_int_equal(write(fd, buf, sizeof(buf)), (int)sizeof(buf));
	}
	close(fd);
	run(native, 60, &a);
	run(under, 60, &b);
	assert_true(read(lfd, text, sizeof(text) - 1) >= 0);
	close(lfd);
	unlink(file);
	unlink(log);
	assert_true(WIFEXITED(b.status) && WEXITSTATUS(b.status) == 0);
	assert_string_equal(a.out, b.out);
	assert_null(strstr(text, "perf_event_open"));
	assert_null(strstr(text, "execve"));
}

/*
 * A program exec'd by a shimmed process inherits the caller's signal mask
 * and ignored set (execve keeps both), not the SIGSYS handler's: the same
 * lines as the native run, for a native grandchild and for an emulated
 * workload under perf stat (whose guest mask is mirrored on the host).
 */
static const struct {
	int line;
	const char *name;
	const char *script;
} exec_mask_rows[] = {
	{ __LINE__, "native grandchild", "sh -c 'grep -E \"^Sig(Blk|Ign)\" /proc/self/status'" },
	{ __LINE__, "emulated workload of perf stat",
	  "perf stat -x, -o /dev/null -e instructions:u -- grep -E \"^Sig(Blk|Ign)\" /proc/self/status" },
};

/* Runs script with /bin/sh natively and under pmusim run: the same exit
 * status and the same (non-empty) stdout, or the row fails. */
static void check_like_native(int line, const char *name, const char *script, int timeout_s)
{
	char *native[] = { (char *)"/bin/sh", (char *)"-c", (char *)script, NULL };
	static struct result a, b;

	run(native, timeout_s, &a);
	run_under(script, timeout_s, &b);
	if (a.status != b.status || !a.out[0] || strcmp(a.out, b.out) != 0) {
		print_message("--- native: status %#x\n%s", a.status, a.out);
		dump(&b);
		fail_msg("row at line %d (%s)", line, name);
	}
}

static void test_exec_mask(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(exec_mask_rows) / sizeof(exec_mask_rows[0]); i++)
		check_like_native(exec_mask_rows[i].line, exec_mask_rows[i].name,
				  exec_mask_rows[i].script, 30);
}

/*
 * Children of glibc's system(), popen() and posix_spawn() (and of the
 * programs built on them): the spawn child resets every handled signal,
 * SIGSYS included, to SIG_DFL with raw rt_sigaction calls while all
 * signals are blocked (__spawni_child), then execs. The same stdout and
 * status as the native run.
 */
static const struct {
	int line;
	const char *name;
	const char *script;
	int timeout_s;
} spawn_rows[] = {
	{ __LINE__, "system, popen, posix_spawn", "\"$SHIM_CLIENT\" spawn", 30 },
	{ __LINE__, "python os.system", "python3 -c 'import os; print(os.system(\"echo x\"))'", 30 },
	{ __LINE__, "python os.popen", "python3 -c 'import os; print(os.popen(\"echo p\").read())'", 30 },
	{ __LINE__, "python subprocess.run (vfork)",
	  "python3 -c 'import subprocess; print(subprocess.run([\"echo\", \"y\"]).returncode)'", 30 },
	{ __LINE__, "bash command substitution", "bash -c 'echo $(echo z) $(/bin/echo w)'", 30 },
	{ __LINE__, "perf test 19 ('import perf' in python: a shell-out)", PERF " test 19 2>&1", 120 },
	{ __LINE__, "perf test 72 (dlfilter C API: compiles with gcc)", PERF " test 72 2>&1", 120 },
};

static void test_spawn(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(spawn_rows) / sizeof(spawn_rows[0]); i++)
		check_like_native(spawn_rows[i].line, spawn_rows[i].name, spawn_rows[i].script,
				  spawn_rows[i].timeout_s);
}

/*
 * Bad pointers (0x1000, a read-only page, a buffer running into an
 * unreadable page) in perf_event_open, read, readv, the ioctls, fcntl,
 * epoll, poll, select, execve: the caller's EFAULT (or whatever the kernel
 * answers first), never a crash of the shim. shim_client efault prints
 * each call's result; natively on a software event (the host's
 * perf_fops), under pmusim run on a hardware event (the core's): the
 * same lines.
 */
static void test_efault(void **state)
{
	(void)state;
	check_like_native(__LINE__, "bad pointers in perf calls", "\"$SHIM_CLIENT\" efault", 30);
}

/*
 * A native process counting its own native code reads 0: pmusim says so
 * once per process, in one line on stderr. perf opening events for its
 * workload (re-executed under the emulator) and perf's probes of the PMU
 * on itself (perf list) get no such line.
 */
static const struct {
	int line;
	const char *name, *script;
	const char *who;        /* the one note's process (its comm), or NULL: none */
	bool status_racy;       /* perf may fail on its own: a thread of the
				 * system exits while it scans them ("Couldn't
				 * resolve comm name", "failed to parse CPUs
				 * map"); only the notes count */
} self_note_rows[] = {
	{ __LINE__, "a native program counting itself", "\"$SHIM_CLIENT\" selfcount", "shim_client", false },
	/* PAPI's start-up probe maps the user page (rdpmc) and says nothing;
	 * counting does (comm keeps 15 characters) */
	{ __LINE__, "papi_avail's probe", "papi_avail", NULL, false },
	{ __LINE__, "papi_command_line counting", "papi_command_line PAPI_TOT_INS", "papi_command_li", false },
	{ __LINE__, "perf stat of a workload", PERF " stat -x, -e instructions:u -- /bin/true", NULL, false },
	{ __LINE__, "perf list's probes on itself", PERF " list hw", NULL, false },
	/* perf counts every thread of the system, itself among them */
	{ __LINE__, "perf stat --per-thread -a", PERF " stat -x, --per-thread -a -e instructions true",
	  NULL, true },
};

static void test_self_note(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(self_note_rows) / sizeof(self_note_rows[0]); i++) {
		static struct result r;
		int notes = 0;
		char want[64];

		run_under(self_note_rows[i].script, 60, &r);
		for (char *l = r.err; (l = strstr(l, "counts its own native code")); l++)
			notes++;
		snprintf(want, sizeof(want), "pmusim: %s[", self_note_rows[i].who ? self_note_rows[i].who : "");
		if ((!self_note_rows[i].status_racy && (!WIFEXITED(r.status) || WEXITSTATUS(r.status))) ||
		    notes != !!self_note_rows[i].who ||
		    (notes && (strncmp(r.err, want, strlen(want)) || count_lines(r.err) != 1 ||
			       !strstr(r.err, "'pmusim exec'")))) {
			dump(&r);
			fail_msg("row at line %d (%s): %d notes", self_note_rows[i].line,
				 self_note_rows[i].name, notes);
		}
	}
}

/*
 * pmusim run killed while its command runs: perf, a native background
 * process and the emulated workload all end within a few seconds, as
 * they would had the kernel's PDEATHSIG reached every one of them.
 * SIGTERM and SIGHUP end pmusim run (their default action) and so the
 * tree; the terminal's SIGINT stays the command's to decide.
 */
#define TREE_MAX 64

static pid_t ppid_of(pid_t pid, char *state)
{
	char path[64], buf[512], *p;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d", state, &ppid) != 2)
		return 0;
	return ppid;
}

/* The live descendants of root; *emulated: whether one is an emulated
 * task (`pmusim exec --attach-arena`). */
static int tree_of(pid_t root, pid_t *out, bool *emulated)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	*emulated = false;
	while (d && (e = readdir(d)) && n < TREE_MAX) {
		pid_t pid = atoi(e->d_name), up = pid;
		char state = 0, path[64], cmd[4096];
		bool under = false;
		size_t k;
		FILE *f;

		if (pid <= 1 || pid == root)
			continue;
		for (int depth = 0; up > 1 && depth < 64 && !under; depth++) {
			char st;

			up = ppid_of(up, &st);
			under = up == root;
		}
		if (!under || !ppid_of(pid, &state) || state == 'Z')
			continue;
		out[n++] = pid;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		f = fopen(path, "re");
		if (f) {
			k = fread(cmd, 1, sizeof(cmd) - 1, f);
			fclose(f);
			for (size_t i = 0; i + 14 <= k; i++)
				if (memcmp(cmd + i, "--attach-arena", 14) == 0)
					*emulated = true;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static const struct {
	int line;
	int sig;
} killed_rows[] = {
	{ __LINE__, SIGKILL },
	{ __LINE__, SIGTERM },
	{ __LINE__, SIGHUP },
};

static void test_killed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(killed_rows) / sizeof(killed_rows[0]); i++) {
		pid_t tree[TREE_MAX], run_pid;
		bool emulated = false, gone = false;
		int n = 0, status;

		run_pid = fork();
		assert_true(run_pid >= 0);
		if (run_pid == 0) {
			int null = open("/dev/null", O_RDWR);

			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			/* as from a terminal: under nohup the signal would be
			 * ignored, and pmusim run keeps an inherited SIG_IGN */
			signal(killed_rows[i].sig, SIG_DFL);
			execlp(pmusim(), pmusim(), "run", "--", "/bin/sh", "-c",
			       "sleep 1000 & exec " PERF " stat -e instructions:u -- sleep 999",
			       (char *)NULL);
			_exit(127);
		}
		/* perf, the native sleep and the emulated one */
		for (int t = 0; t < 300 && !(emulated && n >= 3); t++) {
			usleep(100000);
			n = tree_of(run_pid, tree, &emulated);
		}
		kill(run_pid, killed_rows[i].sig);
		for (int t = 0; t < 100 && !gone; t++) {
			usleep(50000);
			gone = waitpid(run_pid, &status, WNOHANG) == run_pid;
		}
		for (int t = 0; t < 100 && gone; t++) {
			int alive = 0;

			for (int k = 0; k < n; k++) {
				char st = 0;

				alive += ppid_of(tree[k], &st) && st != 'Z';
			}
			if (!alive)
				break;
			usleep(50000);
			if (t == 99)
				gone = false;
		}
		if (!emulated || n < 3 || !gone) {
			for (int k = 0; k < n; k++)
				kill(tree[k], SIGKILL);
			kill(run_pid, SIGKILL);
			waitpid(run_pid, &status, 0);
			fail_msg("row at line %d (signal %d): %d processes%s, %s", killed_rows[i].line,
				 killed_rows[i].sig, n, emulated ? "" : ", no emulated task",
				 gone ? "" : "the tree outlived pmusim run (or pmusim run lives)");
		}
	}
}

/*
 * Debian perf's own tests (tools/perf/tests) under pmusim run: the result
 * of each (sub)test line ("Ok", "Skip (reason)", "FAILED!") against an
 * oracle. want NULL: the same test run natively on this host, whose
 * kernel gives the records and the mmap page these tests check (4.1: the
 * host's tracepoint records in the ring perf maps, read with no syscall
 * after the workload's; 51: a syscalls:sys_enter_prctl sample per
 * PR_SET_NAME, which the shim serves with no prctl of its own; 8: the
 * PERF_RECORD_MMAP of the workload's [vdso]; 71.2: Skip where the host's
 * page advertises no TSC conversion, as under the shim, whose native
 * reader cannot convert the simulated clock). Otherwise the result a
 * kernel with a PMU gives where this host has none (28: the dummy
 * side-band event and cycles share one ring through SET_OUTPUT).
 */
static const struct {
	int line;
	const char *test, *from;
	const char *want;       /* the result line's status; NULL: the native run's */
} perftest_rows[] = {
	{ __LINE__, "4", "perf_mmap() of host tracepoints read with no syscall after the workload", NULL },
	{ __LINE__, "8", "perf_event_mmap() of the vdso special mapping at exec", NULL },
	{ __LINE__, "51", "one sys_enter_prctl per PR_SET_NAME, whose COMM the shim writes", NULL },
	{ __LINE__, "71", "arch_perf_update_userpage() without a stable TSC", NULL },
	{ __LINE__, "28", "perf_event_set_output() of cycles into the host dummy's ring", "Ok" },
};

/* The "N: desc : STATUS" lines of perf test's output (stderr), status only, in
 * order, one per line, into out. */
static void perftest_statuses(const char *text, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = 0;
	for (const char *l = text; *l; ) {
		const char *e = strchr(l, '\n'), *c;
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)(len < 511 ? len : 511), l);
		c = strrchr(line, ':');
		if (c && line[strspn(line, " ")] >= '0' && line[strspn(line, " ")] <= '9' && c[1])
			n += (size_t)snprintf(out + n, cap - n, "%s\n", c + 2);
		l += len + (e != NULL);
		if (n >= cap)
			break;
	}
}

static void test_perf_selftests(void **state)
{
	(void)state;
	if (access(PERF, X_OK))
		skip();
	for (size_t i = 0; i < sizeof(perftest_rows) / sizeof(perftest_rows[0]); i++) {
		char *nat_argv[] = { (char *)PERF, (char *)"test", (char *)perftest_rows[i].test,
				     NULL };
		char *sim_argv[] = { (char *)pmusim(), (char *)"run", (char *)"--", (char *)PERF,
				     (char *)"test", (char *)perftest_rows[i].test, NULL };
		static struct result nat, sim;
		char want[1024], got[1024];

		print_message("row line %d: perf test %s (%s)\n", perftest_rows[i].line,
			      perftest_rows[i].test, perftest_rows[i].from);
		if (perftest_rows[i].want) {
			snprintf(want, sizeof(want), "%s\n", perftest_rows[i].want);
		} else {
			run(nat_argv, 60, &nat);
			perftest_statuses(nat.err, want, sizeof(want));
		}
		run(sim_argv, 60, &sim);
		perftest_statuses(sim.err, got, sizeof(got));
		if (!want[0] || strcmp(want, got)) {
			dump(&sim);
			fail_msg("row at line %d: perf test %s: want\n%sgot\n%s", perftest_rows[i].line,
				 perftest_rows[i].test, want, got);
		}
	}
}

/* Five groups, each its own meson test so each stays well under its time
 * budget: "shim" (pmusim run itself and a native client), "stat", "raw",
 * "record" and "report" (Debian's perf). No argument runs all. */
int main(int argc, char **argv)
{
	const struct CMUnitTest shim_tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_vfs),
		cmocka_unit_test(test_client),
		cmocka_unit_test(test_sha256_untouched),
		cmocka_unit_test(test_exec_mask),
		cmocka_unit_test(test_spawn),
		cmocka_unit_test(test_killed),
		cmocka_unit_test(test_efault),
		cmocka_unit_test(test_self_note),
	};
	const struct CMUnitTest stat_tests[] = {
		cmocka_unit_test(test_perf_stat_sw),
		cmocka_unit_test(test_perf_stat_exact),
		cmocka_unit_test(test_perf_stat_inherit),
		cmocka_unit_test(test_perf_stat_family),
		cmocka_unit_test(test_perf_stat_system_wide),
		cmocka_unit_test(test_perf_mux),
	};
	const struct CMUnitTest raw_tests[] = {
		cmocka_unit_test(test_perf_raw_syntax),
		cmocka_unit_test(test_perf_list),
		cmocka_unit_test(test_perf_selftests),
	};
	const struct CMUnitTest record_tests[] = {
		cmocka_unit_test(test_perf_record),
		cmocka_unit_test(test_perf_record_tracepoint),
		cmocka_unit_test(test_perf_workload_status),
	};
	const struct CMUnitTest report_tests[] = {
		cmocka_unit_test(test_perf_report),
		cmocka_unit_test(test_perf_callchain),
		cmocka_unit_test(test_perf_record_inherit),
		cmocka_unit_test(test_perf_record_threads),
		cmocka_unit_test(test_perf_record_family),
	};
	const char *group = argc > 1 ? argv[1] : "all";
	bool all = strcmp(group, "all") == 0;
	int fails = 0;

	if (all || strcmp(group, "shim") == 0)
		fails += cmocka_run_group_tests_name("shim", shim_tests, NULL, NULL);
	if (all || strcmp(group, "stat") == 0)
		fails += cmocka_run_group_tests_name("stat", stat_tests, NULL, NULL);
	if (all || strcmp(group, "raw") == 0)
		fails += cmocka_run_group_tests_name("raw", raw_tests, NULL, NULL);
	if (all || strcmp(group, "record") == 0)
		fails += cmocka_run_group_tests_name("record", record_tests, NULL, NULL);
	if (all || strcmp(group, "report") == 0)
		fails += cmocka_run_group_tests_name("report", report_tests, NULL, NULL);
	return fails;
}
