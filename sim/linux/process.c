/*
 * process.c - guest processes: fork and vfork (a host fork; the child keeps
 * emulating on its copy of the engine and of guest memory), execve (checks
 * in the kernel's order, then pmusim re-executes itself in the same pid to
 * run the new image: a fresh address space, engine and thread set, exactly
 * what exec gives the native program), wait4/waitid (the host's), and
 * exit_group.
 *
 * What a host exec carries over is what the kernel carries over: the pid,
 * open fds without FD_CLOEXEC, the blocked mask, SIG_IGN dispositions and
 * pending signals (signal_process_init() reads them back), cwd, rlimits.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>
#include "sim/cpu/pmu_machine.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/futex.h"
#include "sim/linux/guest.h"
#include "sim/linux/linux_arch.h"
#include "sim/cpu/cg_model.h"
#include "sim/linux/process.h"
#include "sim/linux/procfs.h"
#include "sim/linux/signal.h"
#include "sim/linux/sys_perf.h"
#include "sim/linux/thread.h"
#include "sim/linux/thread_lock.h"

#define BINPRM_BUF_SIZE 256            /* include/uapi/linux/binfmts.h */
#define MAX_EXEC_DEPTH 5               /* search_binary_handler() nesting */
#define EXEC_MAX_ARGS 65536

static char **reexec_pre;              /* "exec" and the session's options */
static int reexec_npre;
static int vfork_wr = -1;              /* a vfork child's end of the parent's wait pipe */

int process_set_reexec(int nargs, char *const args[])
{
	char **v = calloc((size_t)nargs + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < nargs; i++) {
		v[i] = strdup(args[i]);
		if (!v[i])
			return -ENOMEM;
	}
	reexec_pre = v;
	reexec_npre = nargs;
	return 0;
}

int process_init(struct guest_process *p, struct guest_thread *leader)
{
	int err;

	err = signal_process_init(p);
	if (err)
		return err;
	thread_set_leader();
	if (leader) {
		leader->tid = (int)syscall(SYS_gettid);
		err = signal_thread_init(leader);
	}
	return err;
}

/* ---- fork ------------------------------------------------------------ */

/* Moves fd above the numbers the guest uses and makes it pmusim's own
 * (guest_fd_reserve), so the guest never sees it. Not above the soft
 * RLIMIT_NOFILE: other guest threads run meanwhile, and a raised limit
 * would let their fds go past it (sim/core/fd_place.h). */
static int hide_fd(struct guest_process *p, int fd)
{
	int nfd = fcntl(fd, F_DUPFD_CLOEXEC, 1024);

	if (nfd < 0)
		return fd;   /* a low RLIMIT_NOFILE: keep it where it is */
	close(fd);
	guest_fd_reserve(p, nfd, true);
	return nfd;
}

/* Closes a hide_fd() fd. */
static void hidden_close(struct guest_process *p, int fd)
{
	guest_fd_reserve(p, fd, false);
	close(fd);
}

/*
 * copy_process() without CLONE_VM (and vfork, run as a fork the way
 * qemu-user runs it): a host fork. The parent of a vfork waits until the
 * child has exec'd or exited (the kernel's vfork completion), here through
 * a close-on-exec pipe the child holds.
 */
