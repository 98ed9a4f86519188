/*
 * procfs.c - the guest's own /proc/<pid> directory (procfs.h): which paths
 * name it, the files generated for the guest (cpuinfo, kallsyms, maps, auxv,
 * cmdline, environ, stat) and the directories whose entries are filtered (fd,
 * fdinfo, task: pmusim's own fds (guest_fd_reserved) and its
 * helper thread are not the guest's).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/kernel_symbols.h"
#include "sim/core/tracepoints.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/procfs.h"
#include "sim/linux/signal.h"

#define PAGE 4096ul

/* A decimal number without sign or leading zero, as proc's name_to_int()
 * takes it; *end is the first byte after it (s if none). -1 if none. */
static long proc_number(const char *s, const char **end)
{
	long v = 0;
	const char *p = s;

	*end = s;
	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return -1;
	while (*p >= '0' && *p <= '9' && v < INT_MAX)
		v = v * 10 + (*p++ - '0');
	*end = p;
	return p == s ? -1 : v;
}

const char *procfs_self_rest(struct guest_thread *t, const char *p)
{
	const char *e;

	if (strncmp(p, "/proc/", 6))
		return NULL;
	p += 6;
	if (!strncmp(p, "thread-self/", 12))
		return p + 12;
	if (!strncmp(p, "self/", 5)) {
		p += 5;
	} else {
		if (proc_number(p, &e) != t->proc->pid || *e != '/')
			return NULL;
		p = e + 1;
	}
	/* proc_task_lookup(): the calling thread's own task directory */
	if (!strncmp(p, "task/", 5) && proc_number(p + 5, &e) == t->tid && *e == '/')
		return e + 1;
	return p;
}

/* An fd number of pmusim's own. */
static bool hidden_fd(struct guest_process *p, long fd)
{
	return guest_fd_reserved(p, fd);
}

/* Is the directory entry name one the guest must not see in kind k? */
static bool hidden_name(struct guest_process *p, enum procfs_kind k, const char *name)
{
	const char *e;
	long v = proc_number(name, &e);

	if (v < 0 || *e)
		return false;
	if (k == PROCFS_DIR_TASK)
		return v == signal_helper_tid();
	return hidden_fd(p, v);
}

static const struct {
	const char *rest;
	enum procfs_kind kind;
} self_files[] = {
	{ "exe", PROCFS_EXE },
	{ "fd", PROCFS_DIR_FD }, { "fd/", PROCFS_DIR_FD },
	{ "fdinfo", PROCFS_DIR_FDINFO }, { "fdinfo/", PROCFS_DIR_FDINFO },
	{ "task", PROCFS_DIR_TASK }, { "task/", PROCFS_DIR_TASK },
	{ "maps", PROCFS_MAPS },
	{ "auxv", PROCFS_AUXV },
	{ "cmdline", PROCFS_CMDLINE },
	{ "environ", PROCFS_ENVIRON },
	{ "stat", PROCFS_STAT },
	{ "status", PROCFS_STATUS },
};

/* The simulated kernel's tracepoint that path names under tracefs
 * (/sys/kernel/tracing or /sys/kernel/debug/tracing), with *file its
 * "id" or "format"; NULL if none. */
static const struct tp_event *tracefs_event(const char *path, const char **file)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events/",
					     "/sys/kernel/debug/tracing/events/" };
	char sys[64], name[128];
	const char *p = NULL, *slash;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && !p; i++)
		if (!strncmp(path, roots[i], strlen(roots[i])))
			p = path + strlen(roots[i]);
	if (!p || !(slash = strchr(p, '/')) || (size_t)(slash - p) >= sizeof(sys))
		return NULL;
	memcpy(sys, p, (size_t)(slash - p));
	sys[slash - p] = 0;
	p = slash + 1;
	if (!(slash = strchr(p, '/')) || (size_t)(slash - p) >= sizeof(name))
		return NULL;
	memcpy(name, p, (size_t)(slash - p));
	name[slash - p] = 0;
	*file = slash + 1;
	return tp_find_name(sys, name);
}

enum procfs_kind procfs_classify(struct guest_thread *t, const char *path)
{
	const char *rest, *e, *file;

