/*
 * test_signals_unit.c - unit tests of signals and processes that need no
 * engine: rt_sigframe placement and contents (arch/x86/kernel/signal.c,
 * worked by hand from get_sigframe() and fpu__alloc_mathframe()), and
 * execve's checks (process_exec_check) against the real kernel's errno for
 * the same files (a forked child calls execve natively: the oracle).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "sim/linux/process.h"
#include "sim/linux/signal_frame.h"

/* ---- frame placement ------------------------------------------------- */

struct place_row {
	int line;
	const char *what;               /* the kernel rule */
	uint64_t sp;
	bool onstack;
	struct sig_altstack as;
	uint64_t frame, fp;             /* expected, worked by hand */
};

#define NOSTACK { 0, 0, SS_DISABLE }
static const struct place_row place_rows[] = {
	/* sp-128 = ..df80; -512 = ..dd80 (64-aligned); -440 = ..dbc8; &~15 - 8 */
	{ __LINE__, "get_sigframe: red zone, fx image, sp%16==8", 0x7ffffffde000ull, false,
	  NOSTACK, 0x7ffffffddbb8ull, 0x7ffffffddd80ull },
	{ __LINE__, "SA_ONSTACK without an altstack: normal stack", 0x7ffffffde000ull, true,
	  NOSTACK, 0x7ffffffddbb8ull, 0x7ffffffddd80ull },
	/* odd sp: 0x...e008-128 = ..df88; -512 = ..dd88 -> &~63 = ..dd80 */
	{ __LINE__, "fpu__alloc_mathframe: round_down 64", 0x7ffffffde008ull, false,
	  NOSTACK, 0x7ffffffddbb8ull, 0x7ffffffddd80ull },
	/* entering the altstack: top 0x14000; fx 0x13e00; frame 0x13c48 -> 0x13c38 */
	{ __LINE__, "sas_ss_flags()==0: switch to ss_sp+ss_size", 0x7ffffffde000ull, true,
	  { 0x10000, 0x4000, 0 }, 0x13c38, 0x13e00 },
	{ __LINE__, "no SA_ONSTACK: altstack not used", 0x7ffffffde000ull, false,
	  { 0x10000, 0x4000, 0 }, 0x7ffffffddbb8ull, 0x7ffffffddd80ull },
	/* already on it: 0x12000-128 = 0x11f80; fx 0x11d80; frame 0x11bb8 */
	{ __LINE__, "nested on the altstack: stays", 0x12000, true,
	  { 0x10000, 0x4000, 0 }, 0x11bb8, 0x11d80 },
	/* SS_AUTODISARM: on_sig_stack() is false, so the top is taken again */
	{ __LINE__, "SS_AUTODISARM: restart from the top", 0x12000, true,
	  { 0x10000, 0x4000, SS_AUTODISARM }, 0x13c38, 0x13e00 },
	/* nested with no room: 0x10100-128-512 below ss_sp -> bogus frame */
	{ __LINE__, "altstack overflow: -1L frame (SIGSEGV)", 0x10100, true,
	  { 0x10000, 0x4000, 0 }, 0, 0xfe80 },
};

static void test_frame_place(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(place_rows) / sizeof(place_rows[0]); i++) {
		const struct place_row *r = &place_rows[i];
		uint64_t fp = 0, f = sig_frame_place(r->sp, r->onstack, &r->as, &fp);

		if (f != r->frame || (r->frame && fp != r->fp)) {
			fail_msg("line %d (%s): frame %#lx fp %#lx, want %#lx %#lx", r->line,
				 r->what, (unsigned long)f, (unsigned long)fp,
				 (unsigned long)r->frame, (unsigned long)r->fp);
		}
	}
}