long process_fork(struct guest_thread *t, uint64_t flags, uint64_t newsp,
		  uint64_t ptid, uint64_t ctid, uint64_t tls)
{
	struct guest_process *p = t->proc;
	int wp[2] = { -1, -1 };
	bool vfork = flags & CLONE_VFORK;
	pid_t pid;

	if (vfork && pipe2(wp, O_CLOEXEC) == 0) {
		wp[0] = hide_fd(p, wp[0]);
		wp[1] = hide_fd(p, wp[1]);
	}
	/* no lock of the address space may be held by a thread that the
	 * child will not have */
	pthread_mutex_lock(&p->mm.lock);
	pthread_mutex_lock(&p->lock);
	pid = fork();
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->mm.lock);
	if (pid < 0) {
		int e = errno;

		if (wp[0] >= 0) {
			hidden_close(p, wp[0]);
			hidden_close(p, wp[1]);
		}
		return -e;
	}
	/* dup_mmap(): a vfork child shares the mm, a fork child gets a copy */
	if (!vfork)
		guest_mm_after_fork(&p->mm, pid == 0, t->cpu);
	if (pid == 0) {
		struct guest_thread *o, *tmp;

		p->pid = getpid();
		t->tid = (int)syscall(SYS_gettid);
		/* only the forking thread exists in the child */
		pthread_mutex_lock(&p->lock);
		list_for_each_entry_safe(o, tmp, &p->threads, node) {
			if (o == t)
				continue;
			list_del(&o->node);
			p->nr_threads--;
			guest_mm_remove_engine(&p->mm, o->cpu);
		}
		pthread_mutex_unlock(&p->lock);
		thread_set_leader();
		thread_lock_after_fork_child();
		if (t->cpu->pmu)
			pmu_vcpu_forked(t->cpu->pmu);
		signal_after_fork_child(t);
		if (vfork_wr >= 0) {
			hidden_close(p, vfork_wr); /* a grandchild does not hold our parent */
			vfork_wr = -1;
		}
		if (wp[0] >= 0) {
			hidden_close(p, wp[0]);
			vfork_wr = wp[1];
		}
		if ((flags & CLONE_CHILD_SETTID) &&
		    guest_mm_access_ok(&p->mm, ctid, 4, PROT_WRITE))
			*(int *)(uintptr_t)ctid = t->tid;
		t->clear_child_tid = (flags & CLONE_CHILD_CLEARTID) ? ctid : 0;
		t->robust_list = 0;             /* copy_process() */
		if (flags & CLONE_SETTLS) {
			t->fs_base = tls;
			vcpu_set_tls(t->cpu, tls);
		}
		if (newsp)
			vcpu_set_sp(t->cpu, newsp);
		return 0;
	}
	if ((flags & CLONE_PARENT_SETTID) &&
	    guest_mm_access_ok(&p->mm, ptid, 4, PROT_WRITE))
		*(int *)(uintptr_t)ptid = pid;
	if (wp[0] >= 0) {
		char c;

		hidden_close(p, wp[1]);
		while (read(wp[0], &c, 1) < 0 && errno == EINTR)
			;
		hidden_close(p, wp[0]);
	}
	return pid;
}

long sys_fork(struct guest_thread *t, const uint64_t a[6])
{
	(void)a;
	return process_fork(t, SIGCHLD, 0, 0, 0, 0);
}

long sys_vfork(struct guest_thread *t, const uint64_t a[6])
{
	(void)a;
	return process_fork(t, CLONE_VFORK | SIGCHLD, 0, 0, 0, 0);
}

/* ---- execve ---------------------------------------------------------- */

/* The interpreter named by a "#!" line (load_script()); -ENOEXEC if none. */
static int script_interp(const char *buf, size_t n, char *out, size_t outlen)
{
	size_t i = 2, j = 0;
	const char *nl = memchr(buf, '\n', n);
	size_t end = nl ? (size_t)(nl - buf) : n;

	while (i < end && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	while (i < end && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\0') {
		if (j + 1 >= outlen)
			return -ENOEXEC;
		out[j++] = buf[i++];
	}
	/* an interpreter name cut by the buffer end is not trusted */
	if (!nl && i == end && n == BINPRM_BUF_SIZE)
		return -ENOEXEC;
	out[j] = '\0';
	return j ? 0 : -ENOEXEC;
}

/* do_open_execat(): a regular, executable file. Returns an fd or -errno. */
static int open_exec(const char *path)
{
	struct stat sb;
	int fd;

	if (!*path)
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EACCES;
	}
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS)) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* load_elf_binary()'s checks before the point of no return, up to opening
 * PT_INTERP: ET_EXEC or ET_DYN, an architecture linux_arch.h knows (the
 * header is read as 64-bit whatever EI_CLASS and EI_DATA say), the program
 * headers' size, and an interpreter that opens. */
static int elf_check(int fd, const unsigned char *buf, size_t n)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;

	if (n < sizeof(*eh))
		return -ENOEXEC;
	if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN)
		return -ENOEXEC;
	if (!linux_arch_by_elf(eh->e_machine))
		return -ENOEXEC;
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum < 1 || eh->e_phnum > 65536 / sizeof(Elf64_Phdr))
		return -ENOEXEC;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		char interp[PATH_MAX];
		int ifd;

		/* load_elf_phdrs() gives NULL for a short read: ENOEXEC */
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + i * sizeof(ph))) != sizeof(ph))
			return -ENOEXEC;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz > PATH_MAX || ph.p_filesz < 2)
			return -ENOEXEC;
		if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
			return -EIO;
		if (interp[ph.p_filesz - 1] != '\0')
			return -ENOEXEC;
		ifd = open_exec(interp);
		if (ifd < 0)
			return ifd;
		close(ifd);
		break;
	}
	return 0;
}