	if (!strcmp(path, "/proc/cpuinfo"))
		return PROCFS_CPUINFO;
	if (!strcmp(path, "/proc/kallsyms"))
		return PROCFS_KALLSYMS;
	if (tracefs_event(path, &file)) {
		if (!strcmp(file, "id"))
			return PROCFS_TRACE_ID;
		if (!strcmp(file, "format"))
			return PROCFS_TRACE_FORMAT;
	}
	rest = procfs_self_rest(t, path);
	if (!rest)
		return PROCFS_HOST;
	for (size_t i = 0; i < sizeof(self_files) / sizeof(self_files[0]); i++)
		if (!strcmp(rest, self_files[i].rest))
			return self_files[i].kind;
	/* proc_lookupfd_common(): an fd that is not the guest's is ENOENT */
	if (!strncmp(rest, "fd/", 3) || !strncmp(rest, "fdinfo/", 7)) {
		long fd = proc_number(rest + (rest[2] == '/' ? 3 : 7), &e);

		if (fd >= 0 && (!*e || *e == '/') && hidden_fd(t->proc, fd))
			return PROCFS_HIDDEN;
	}
	if (!strncmp(rest, "task/", 5)) {
		long tid = proc_number(rest + 5, &e);

		if (tid > 0 && (!*e || *e == '/') && tid == signal_helper_tid())
			return PROCFS_HIDDEN;
	}
	return PROCFS_HOST;
}

/* ---- generated files ------------------------------------------------------ */

/* A write into a fresh memfd (cannot be short but for ENOMEM, when the
 * file simply ends early). */
static void put_bytes(int fd, const void *b, size_t n)
{
	if (write(fd, b, n) != (ssize_t)n)
		return;
}

/*
 * Writes to fd the readable guest bytes of [addr, addr+len), stopping at the
 * first page the guest cannot read (access_remote_vm()). Returns the count.
 */
static size_t put_guest(struct guest_thread *t, int fd, uint64_t addr, uint64_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t a = addr + done, chunk = ((a | (PAGE - 1)) + 1) - a;

		if (chunk > len - done)
			chunk = len - done;
		if (!guest_access_ok(t, a, chunk, PROT_READ) ||
		    write(fd, (const void *)(uintptr_t)a, chunk) != (ssize_t)chunk)
			break;
		done += chunk;
	}
	return done;
}

/* get_mm_proctitle(): the string at addr within n bytes, with its NUL if
 * found there, as far as the guest can read. */
static void put_title(struct guest_thread *t, int fd, uint64_t addr, uint64_t n)
{
	char page[PAGE];
	uint64_t got = 0;

	while (got < n) {
		uint64_t a = addr + got, chunk = ((a | (PAGE - 1)) + 1) - a;

		if (chunk > n - got)
			chunk = n - got;
		if (!guest_access_ok(t, a, chunk, PROT_READ))
			break;
		memcpy(page + got, (const void *)(uintptr_t)a, chunk);
		got += chunk;
	}
	n = strnlen(page, got);
	if (n < got)
		n++;
	put_bytes(fd, page, n);
}

/*
 * get_mm_cmdline(): the argument area [arg_start, arg_end); if the guest
 * overwrote the NUL at arg_end-1 (setproctitle()), the string at arg_start
 * instead (get_mm_proctitle(): at most a page, up to and with its NUL,
 * within the environment area only if that follows the arguments).
 */
static void put_cmdline(struct guest_thread *t, int fd)
{
	struct guest_process *p = t->proc;
	uint64_t env_start = p->env_start, env_end = p->env_end, len;
	char last;

	if (p->arg_start >= p->arg_end)
		return;
	if (env_start != p->arg_end || env_end < env_start)
		env_start = env_end = p->arg_end;
	len = env_end - p->arg_start;
	/* the end byte as access_remote_vm() reads it: unreadable is not set */
	last = guest_access_ok(t, p->arg_end - 1, 1, PROT_READ) ?
	       *(const char *)(uintptr_t)(p->arg_end - 1) : 0;
	if (last)
		put_title(t, fd, p->arg_start, len < PAGE ? len : PAGE);
	else
		put_guest(t, fd, p->arg_start, p->arg_end - p->arg_start);
}