/* sas_ss_flags() and on_sig_stack() */
static void test_sas_flags(void **state)
{
	struct sig_altstack off = NOSTACK, on = { 0x10000, 0x4000, 0 },
			    dis = { 0x10000, 0x4000, SS_AUTODISARM };

	(void)state;
	assert_int_equal(sig_sas_flags(&off, 0x12000), SS_DISABLE);
	assert_int_equal(sig_sas_flags(&on, 0x12000), SS_ONSTACK);
	assert_int_equal(sig_sas_flags(&on, 0x14000), SS_ONSTACK);   /* sp - ss_sp <= size */
	assert_int_equal(sig_sas_flags(&on, 0x10000), 0);            /* sp > ss_sp strictly */
	assert_int_equal(sig_sas_flags(&on, 0x14001), 0);
	assert_int_equal(sig_sas_flags(&dis, 0x12000), 0);
}

/* x64_setup_rt_frame(): what the frame holds */
static void test_frame_build(void **state)
{
	struct k_rt_sigframe f;
	struct sig_regs r;
	struct sig_altstack as = { 0x10000, 0x4000, 0 };
	siginfo_t info;

	(void)state;
	memset(&r, 0, sizeof(r));
	memset(&info, 0, sizeof(info));
	r.sc.rip = 0x401000;
	r.sc.rsp = 0x12000;
	r.sc.rax = 42;
	r.sc.eflags = 0x246;
	info.si_signo = SIGUSR1;
	info.si_code = SI_TKILL;
	sig_frame_build(&f, &r, 0x11bb8, 0x11d80, 0x7000, &info, true, 0x5, &as);
	assert_int_equal(f.pretcode, 0x7000);
	assert_int_equal(f.uc.uc_flags, K_UC_SIGCONTEXT_SS | K_UC_STRICT_RESTORE_SS);
	assert_int_equal(f.uc.uc_link, 0);
	assert_int_equal(f.uc.uc_stack.ss_sp, 0x10000);
	assert_int_equal(f.uc.uc_stack.ss_size, 0x4000);
	assert_int_equal(f.uc.uc_stack.ss_flags, SS_ONSTACK);   /* of the interrupted sp */
	assert_int_equal(f.uc.uc_mcontext.rip, 0x401000);
	assert_int_equal(f.uc.uc_mcontext.rax, 42);
	assert_int_equal(f.uc.uc_mcontext.cs, K_USER_CS);
	assert_int_equal(f.uc.uc_mcontext.ss, K_USER_DS);
	assert_int_equal(f.uc.uc_mcontext.oldmask, 0x5);
	assert_int_equal(f.uc.uc_mcontext.fpstate, 0x11d80);
	assert_int_equal(f.uc.uc_sigmask, 0x5);
	assert_int_equal(f.info.si_signo, SIGUSR1);
	assert_int_equal(f.info.si_code, SI_TKILL);
	/* without SA_SIGINFO the info is not copied */
	sig_frame_build(&f, &r, 0x11bb8, 0x11d80, 0x7000, &info, false, 0x5, &as);
	assert_int_equal(f.info.si_signo, 0);
}

/* restore_sigcontext(): only FIX_EFLAGS bits come from the frame */
static void test_frame_restore(void **state)
{
	struct sig_regs r;
	struct k_sigcontext sc;

	(void)state;
	memset(&r, 0, sizeof(r));
	memset(&sc, 0, sizeof(sc));
	r.sc.eflags = 0x202 | 0x200000;      /* IF, ID */
	sc.eflags = 0xffffffff;
	sc.rip = 0x1234;
	sc.rcx = 7;
	sc.r11 = 9;
	sig_frame_restore(&r, &sc);
	assert_int_equal(r.sc.rip, 0x1234);
	assert_int_equal(r.sc.rcx, 7);
	assert_int_equal(r.sc.r11, 9);
	assert_int_equal(r.sc.eflags, (0x202 | 0x200000 | K_FIX_EFLAGS));
}

/* ---- execve checks against the kernel -------------------------------- */

static char tmpdir[64];

static void write_file(const char *name, const char *content, size_t n, mode_t mode)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, n), (ssize_t)n);
	close(fd);
	chmod(p, mode);
}