static int exec_check_depth(const char *path, int depth)
{
	unsigned char buf[BINPRM_BUF_SIZE];
	char interp[BINPRM_BUF_SIZE];
	ssize_t n;
	int fd, err;

	if (depth > MAX_EXEC_DEPTH)
		return -ELOOP;
	fd = open_exec(path);
	if (fd < 0)
		return fd;
	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		err = script_interp((const char *)buf, (size_t)n, interp, sizeof(interp));
		if (!err)
			err = exec_check_depth(interp, depth + 1);
		goto out;
	}
	if (n >= SELFMAG && !memcmp(buf, ELFMAG, SELFMAG)) {
		err = elf_check(fd, buf, (size_t)n);
		goto out;
	}
	err = -ENOEXEC;
out:
	close(fd);
	return err;
}

int process_exec_check(const char *path)
{
	return exec_check_depth(path, 0);
}

/* Copies a guest NUL-terminated string (strncpy_from_user()). */
static char *guest_strdup(struct guest_thread *t, uint64_t addr, int *err)
{
	size_t len = 0;

	/* the page-wise walk of strncpy_from_user(): stop at the first NUL */
	for (;;) {
		uint64_t page_end = (addr + len + 4096) & ~4095ull;
		uint64_t chunk = page_end - (addr + len);
		const char *s = (const char *)(uintptr_t)(addr + len);
		const char *z;

		if (!guest_mm_access_ok(&t->proc->mm, addr + len, chunk, PROT_READ)) {
			*err = -EFAULT;
			return NULL;
		}
		z = memchr(s, 0, chunk);
		if (z) {
			len += (size_t)(z - s);
			break;
		}
		len += chunk;
		if (len > (1u << 21)) {
			*err = -E2BIG;
			return NULL;
		}
	}
	return strndup((const char *)(uintptr_t)addr, len);
}

/* Copies a guest NULL-terminated vector of strings (count() + copy_strings()). */
static char **guest_strv(struct guest_thread *t, uint64_t addr, int *n, int *err)
{
	char **v = NULL;
	int cnt = 0;

	for (;;) {
		uint64_t p;
		char **nv;

		if (!addr)
			break;
		if (!guest_mm_access_ok(&t->proc->mm, addr + 8ull * cnt, 8, PROT_READ)) {
			*err = -EFAULT;
			goto fail;
		}
		p = *(uint64_t *)(uintptr_t)(addr + 8ull * cnt);
		if (!p)
			break;
		if (cnt >= EXEC_MAX_ARGS) {
			*err = -E2BIG;
			goto fail;
		}
		nv = realloc(v, sizeof(*v) * ((size_t)cnt + 2));
		if (!nv) {
			*err = -ENOMEM;
			goto fail;
		}
		v = nv;
		v[cnt] = guest_strdup(t, p, err);
		if (!v[cnt])
			goto fail;
		cnt++;
	}
	if (!v) {
		v = calloc(1, sizeof(*v));
		if (!v) {
			*err = -ENOMEM;
			return NULL;
		}
	}
	v[cnt] = NULL;
	*n = cnt;
	return v;
fail:
	for (int i = 0; i < cnt; i++)
		free(v[i]);
	free(v);
	return NULL;
}

static void strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

/*
 * do_execveat_common(): the checks that can fail with an errno, then the
 * point of no return: pmusim runs itself on the new image in this pid.
 */
/* The guest's own image under the names the host would resolve to pmusim:
 * /proc/self/exe, /proc/thread-self/exe, /proc/<pid>/exe. */
static const char *exe_alias(struct guest_thread *t, const char *path)
{
	return procfs_classify(t, path) == PROCFS_EXE ? t->proc->exe_path : path;
}