/*
 * do_task_stat() of the host's own file at path (the same pid and tid),
 * with the fields that describe pmusim's process replaced by the guest's:
 * num_threads without pmusim's helper, vsize of the guest VMAs, the image,
 * stack, heap, argument and environment addresses. rss stays the host's.
 */
static int put_stat(struct guest_thread *t, int fd, const char *path)
{
	struct guest_process *p = t->proc;
	char in[4096], out[4096 + 512], *f, *save = NULL;
	int hfd = open(path, O_RDONLY | O_CLOEXEC), k = 3;
	ssize_t n = hfd >= 0 ? read(hfd, in, sizeof(in) - 1) : -1;
	size_t o;
	char *close_paren;

	if (hfd >= 0)
		close(hfd);
	if (n <= 0)
		return -EIO;
	in[n] = 0;
	close_paren = strrchr(in, ')');
	if (!close_paren || close_paren[1] != ' ')
		return -EIO;
	o = (size_t)(close_paren + 2 - in);
	memcpy(out, in, o);
	for (f = strtok_r(close_paren + 2, " \n", &save); f; f = strtok_r(NULL, " \n", &save), k++) {
		unsigned long long v;
		bool mine = true;

		switch (k) {
		case 20: v = strtoull(f, NULL, 10) - (signal_helper_tid() ? 1 : 0); break;
		case 23: v = guest_mm_total(&p->mm); break;
		case 26: v = p->start_code; break;
		case 27: v = p->end_code; break;
		case 28: v = p->start_stack; break;
		case 45: v = p->start_data; break;
		case 46: v = p->end_data; break;
		case 47: v = p->mm.brk_start; break;
		case 48: v = p->arg_start; break;
		case 49: v = p->arg_end; break;
		case 50: v = p->env_start; break;
		case 51: v = p->env_end; break;
		default: mine = false; v = 0; break;
		}
		if (mine)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%llu", k > 3 ? " " : "", v);
		else
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s%s", k > 3 ? " " : "", f);
		if (o >= sizeof(out) - 1)
			return -EIO;
	}
	out[o++] = '\n';
	return write(fd, out, o) == (ssize_t)o ? 0 : -EIO;
}

/*
 * proc_pid_status() of the host's own file at path, with the Threads line
 * (task_sig(): the thread group's count) without pmusim's helper thread.
 * The Vm*, Rss* and Sig* lines stay pmusim's (docs/machine.md).
 */
static int put_status(FILE *f, const char *path)
{
	char in[8192], *line, *save = NULL;
	int hfd = open(path, O_RDONLY | O_CLOEXEC), helper = signal_helper_tid() ? 1 : 0;
	ssize_t n = 0, r;

	if (hfd < 0)
		return -EIO;
	while (n < (ssize_t)sizeof(in) - 1 && (r = read(hfd, in + n, sizeof(in) - 1 - (size_t)n)) > 0)
		n += r;
	close(hfd);
	if (n <= 0)
		return -EIO;
	in[n] = 0;
	for (line = strtok_r(in, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Threads:\t", 9))
			fprintf(f, "Threads:\t%ld\n", strtol(line + 9, NULL, 10) - helper);
		else
			fprintf(f, "%s\n", line);
	}
	return 0;
}

/* The memfd names, which also mark a generated file across an execve. */
#define GEN_PREFIX "pmusim:"
static const char *const gen_names[] = {
	[PROCFS_CPUINFO] = GEN_PREFIX "cpuinfo", [PROCFS_MAPS] = GEN_PREFIX "maps",
	[PROCFS_AUXV] = GEN_PREFIX "auxv", [PROCFS_CMDLINE] = GEN_PREFIX "cmdline",
	[PROCFS_ENVIRON] = GEN_PREFIX "environ", [PROCFS_STAT] = GEN_PREFIX "stat",
	[PROCFS_STATUS] = GEN_PREFIX "status", [PROCFS_KALLSYMS] = GEN_PREFIX "kallsyms",
	[PROCFS_TRACE_ID] = GEN_PREFIX "id", [PROCFS_TRACE_FORMAT] = GEN_PREFIX "format",
};

/* The text of a generated file made line by line (maps, status), composed
 * in memory and written to fd at once: one write, where a dprintf per line
 * costs an lseek, an fstat and a write each. 0 or -errno. */
static int put_composed(int fd, struct guest_thread *t, enum procfs_kind k, const char *path)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	int err = 0;

	if (!f)
		return -ENOMEM;
	if (k == PROCFS_MAPS)
		guest_mm_dump(&t->proc->mm, f);
	else
		err = put_status(f, path);
	if (fclose(f))
		err = err ?: -ENOMEM;
	if (!err)
		put_bytes(fd, text, n);
	free(text);
	return err;
}