/* The kernel's answer: 0 if execve started the program, else its errno. */
static int native_execve_errno(const char *path)
{
	int pfd[2], e = 0, st;
	pid_t pid;

	assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
	pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)"x", NULL }, *envp[] = { NULL };
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, 1);
		dup2(devnull, 2);
		execve(path, argv, envp);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) != sizeof(e))
			_exit(99);
		_exit(127);
	}
	close(pfd[1]);
	if (read(pfd[0], &e, sizeof(e)) != sizeof(e))
		e = 0;
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return e;
}

static void test_exec_check_vs_kernel(void **state)
{
	static const unsigned char elf_arm64[64] = {
		0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		2, 0, 183, 0, 1, 0, 0, 0,          /* ET_EXEC, EM_AARCH64 */
	};
	static const unsigned char elf_32[64] = {
		0x7f, 'E', 'L', 'F', 1, 1, 1, 0,   /* ELFCLASS32 */
	};
	struct { int line; const char *path; } rows[] = {
		{ __LINE__, "/nonexistent/prog" },          /* do_open_execat: ENOENT */
		{ __LINE__, "" },                           /* getname: ENOENT */
		{ __LINE__, "/etc" },                       /* not S_ISREG: EACCES */
		{ __LINE__, "/etc/passwd" },                /* no exec permission */
		{ __LINE__, "/dev/null" },                  /* char device: EACCES */
		{ __LINE__, "/etc/passwd/x" },              /* ENOTDIR */
		{ __LINE__, "script_ok" },                  /* #! /bin/true: runs */
		{ __LINE__, "script_missing" },             /* #! missing: ENOENT */
		{ __LINE__, "script_noexec_interp" },       /* #! /etc/passwd: EACCES */
		{ __LINE__, "script_loop0" },               /* 6 levels of #!: ELOOP */
		{ __LINE__, "text_plain" },                 /* no format: ENOEXEC */
		{ __LINE__, "elf_arm64" },                  /* elf_check_arch: ENOEXEC */
		{ __LINE__, "elf_32" },                     /* ELFCLASS32 on x86-64 (no compat check here) */
		{ __LINE__, "empty" },                      /* ENOEXEC */
		{ __LINE__, "/bin/true" },                  /* runs */
	};
	char p[256];

	(void)state;
	write_file("script_ok", "#! /bin/true -x\n", 16, 0755);
	write_file("script_missing", "#!/nonexistent/interp\n", 22, 0755);
	write_file("script_noexec_interp", "#!/etc/passwd\n", 14, 0755);
	for (int i = 0; i < 6; i++) {
		char name[32], body[300];

		snprintf(name, sizeof(name), "script_loop%d", i);
		snprintf(body, sizeof(body), "#!%s/script_loop%d\n", tmpdir, i + 1);
		write_file(name, body, strlen(body), 0755);
	}
	write_file("script_loop6", "#!/bin/true\n", 12, 0755);
	write_file("text_plain", "echo hi\n", 8, 0755);
	write_file("elf_arm64", (const char *)elf_arm64, sizeof(elf_arm64), 0755);
	write_file("elf_32", (const char *)elf_32, sizeof(elf_32), 0755);
	write_file("empty", "", 0, 0755);

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int kern, ours;

		if (rows[i].path[0] && rows[i].path[0] != '/')
			snprintf(p, sizeof(p), "%s/%s", tmpdir, rows[i].path);
		else
			snprintf(p, sizeof(p), "%s", rows[i].path);
		kern = native_execve_errno(p);
		ours = -process_exec_check(p);
		if (kern != ours)
			fail_msg("line %d (%s): kernel errno %d (%s), ours %d (%s)", rows[i].line,
				 rows[i].path, kern, strerror(kern), ours, strerror(ours));
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/pmusim-signals-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_place),
		cmocka_unit_test(test_sas_flags),
		cmocka_unit_test(test_frame_build),
		cmocka_unit_test(test_frame_restore),
		cmocka_unit_test(test_exec_check_vs_kernel),
	};

	return cmocka_run_group_tests_name("signals_unit", tests, setup, teardown);
}