static long do_execve(struct guest_thread *t, const char *path, uint64_t uargv,
		      uint64_t uenvp)
{
	char **argv = NULL, **envp = NULL, **nargv = NULL;
	int argc = 0, envc = 0, err = 0, k = 0;
	long ret;

	path = exe_alias(t, path);

	argv = guest_strv(t, uargv, &argc, &err);
	if (!argv)
		return err;
	envp = guest_strv(t, uenvp, &envc, &err);
	if (!envp) {
		ret = err;
		goto out;
	}
	ret = process_exec_check(path);
	if (ret)
		goto out;
	if (!reexec_pre) {
		ret = -ENOSYS;
		goto out;
	}
	nargv = calloc((size_t)reexec_npre + (size_t)argc + 6, sizeof(*nargv));
	if (!nargv) {
		ret = -ENOMEM;
		goto out;
	}
	nargv[k++] = "pmusim";
	for (int i = 0; i < reexec_npre; i++)
		nargv[k++] = reexec_pre[i];
	/* an empty argv is allowed: the kernel then passes argc 0... since
	 * 5.18 it inserts "" as argv[0] (bprm_stack_limits() warning) */
	nargv[k++] = "--argv0";
	nargv[k++] = argc ? argv[0] : "";
	nargv[k++] = "--";
	nargv[k++] = (char *)path;
	for (int i = 1; i < argc; i++)
		nargv[k++] = argv[i];
	nargv[k] = NULL;

	fflush(NULL);
	signal_before_exec(t);
	/* exec_mm_release() of this thread, and de_thread()'s kills of the
	 * others (a failed execve after the checks above is not undone) */
	futex_exit_robust_lists(t->proc, t, false);
	perf_guest_exec_begin();         /* exec_mmap(), do_close_on_exec() */
	execve("/proc/self/exe", nargv, envp);
	ret = -errno;
	perf_guest_exec_failed();
	signal_exec_failed(t);
out:
	free(nargv);
	strv_free(argv);
	strv_free(envp);
	return ret;
}

long sys_execve(struct guest_thread *t, const uint64_t a[6])
{
	int err = 0;
	char *path = guest_strdup(t, a[0], &err);
	long ret;

	if (!path)
		return err;
	ret = do_execve(t, path, a[1], a[2]);
	free(path);
	return ret;
}

/* execveat(dirfd, path, argv, envp, flags): a path relative to dirfd is
 * made absolute through /proc/self/fd (what fexecve does). */
long sys_execveat(struct guest_thread *t, const uint64_t a[6])
{
	int err = 0, dirfd = (int)a[0], flags = (int)a[4];
	char *path = guest_strdup(t, a[1], &err);
	char full[PATH_MAX + 32];
	long ret;

	if (!path)
		return err;
	if (flags & ~(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) {
		ret = -EINVAL;
		goto out;
	}
	if (path[0] == '/' || (dirfd == AT_FDCWD && path[0])) {
		ret = do_execve(t, path, a[2], a[3]);
	} else if (!path[0]) {
		if (!(flags & AT_EMPTY_PATH)) {
			ret = -ENOENT;
			goto out;
		}
		snprintf(full, sizeof(full), "/proc/self/fd/%d", dirfd);
		ret = do_execve(t, full, a[2], a[3]);
	} else {
		snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", dirfd, path);
		ret = do_execve(t, full, a[2], a[3]);
	}
out:
	free(path);
	return ret;
}

/* ---- wait and exit --------------------------------------------------- */

long sys_wait4(struct guest_thread *t, const uint64_t a[6])
{
	long r;

	r = signal_host_syscall(t, SYS_wait4, a);
	return r;
}

long sys_waitid(struct guest_thread *t, const uint64_t a[6])
{
	long r;

	r = signal_host_syscall(t, SYS_waitid, a);
	return r;
}

void (*process_exit_hook)(void);

__attribute__((noreturn)) void process_exit_group(struct guest_thread *t, int code)
{
	futex_exit_robust_lists(t->proc, t, false);   /* each thread's exit_mm_release() */
	if (process_exit_hook)
		process_exit_hook();
	fflush(NULL);
	cg_model_report();   /* --cache-model=cachegrind: its totals, as valgrind at exit */
	/* do_group_exit(): every thread ends, the status is code & 0xff */
	syscall(SYS_exit_group, code & 0xff);
	_exit(code & 0xff);
}

long sys_exit_group(struct guest_thread *t, const uint64_t a[6])
{
	t->exit_code = (int)(a[0] & 0xff);
	t->state = GUEST_EXIT_GROUP;
	vcpu_stop(t->cpu);
	return 0;
}