/* Writes the text of generated file k into the empty file fd; path is the
 * host file that stat and status patch. 0 or -errno. */
static int fill_generated(struct guest_thread *t, enum procfs_kind k, const char *path, int fd)
{
	int err = 0;

	switch (k) {
	case PROCFS_CPUINFO: {
		size_t cap = 64 * 1024, n;
		char *text = malloc(cap);
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		if (!text) {
			err = -ENOMEM;
			break;
		}
		n = pmu_model_cpuinfo(t->proc->model, ncpu > 0 ? (unsigned)ncpu : 1, cpuid_answer,
				      text, cap);
		if (n > cap)
			n = cap;
		if (write(fd, text, n) != (ssize_t)n)
			err = -EIO;
		free(text);
		break;
	}
	case PROCFS_KALLSYMS: {
		char text[1024];
		size_t n = kernel_kallsyms_text(text, sizeof(text));

		if (n > sizeof(text))
			n = sizeof(text);
		if (write(fd, text, n) != (ssize_t)n)
			err = -EIO;
		break;
	}
	case PROCFS_TRACE_ID:       /* event_id_read() */
	case PROCFS_TRACE_FORMAT: { /* f_show() */
		const char *file;
		const struct tp_event *tp = tracefs_event(path, &file);
		char text[8192];
		size_t n = k == PROCFS_TRACE_ID ?
			   (size_t)snprintf(text, sizeof(text), "%u\n", tp_id(tp)) :
			   tp_format(tp, text, sizeof(text));

		if (n > sizeof(text))
			n = sizeof(text);
		if (write(fd, text, n) != (ssize_t)n)
			err = -EIO;
		break;
	}
	case PROCFS_MAPS:
	case PROCFS_STATUS:
		err = put_composed(fd, t, k, path);
		break;
	case PROCFS_AUXV: {
		size_t n = t->proc->auxv_words * sizeof(uint64_t);

		if (write(fd, t->proc->auxv, n) != (ssize_t)n)
			err = -EIO;
		break;
	}
	case PROCFS_CMDLINE:
		put_cmdline(t, fd);
		break;
	case PROCFS_ENVIRON:        /* environ_read() */
		put_guest(t, fd, t->proc->env_start, t->proc->env_end - t->proc->env_start);
		break;
	case PROCFS_STAT:
		err = put_stat(t, fd, path);
		break;
	default:
		err = -EINVAL;
		break;
	}
	return err;
}

long procfs_open_generated(struct guest_thread *t, enum procfs_kind k, const char *path,
			   int flags)
{
	int fd = memfd_create(gen_names[k], (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0), err;
	char pth[64];
	int ro;

	if (fd < 0)
		return -errno;
	err = fill_generated(t, k, path, fd);
	if (err) {
		close(fd);
		return err;
	}
	lseek(fd, 0, SEEK_SET);
	/* read-only like procfs: reopen O_RDONLY through /proc/self/fd */
	snprintf(pth, sizeof(pth), "/proc/self/fd/%d", fd);
	ro = open(pth, O_RDONLY | (flags & O_CLOEXEC));
	if (ro >= 0) {
		close(fd);
		fd = ro;
	}
	return fd;
}

/*
 * After an execve (pmusim started again on the new image, same pid): a
 * generated file the guest kept open across it is rewritten for the new
 * image, as the kernel's file, read at read time, would show it. The files
 * are found by their memfd names among the guest's fds.
 */
void procfs_after_exec(struct guest_thread *t)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		const char *end;
		long n = proc_number(e->d_name, &end);
		char pth[64], link[128];
		ssize_t len;

		if (n < 0 || *end || n == dirfd(d) || hidden_fd(t->proc, n))
			continue;
		snprintf(pth, sizeof(pth), "/proc/self/fd/%ld", n);
		len = readlink(pth, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		for (int k = PROCFS_CPUINFO; k <= PROCFS_STATUS; k++) {
			char want[64];
			int fd;

			snprintf(want, sizeof(want), "/memfd:%s (deleted)", gen_names[k]);
			if (strcmp(link, want))
				continue;
			fd = open(pth, O_RDWR | O_CLOEXEC);
			if (fd >= 0 && !ftruncate(fd, 0)) {
				snprintf(want, sizeof(want), "/proc/self/%s", gen_names[k] + strlen(GEN_PREFIX));
				fill_generated(t, (enum procfs_kind)k, want, fd);
			}
			if (fd >= 0)
				close(fd);
			break;
		}
	}
	if (d)
		closedir(d);
}

/* ---- filtered directories --------------------------------------------------- */

void procfs_track_dir(struct guest_thread *t, enum procfs_kind k, long fd)
{
	struct guest_process *p = t->proc;
	struct stat st;
	int i, n;

	if (fd < 0 || fstat((int)fd, &st))
		return;
	pthread_mutex_lock(&p->lock);
	n = p->procfs_nr_dirs;
	for (i = 0; i < n && p->procfs_dir[i].fd != fd; i++)
		;
	if (i == n) {
		const int cap = (int)(sizeof(p->procfs_dir) / sizeof(p->procfs_dir[0]));

		if (n == cap) {       /* the oldest goes (getdents there is then the host's) */
			memmove(&p->procfs_dir[0], &p->procfs_dir[1], (size_t)(cap - 1) * sizeof(p->procfs_dir[0]));
			i = cap - 1;
		} else {
			__atomic_store_n(&p->procfs_nr_dirs, n + 1, __ATOMIC_RELEASE);
		}
	}
	p->procfs_dir[i].fd = (int)fd;
	p->procfs_dir[i].kind = k;
	p->procfs_dir[i].dev = st.st_dev;
	p->procfs_dir[i].ino = st.st_ino;
	pthread_mutex_unlock(&p->lock);
}

/* The kind of directory fd is open on, if tracked and still the same
 * directory (the guest may have closed it and reused the number). */
static enum procfs_kind tracked_kind(struct guest_process *p, int fd)
{
	enum procfs_kind k = PROCFS_HOST;
	struct stat st;

	if (!__atomic_load_n(&p->procfs_nr_dirs, __ATOMIC_ACQUIRE))
		return PROCFS_HOST;
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < p->procfs_nr_dirs; i++) {
		if (p->procfs_dir[i].fd != fd)
			continue;
		if (!fstat(fd, &st) && st.st_dev == p->procfs_dir[i].dev &&
		    st.st_ino == p->procfs_dir[i].ino)
			k = p->procfs_dir[i].kind;
		break;
	}
	pthread_mutex_unlock(&p->lock);
	return k;
}

long procfs_getdents(struct guest_thread *t, const uint64_t a[6])
{
	/* struct linux_dirent64 has d_type before the name, linux_dirent after */
	size_t name_off = t->syscall_nr == SYS_getdents64 ? 19 : 18;
	enum procfs_kind k = tracked_kind(t->proc, (int)a[0]);
	char *buf = (char *)(uintptr_t)a[1];
	long r;

	if (k == PROCFS_HOST)
		return sys_pass(t, a);
	if (!guest_access_ok(t, a[1], a[2], PROT_WRITE))
		return -EFAULT;
	/* a read whose entries were all pmusim's reads on: only the end of
	 * the directory returns 0 */
	do {
		size_t in = 0, out = 0;

		r = syscall((long)t->syscall_nr, a[0], a[1], a[2]);
		if (r <= 0)
			return r < 0 ? -errno : 0;
		while (in < (size_t)r) {
			unsigned short reclen;

			memcpy(&reclen, buf + in + 16, sizeof(reclen));
			if (!hidden_name(t->proc, k, buf + in + name_off)) {
				if (out != in)
					memmove(buf + out, buf + in, reclen);
				out += reclen;
			}
			in += reclen;
		}
		r = (long)out;
	} while (!r);
	return r;
}
