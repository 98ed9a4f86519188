/*
 * sys_perf.c - the guest's perf_event interface (sys_perf.h): the session's
 * core, core tasks for guest threads, the machine hooks the core calls
 * (fill_sample, fasync), and the perf syscalls on guest fds.
 *
 * A perf file is a host memfd named "[perf_event]" in the guest's fd table,
 * so close-on-exec, fork, exec, SCM_RIGHTS and the fd numbers work as for
 * any fd; the process's table maps fds to core handles, one file reference
 * per fd and per ring mapping (dup and fork share the handle, as they share
 * the struct file), and the core tags each file with its memfd's inode so
 * a process that got the memfd another way (a new image, a receiver) finds
 * the handle. O_ASYNC, F_SETOWN(_EX) and F_SETSIG are stored by the host
 * on that fd; the core's fasync hook reads them back and queues the signal
 * to the owner with si_code POLL_IN/POLL_HUP and si_fd (send_sigio_to_task).
 * The host cannot see a perf file's readiness (a memfd is always ready), so
 * poll, select and epoll over sets holding perf fds answer here: perf fds
 * from the core (perf_poll), the others from the host.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/arena.h"
#include "sim/core/perf_epoll.h"
#include "sim/core/sample_data.h"
#include "sim/cpu/pmu_machine.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"
#include "sim/linux/process.h"
#include "sim/linux/signal.h"
#include "sim/linux/sys_handlers.h"
#include "sim/linux/thread.h"
#include "sim/linux/sys_perf.h"

#define PERF_FD_MAX 4096
/* mmap returns an address or -errno */
#define IS_ERR_VALUE_GUEST(r) ((unsigned long)(r) >= (unsigned long)-4095)
#define PERF_MAPS_MAX 256
/* the memfd of a perf file, what /proc/self/fd shows of it */
#define PERF_FD_NAME "[perf_event]"

struct ring_map { uint64_t addr, len; int handle; void *area; };

static struct {
	struct perf_core *core;
	unsigned nr_cpus;
	unsigned next_k;                  /* CPU of the next thread: k mod nr_cpus */
	pthread_mutex_t lock;             /* fd2h, maps */
	int fd2h[PERF_FD_MAX];            /* handle + 1, 0: not a perf fd */
	/* O_ASYNC of a file (the host keeps no FASYNC on a memfd): the fd
	 * F_SETFL set it through (fasync_struct's fa_fd) + 1, 0: off */
	int async_fd[PERF_CORE_MAX_FILES];
	struct ring_map maps[PERF_MAPS_MAX];
	unsigned nr_maps;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct pmu_vcpu *cur_pv;
/* the guest's epoll items on perf fds (a fork copies them with the fds) */
static struct perf_ep_set ep_set;
static struct perf_guest_session_hooks SH;   /* a `pmusim run` session, or zeros */

static int fd_handle(long fd)
{
	int h;

	if (fd < 0 || fd >= PERF_FD_MAX || !S.core)
		return -1;
	h = __atomic_load_n(&S.fd2h[fd], __ATOMIC_ACQUIRE) - 1;
	return h;
}

static void fd_set_handle(long fd, int h)
{
	if (fd < 0 || fd >= PERF_FD_MAX)
		return;
	__atomic_store_n(&S.fd2h[fd], h + 1, __ATOMIC_RELEASE);
}

/* The tag of the perf file whose memfd is fd (perf_file_set_tag): its
 * inode number, the same in every process holding the memfd. */
static uint64_t fd_tag(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (uint64_t)st.st_ino;
}

static void adopt_exec_fds(void);

static struct perf_task *cur_task(struct guest_thread *t)
{
	struct pmu_vcpu *pv = t->perf;

	return pv ? pv->task : NULL;
}

/* ---- guest memory for the core (copy_from_user / copy_to_user) --------- */

static int ua_from(void *ctx, void *dst, uint64_t uaddr, size_t len)
{
	struct guest_thread *t = ctx;

	if (!len)
		return 0;
	if (!uaddr || !guest_access_ok(t, uaddr, len, PROT_READ))
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)uaddr, len);
	return 0;
}

static int ua_to(void *ctx, uint64_t uaddr, const void *src, size_t len)
{
	struct guest_thread *t = ctx;

	if (!len)
		return 0;
	if (!uaddr || !guest_access_ok(t, uaddr, len, PROT_WRITE))
		return -EFAULT;
	memcpy((void *)(uintptr_t)uaddr, src, len);
	return 0;
}

static bool pv_access_ok(void *arg, uint64_t addr, uint64_t len)
{
	return guest_access_ok(arg, addr, len, PROT_READ);
}

/* ---- machine hooks --------------------------------------------------------- */

static void m_fill_sample(void *machine, struct perf_cpu *cpu, struct perf_event *event,
			  struct perf_sample_data *data)
{
	(void)machine;
	/* this thread's state only if its task is current there: a switch
	 * this thread makes fires sched_switch while prev, another
	 * process's task, is still current */
	if (cur_pv && cur_pv->cpu == cpu && cur_pv->task && perf_cpu_task(cpu) == cur_pv->task) {
		pmu_fill_sample(cur_pv, event, data);
		return;
	}
	if (perf_cpu_task(cpu)) {
		data->pid = (uint32_t)perf_task_pid(perf_cpu_task(cpu));
		data->tid = (uint32_t)perf_task_tid(perf_cpu_task(cpu));
	}
	data->cpumode = PERF_RECORD_MISC_USER;
}

/* band_table[] of fs/fcntl.c, indexed by reason - POLL_IN */
static const long band_table[6] = {
	POLLIN | POLLRDNORM, POLLOUT | POLLWRNORM | POLLWRBAND,
	POLLIN | POLLRDNORM | POLLMSG, POLLERR, POLLPRI | POLLRDBAND, POLLHUP | POLLERR,
};

/* kill_fasync() of a file with O_ASYNC: send_sigio() to the owner the host
 * stored with F_SETOWN(_EX), the signal of F_SETSIG. */
static void m_fasync(void *machine, int handle, int si_code)
{
	struct f_owner_ex own;
	siginfo_t si;
	int fd, sig;

	if (SH.owns && SH.owns(handle)) {   /* a native client's file */
		SH.fasync(machine, handle, si_code);
		return;
	}
	if (handle < 0 || handle >= PERF_CORE_MAX_FILES || !S.async_fd[handle])
		return;
	fd = S.async_fd[handle] - 1;
	if (fcntl(fd, F_GETOWN_EX, &own) < 0 || own.pid == 0)
		return;
	sig = fcntl(fd, F_GETSIG);
	memset(&si, 0, sizeof(si));
	if (sig > 0) {
		si.si_signo = sig;
		si.si_code = si_code;
		si.si_band = band_table[si_code - POLL_IN];
		si.si_fd = fd;
	} else {
		/* plain SIGIO: SEND_SIG_PRIV (si_code SI_KERNEL) */
		sig = SIGIO;
		si.si_signo = SIGIO;
		si.si_code = SI_KERNEL;
	}
	/* send_sigio_to_task() from whichever thread overflowed: an inherited
	 * copy in another thread signals the parent's owner too */
	if (own.type == F_OWNER_TID)
		signal_send_kernel_info(getpid(), own.pid, sig, &si);
	else if (own.type == F_OWNER_PGRP)
		kill(-own.pid, sig);
	else
		signal_send_kernel_info(own.pid, 0, sig, &si);
	/* the overflow's signal is taken after the current block, as the
	 * kernel's irq_work delivers it on the return to user mode */
	if (cur_pv && cur_pv->c && (own.pid == getpid() || own.pid == (pid_t)syscall(SYS_gettid)))
		vcpu_stop(cur_pv->c);
}

/* Pollers of a guest perf fd poll the core (sys_perf_poll); a native
 * client's file is woken through its session pipe. */
static void m_wakeup(void *machine, int handle)
{
	if (SH.owns && SH.owns(handle))
		SH.wakeup(machine, handle);
}

/* The counter interrupt's cost on the running guest thread's CPU. */
static void m_pmi_cost(void *machine, struct perf_cpu *cpu, enum perf_pmi_part part,
		       struct sim_delta *d)
{
	(void)machine;
	if (cur_pv && cur_pv->cpu == cpu) {
		pmu_pmi_cost(cur_pv, part, d);
		return;
	}
	memset(d, 0, sizeof(*d));
}

static const struct perf_machine_ops guest_machine_ops = {
	.fill_sample = m_fill_sample,
	.wakeup = m_wakeup,
	.fasync = m_fasync,
	.pmi_cost = m_pmi_cost,
};

static const struct perf_machine guest_machine = { .ops = &guest_machine_ops, .ctx = NULL };

const struct perf_machine *perf_guest_machine(void)
{
	return &guest_machine;
}

struct perf_core *perf_guest_core(void)
{
	return S.core;
}

void perf_guest_set_session(const struct perf_guest_session_hooks *hooks)
{
	SH = *hooks;
}

/* ---- side band: the guest's mappings (perf_event_mmap) ------------------ */

/*
 * PERF_RECORD_MMAP/MMAP2 for the guest mappings of t's process that lie in
 * [start, end) (all of them with end 0), as perf_event_mmap() reports each
 * new VMA: file path, offset, device, inode, protection and flags.
 */
static void report_mappings(struct guest_thread *t, uint64_t start, uint64_t end)
{
	struct guest_mm *mm = &t->proc->mm;
	struct perf_task *task = cur_task(t);
	struct perf_mmap_info *info;
	size_t n = 0;

	if (!S.core || !task)
		return;
	pthread_mutex_lock(&mm->lock);
	info = calloc(mm->nr ? mm->nr : 1, sizeof(*info));
	for (size_t i = 0; info && i < mm->nr; i++) {
		const struct guest_vma *v = &mm->vma[i];

		if (end && (v->end <= start || v->start >= end))
			continue;
		info[n].addr = v->start;
		info[n].len = v->end - v->start;
		info[n].pgoff = v->off;
		info[n].maj = major((dev_t)v->dev);
		info[n].min = minor((dev_t)v->dev);
		info[n].ino = v->ino;
		info[n].prot = (uint32_t)v->prot;
		info[n].flags = (uint32_t)v->flags;
		info[n].filename = v->name ? v->name : "//anon";
		info[n].exec = v->prot & PROT_EXEC;
		n++;
	}
	pthread_mutex_unlock(&mm->lock);
	for (size_t i = 0; i < n; i++)
		perf_event_mmap(S.core, task, &info[i]);
	free(info);
}

/*
 * PERF_RECORD_MMAP(_DATA)/MMAP2 of a perf file's own mapping at addr:
 * mmap_region() calls perf_event_mmap() for it as for any VMA, after
 * perf_mmap() attached the ring (an event sees the mapping of its own
 * ring). The file is the anon inode: file_path() gives
 * "anon_inode:[perf_event]" (anon_inodefs_dname()), with the device and
 * inode fstat() reports for fd, generation 0; the offset is the guest's.
 */
static void report_perf_mapping(struct guest_thread *t, uint64_t addr, const uint64_t a[6])
{
	struct perf_task *task = cur_task(t);
	struct perf_mmap_info info = { 0 };
	struct stat st;

	if (!task || fstat((int)a[4], &st))
		return;
	info.addr = addr;
	info.len = (a[1] + 4095) & ~4095ull;
	info.pgoff = a[5];
	info.maj = major(st.st_dev);
	info.min = minor(st.st_dev);
	info.ino = st.st_ino;
	info.prot = (uint32_t)a[2];
	info.flags = (uint32_t)a[3];
	info.filename = "anon_inode:[perf_event]";
	info.exec = false;      /* never PROT_EXEC: see sys_perf_mmap() */
	perf_event_mmap(S.core, task, &info);
}

/* ---- CPU placement: the simulated CPU a guest thread runs on ------------- */

/* cpu is in t's allowed set (p->cpus_ptr) */
static bool cpu_allowed(const struct guest_thread *t, unsigned cpu)
{
	return !t->cpus_set || ((t->cpus_allowed[cpu / 64] >> (cpu % 64)) & 1);
}

/* select_task_rq() of a new thread whose allowed set is like's: the
 * threads take the allowed CPUs in turn (all of them: k mod nr_cpus). */
static unsigned place_new_thread(const struct guest_thread *like)
{
	unsigned n = 0, k;

	for (unsigned cpu = 0; cpu < S.nr_cpus; cpu++)
		n += !like || cpu_allowed(like, cpu);
	k = S.next_k++ % (n ? n : 1);
	for (unsigned cpu = 0; cpu < S.nr_cpus; cpu++)
		if ((!like || cpu_allowed(like, cpu)) && k-- == 0)
			return cpu;
	return 0;
}

/* The guest thread pid names: 0 or t itself (others: the host's answer). */
static bool is_self(const struct guest_thread *t, uint64_t pid)
{
	return (pid_t)pid == 0 || (pid_t)pid == t->tid;
}

/*
 * sched_setaffinity() of the calling thread: the mask (len bytes, the rest
 * clear, as get_user_cpu_mask()) limited to the simulated CPUs; none of
 * them: -EINVAL (__set_cpus_allowed_ptr_locked()). A thread whose CPU left
 * the set migrates to the first allowed one (affine_move_task()), so what
 * it runs next counts on that CPU's events. Other threads: the host.
 */
long sys_perf_sched_setaffinity(struct guest_thread *t, const uint64_t a[6])
{
	uint64_t mask[GUEST_CPUMASK_WORDS] = { 0 };
	size_t len = a[1] < sizeof(mask) ? a[1] : sizeof(mask);
	bool any = false;

	if (!S.core || !t->perf || !is_self(t, a[0]))
		return sys_pass(t, a);
	if (len && !guest_access_ok(t, a[2], len, PROT_READ))
		return -EFAULT;
	memcpy(mask, (const void *)(uintptr_t)a[2], len);
	for (unsigned cpu = 0; cpu < GUEST_CPUMASK_WORDS * 64; cpu++)
		if (cpu >= S.nr_cpus)
			mask[cpu / 64] &= ~(1ull << (cpu % 64));
		else
			any |= (mask[cpu / 64] >> (cpu % 64)) & 1;
	if (!any)
		return -EINVAL;
	memcpy(t->cpus_allowed, mask, sizeof(mask));
	t->cpus_set = true;
	if (!cpu_allowed(t, perf_cpu_num(t->perf->cpu)))
		for (unsigned cpu = 0; cpu < S.nr_cpus; cpu++)
			if (cpu_allowed(t, cpu)) {
				pmu_vcpu_migrate(t->perf, cpu);
				break;
			}
	return 0;
}

/*
 * sched_getaffinity() of the calling thread: the host checks len and says
 * how many bytes the kernel copies (cpumask_size()); they hold the allowed
 * simulated CPUs. len must cover the simulated CPUs (nr_cpu_ids).
 */
long sys_perf_sched_getaffinity(struct guest_thread *t, const uint64_t a[6])
{
	uint64_t mask[GUEST_CPUMASK_WORDS] = { 0 };
	long r;

	if (!S.core || !t->perf || !is_self(t, a[0]))
		return sys_pass(t, a);
	r = sys_pass(t, a);
	if (r < 0)
		return r;
	if (a[1] * 8 < S.nr_cpus)
		return -EINVAL;
	for (unsigned cpu = 0; cpu < S.nr_cpus; cpu++)
		if (cpu_allowed(t, cpu))
			mask[cpu / 64] |= 1ull << (cpu % 64);
	memset((void *)(uintptr_t)a[2], 0, (size_t)r);
	memcpy((void *)(uintptr_t)a[2], mask, (size_t)r < sizeof(mask) ? (size_t)r : sizeof(mask));
	return r;
}

/* getcpu(): the simulated CPU the thread is on (raw_smp_processor_id()),
 * node 0 (the __vdso_getcpu of the guest vDSO comes here too). */
long sys_perf_getcpu(struct guest_thread *t, const uint64_t a[6])
{
	unsigned cpu, node = 0;

	if (!S.core || !t->perf)
		return sys_pass(t, a);
	cpu = perf_cpu_num(t->perf->cpu);
	if ((a[0] && !guest_access_ok(t, a[0], sizeof(cpu), PROT_WRITE)) ||
	    (a[1] && !guest_access_ok(t, a[1], sizeof(node), PROT_WRITE)))
		return -EFAULT;
	if (a[0])
		memcpy((void *)(uintptr_t)a[0], &cpu, sizeof(cpu));
	if (a[1])
		memcpy((void *)(uintptr_t)a[1], &node, sizeof(node));
	return 0;
}

/* ---- session and tasks ------------------------------------------------------ */

/* t's pmu state, on a CPU chosen as for a thread whose allowed set is
 * like's (NULL: any). */
static struct pmu_vcpu *new_pv(struct guest_thread *t, struct perf_task *task,
			       const struct guest_thread *like)
{
	struct pmu_vcpu *pv = pmu_vcpu_new(t->cpu, S.core, place_new_thread(like), task);

	if (!pv)
		return NULL;
	pv->access_ok = pv_access_ok;
	pv->access_arg = t;
	pv->owner = t;
	t->perf = pv;
	return pv;
}

int perf_guest_start(struct guest_process *p, struct guest_thread *t,
		     const struct pmu_model *model, unsigned nr_cpus, const char *comm)
{
	struct perf_core_config cfg = { 0 };
	struct perf_core *core;
	int err;

	cfg.model = model;
	cfg.nr_cpus = nr_cpus ? nr_cpus : 1;
	cfg.paranoid = perf_host_paranoid();
	err = perf_core_create(&cfg, &guest_machine, &core);
	if (err)
		return err;
	err = perf_guest_start_core(p, t, core, comm);
	if (err) {
		perf_core_destroy(core);
		S.core = NULL;
	}
	return err;
}

int perf_guest_arena_create(const struct pmu_model *model, unsigned nr_cpus, void *addr,
			    size_t size, int fd_lo, int fd_hi, struct perf_core **core, int *fd)
{
	struct perf_core_config cfg = { 0 };
	struct perf_arena *arena;
	int err;

	err = perf_arena_create(size, addr, &arena);
	if (err)
		return err;
	cfg.model = model;
	cfg.nr_cpus = nr_cpus ? nr_cpus : 1;
	cfg.paranoid = perf_host_paranoid();
	cfg.arena = arena;
	err = perf_core_create(&cfg, &guest_machine, core);
	if (err)
		goto err_arena;
	/* inherited by exec at a number the guest never sees, and not left
	 * at the lowest free number, which is the guest's next open() */
	*fd = perf_arena_memfd_move(arena, fd_lo, fd_hi);
	if (*fd < 0) {
		err = *fd;
		goto err_core;
	}
	return 0;
err_core:
	perf_core_destroy(*core);
err_arena:
	perf_arena_detach(arena);
	return err;
}

int perf_guest_arena_attach(int fd, void *addr, struct perf_core **core)
{
	struct perf_arena *arena;
	int err = perf_arena_attach(fd, &arena);

	if (err == -EEXIST && perf_arena_root(addr))
		arena = addr;             /* already mapped (fork without exec) */
	else if (err)
		return err;
	*core = perf_core_attach(arena, &guest_machine);
	return *core ? 0 : -EINVAL;
}

int perf_guest_start_core(struct guest_process *p, struct guest_thread *t,
			  struct perf_core *core, const char *path)
{
	struct perf_cred cred = { .uid = getuid(), .cap_perfmon = geteuid() == 0 };
	const char *comm = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct perf_task *task;

	(void)p;
	S.core = core;
	S.nr_cpus = perf_core_nr_cpus(core);
	/* a task a session already knows (a native profiler opened events on
	 * this pid before the exec), else a new one */
	task = perf_task_find(core, t->tid);
	if (!task)
		task = perf_task_create(core, getpid(), t->tid, cred);
	if (!task)
		return -ENOMEM;
	/* begin_new_exec(): enable_on_exec events start, COMM with exec */
	perf_task_exec(core, task, comm);
	if (SH.adopt)
		SH.adopt(t->tid);    /* its exit gives the session's fds POLLHUP */
	if (!new_pv(t, task, t))
		return -ENOMEM;
	adopt_exec_fds();
	cur_pv = t->perf;
	report_mappings(t, 0, 0);     /* the image and interpreter the exec mapped */
	perf_core_lock(core);
	perf_cpu_switch_to(cur_pv->cpu, task);
	/* exec_binprm(): trace_sched_process_exec() */
	perf_tp_sched_process_exec(cur_pv->cpu, path);
	/* events enabled by the exec count from the first instruction */
	pmu_vcpu_hooks_pending(cur_pv);
	perf_core_unlock(core);
	return 0;
}

bool perf_guest_shared(void)
{
	return S.core && perf_arena_size(perf_core_arena(S.core)) != 0;
}

/* Called by guest_thread_new() on the creating thread: the new thread's
 * vCPU state, its task made when it starts (its tid is known then). */
void perf_guest_thread_prepare(struct guest_thread *t)
{
	struct pmu_vcpu *pv;

	if (!S.core || !cur_pv)
		return;
	/* copy_process(): the new thread's allowed set is its creator's */
	{
		struct guest_thread *parent = cur_pv->owner;

		t->cpus_set = parent->cpus_set;
		memcpy(t->cpus_allowed, parent->cpus_allowed, sizeof(t->cpus_allowed));
	}
	pv = new_pv(t, NULL, t);
	if (pv)
		pv->access_arg = t;
	/* remember the parent task until the child starts */
	if (pv)
		pv->sample_ip = (uint64_t)(uintptr_t)cur_pv->task;
}

int perf_guest_thread_start(struct guest_thread *t)
{
	struct pmu_vcpu *pv = t->perf;
	struct perf_task *parent, *child = NULL;
	int err;

	if (!pv || !S.core)
		return 0;
	cur_pv = pv;
	if (pv->task)
		return 0;
	parent = (struct perf_task *)(uintptr_t)pv->sample_ip;
	pv->sample_ip = 0;
	err = perf_task_fork(S.core, parent, getpid(), t->tid, &child);
	if (err || !child) {
		struct perf_cred cred = { .uid = getuid(), .cap_perfmon = geteuid() == 0 };

		child = perf_task_create(S.core, getpid(), t->tid, cred);
		if (!child)
			return -ENOMEM;
	}
	pv->task = child;
	/* the thread's task goes on its CPU before its first instruction, so
	 * the block hook is in place if its inherited events are scheduled
	 * there (checking the CPU before the switch saw whatever ran there
	 * last, and a new thread counted only from its first syscall) */
	pmu_vcpu_acquire(pv);
	pmu_vcpu_hooks_pending(pv);
	pmu_vcpu_release(pv);
	return 0;
}

void perf_guest_thread_yield(struct guest_thread *t)
{
	struct pmu_vcpu *pv = t->perf;

	if (pv)
		pmu_vcpu_release(pv);   /* as at a syscall: the core lock goes too */
}

/* exit_mm()/exec_mmap() for the rings: every ring mapping of the process
 * goes (perf_mmap_close), with the file reference it held. */
static void release_maps(void)
{
	pthread_mutex_lock(&S.lock);
	while (S.nr_maps) {
		struct ring_map m = S.maps[--S.nr_maps];

		pthread_mutex_unlock(&S.lock);
		perf_sys_munmap(S.core, m.handle, m.area, m.len);
		pthread_mutex_lock(&S.lock);
	}
	pthread_mutex_unlock(&S.lock);
}

static void drop_fd(long fd);

/* exit_files(), or do_close_on_exec() with cloexec: the perf fds of the
 * process close. Returns how many fds it put in dropped (up to max). */
static unsigned release_fds(bool cloexec, int *dropped, unsigned max)
{
	unsigned n = 0;

	for (int fd = 0; fd < PERF_FD_MAX && S.core; fd++) {
		if (fd_handle(fd) < 0)
			continue;
		if (cloexec && !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
			continue;
		if (n < max)
			dropped[n++] = fd;
		drop_fd(fd);
	}
	return n;
}

static int exec_dropped[PERF_FD_MAX];
static unsigned nr_exec_dropped;

void perf_guest_exec_begin(void)
{
	if (!S.core)
		return;
	release_maps();
	nr_exec_dropped = release_fds(true, exec_dropped, PERF_FD_MAX);
}

static int adopt_fd(int fd, bool take_ref);

void perf_guest_exec_failed(void)
{
	/* the close-on-exec fds are open still: perf fds again, if their
	 * files live (a file only they held was released) */
	for (unsigned i = 0; i < nr_exec_dropped; i++)
		adopt_fd(exec_dropped[i], true);
	nr_exec_dropped = 0;
}

/* Before fork/vfork/clone of a process: the child's copy of the fd table
 * holds each file too (dup_fd() takes a reference per fd). undo: the
 * fork failed, the references go. */
static void fork_files(bool undo)
{
	for (int fd = 0; fd < PERF_FD_MAX && S.core; fd++) {
		int h = fd_handle(fd);

		if (h < 0)
			continue;
		if (undo)
			perf_file_put(S.core, h);
		else
			perf_file_get(S.core, h);
	}
}

/* The child of a fork: the ring mappings it copied are its own too
 * (dup_mmap -> perf_mmap_open); one whose ring went meanwhile is not
 * tracked. */
static void fork_maps(void)
{
	pthread_mutex_lock(&S.lock);
	for (unsigned i = 0; i < S.nr_maps; i++)
		if (perf_sys_mmap_fork(S.core, S.maps[i].handle, S.maps[i].area))
			S.maps[i--] = S.maps[--S.nr_maps];
	pthread_mutex_unlock(&S.lock);
}

void perf_guest_thread_exit(struct guest_thread *t)
{
	struct pmu_vcpu *pv = t->perf;
	bool group_dead;

	if (!pv || !S.core || !pv->task)
		return;
	/* do_exit()'s group_dead: the process ends with this thread */
	group_dead = t->state == GUEST_EXIT_GROUP || t->state == GUEST_KILLED ||
		     (t->state == GUEST_EXITED && t->proc->nr_threads <= 1);
	if (group_dead) {
		/* do_exit(): exit_mm() and exit_files() come before
		 * perf_event_exit_task() */
		release_maps();
		release_fds(false, NULL, 0);
	}
	pmu_vcpu_release(pv);
	perf_core_lock(S.core);
	if (perf_cpu_task(pv->cpu) == pv->task) {
		/* do_exit(): trace_sched_process_exit() while it is current */
		perf_tp_sched_process_exit(pv->cpu, group_dead);
		perf_cpu_switch_to(pv->cpu, NULL);
	}
	perf_core_unlock(S.core);
	if (group_dead)
		perf_task_exit_group(S.core, pv->task);
	else
		perf_task_exit(S.core, pv->task);
}

/*
 * get_signal() -> do_group_exit() of t: the host is about to kill pmusim
 * with the signal, so what do_exit() does for perf before exit_notify()
 * happens here: perf_event_exit_task() writes t's EXIT record to a
 * session's events and gives them POLLHUP. The process's own core dies
 * with it, unread.
 */
void perf_guest_thread_killed(struct guest_thread *t)
{
	if (!t || !perf_guest_shared())
		return;
	t->state = GUEST_KILLED;
	perf_guest_thread_exit(t);
}

/*
 * SIGKILL ends pid's pmusim before anything of it can run, so the sender
 * does its perf_event_exit_task(): once pid is dead (waitid WNOWAIT, only
 * possible for a child; others are left as they are), its main thread's
 * task exits with the group (the EXIT record, POLLHUP).
 */
void perf_guest_process_killed(struct guest_thread *t, pid_t pid)
{
	struct perf_task *task;
	siginfo_t si;
	uint64_t a[6] = { P_PID, (uint64_t)pid, (uint64_t)(uintptr_t)&si,
			  WEXITED | WNOWAIT | __WALL, 0, 0 };

	if (!S.core || !perf_guest_shared() || pid <= 0 || pid == getpid() ||
	    !(task = perf_task_find(S.core, pid)))
		return;
	if (signal_host_syscall(t, SYS_waitid, a) == 0)
		perf_task_exit_group(S.core, task);
}

/* ---- syscalls ------------------------------------------------------------------ */

static void drop_fd(long fd)
{
	int h = fd_handle(fd);

	if (h < 0)
		return;
	fd_set_handle(fd, -1);
	perf_ep_forget(&ep_set, (int)fd);
	if (S.async_fd[h] == fd + 1)
		S.async_fd[h] = 0;    /* fasync_helper() entry of that fd goes */
	perf_file_put(S.core, h);
}

long sys_perf_event_open(struct guest_thread *t, const uint64_t a[6])
{
	struct perf_uaccess ua = { ua_from, ua_to, t };
	unsigned long flags = a[4];
	int group = -1, h, fd;

	if (!S.core)
		return -ENOSYS;
	/* a group fd that is not a perf file is EBADF from the core, after
	 * the attr's checks, as perf_event_open() checks them first */
	if ((int)a[3] != -1) {
		group = fd_handle((int)a[3]);
		if (group < 0)
			group = PERF_CORE_MAX_FILES;
	}
	h = perf_sys_event_open(S.core, cur_task(t), &ua, a[0], (pid_t)a[1], (int)a[2],
				group, flags);
	if (h < 0)
		return h;
	fd = memfd_create(PERF_FD_NAME, (flags & PERF_FLAG_FD_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0 || fd >= PERF_FD_MAX || perf_file_set_tag(S.core, h, fd_tag(fd)) < 0) {
		int e = fd < 0 ? -errno : -EMFILE;

		if (fd >= 0)
			close(fd);
		perf_file_put(S.core, h);
		return e;
	}
	fd_set_handle(fd, h);
	return fd;
}

/*
 * A perf file the process got another way than perf_event_open/dup (kept
 * across an execve, received with SCM_RIGHTS): the memfd fd names is
 * looked up in the core by its tag. take_ref: the fd is a new reference
 * (else it carries the one the old image held). Returns the handle or -1.
 */
static int adopt_fd(int fd, bool take_ref)
{
	char pth[64], link[64];
	ssize_t n;
	int h;

	if (fd < 0 || fd >= PERF_FD_MAX || !S.core)
		return -1;
	snprintf(pth, sizeof(pth), "/proc/self/fd/%d", fd);
	n = readlink(pth, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	if (strcmp(link, "/memfd:" PERF_FD_NAME " (deleted)"))
		return -1;
	h = perf_file_by_tag(S.core, fd_tag(fd));
	if (h < 0 || (take_ref && perf_file_get(S.core, h) < 0))
		return -1;
	drop_fd(fd);
	fd_set_handle(fd, h);
	return h;
}

/* The perf fds an execve kept open (fds without close-on-exec, each with
 * the reference the old image held): begin_new_exec() keeps the files. */
static void adopt_exec_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end || end == e->d_name || fd == dirfd(d))
			continue;
		adopt_fd((int)fd, false);
	}
	if (d)
		closedir(d);
}

/*
 * The perf fds of SCM_RIGHTS messages. A message in flight holds each file
 * it carries (scm_fp_dup: the sender may close its fd at once), so send
 * takes a reference per perf fd, and the fd recvmsg installs for it
 * (scm_detach_fds) is a perf fd of the receiver that holds that
 * reference; with MSG_PEEK the message keeps its own and the new fd takes
 * another. Files of messages never received stay held.
 */
static void scm_fds(struct msghdr *msg, bool sent, bool peek)
{
	struct cmsghdr *c;

	if (!msg->msg_control || msg->msg_controllen < sizeof(struct cmsghdr))
		return;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		size_t nfds;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
		    c->cmsg_len < CMSG_LEN(0))
			continue;
		nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < nfds; i++) {
			int fd, h;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (!sent)
				adopt_fd(fd, peek);
			else if ((h = fd_handle(fd)) >= 0)
				perf_file_get(S.core, h);
		}
	}
}

/* sendmsg/sendmmsg (send: the message's references) and recvmsg/recvmmsg
 * (the receiver's perf fds); a[1] is the msghdr or the mmsghdr array. */
static long scm_call(struct guest_thread *t, const uint64_t a[6], bool send, bool many)
{
	long r = sys_pass(t, a);
	int flags = (int)a[many ? 3 : 2];

	if (r < 0 || !S.core)
		return r;
	if (!many) {
		scm_fds((struct msghdr *)(uintptr_t)a[1], send, flags & MSG_PEEK);
		return r;
	}
	for (long i = 0; i < r; i++)
		scm_fds(&((struct mmsghdr *)(uintptr_t)a[1])[i].msg_hdr, send, flags & MSG_PEEK);
	return r;
}

long sys_perf_sendmsg(struct guest_thread *t, const uint64_t a[6])
{
	return scm_call(t, a, true, false);
}

long sys_perf_sendmmsg(struct guest_thread *t, const uint64_t a[6])
{
	return scm_call(t, a, true, true);
}

long sys_perf_recvmsg(struct guest_thread *t, const uint64_t a[6])
{
	return scm_call(t, a, false, false);
}

long sys_perf_recvmmsg(struct guest_thread *t, const uint64_t a[6])
{
	return scm_call(t, a, false, true);
}

/* pidfd_getfd(): the file of another process of the tree, a new fd. */
long sys_perf_pidfd_getfd(struct guest_thread *t, const uint64_t a[6])
{
	long r = sys_pass(t, a);

	if (r >= 0)
		adopt_fd((int)r, true);
	return r;
}

long sys_perf_read(struct guest_thread *t, const uint64_t a[6])
{
	int h = fd_handle((long)a[0]);
	char buf[4096];
	size_t n = a[2] < sizeof(buf) ? a[2] : sizeof(buf);
	ssize_t r;

	if (h < 0)
		return sys_pass(t, a);
	r = perf_sys_read(S.core, h, buf, a[2] <= sizeof(buf) ? a[2] : n);
	if (r <= 0)
		return r;
	if (!guest_access_ok(t, a[1], (uint64_t)r, PROT_WRITE))
		return -EFAULT;
	memcpy((void *)(uintptr_t)a[1], buf, (size_t)r);
	return r;
}

/*
 * The calls perf_fops has no entry for, on a perf fd (an anon inode file
 * whose f_mode has no FMODE_LSEEK/PREAD/PWRITE, nor FMODE_CAN_WRITE):
 * write and writev are -EINVAL (vfs_write), pread64/pwrite64 -ESPIPE
 * (ksys_pread64, after a negative position's -EINVAL), lseek -ESPIPE
 * (vfs_llseek, after a bad whence's -EINVAL). Other fds pass.
 */
long sys_perf_write(struct guest_thread *t, const uint64_t a[6])
{
	return fd_handle((long)a[0]) < 0 ? sys_pass(t, a) : -EINVAL;
}

long sys_perf_pread(struct guest_thread *t, const uint64_t a[6])
{
	if (fd_handle((long)a[0]) < 0)
		return sys_pass(t, a);
	return (int64_t)a[3] < 0 ? -EINVAL : -ESPIPE;
}

long sys_perf_lseek(struct guest_thread *t, const uint64_t a[6])
{
	if (fd_handle((long)a[0]) < 0)
		return sys_pass(t, a);
	return (unsigned)a[2] > SEEK_HOLE ? -EINVAL : -ESPIPE;   /* SEEK_MAX */
}

/* fcntl F_SETFL's and ioctl FIOASYNC's change of O_ASYNC on perf file h
 * through fd: f_op->fasync (perf_fasync), which the host's memfd lacks. */
static void set_async(int fd, int h, bool on)
{
	if (!S.async_fd[h] == !on)
		return;
	perf_sys_fasync(S.core, h, on);
	S.async_fd[h] = on ? fd + 1 : 0;
}

long sys_perf_ioctl(struct guest_thread *t, const uint64_t a[6])
{
	struct perf_uaccess ua = { ua_from, ua_to, t };
	int h = fd_handle((long)a[0]);
	unsigned long arg = a[2];
	int on;

	if (h < 0)
		return sys_pass(t, a);
	/* do_vfs_ioctl() answers these for every file before f_op->ioctl */
	switch ((unsigned)a[1]) {
	case FIOCLEX:
	case FIONCLEX:
	case FIONBIO:
		return sys_pass(t, a);          /* the memfd's fd flags and f_flags */
	case FIOASYNC:                          /* ioctl_fioasync() */
		if (!guest_access_ok(t, arg, sizeof(on), PROT_READ))
			return -EFAULT;
		memcpy(&on, (const void *)(uintptr_t)arg, sizeof(on));
		set_async((int)a[0], h, on != 0);
		return 0;
	}
	if ((unsigned)a[1] == PERF_EVENT_IOC_SET_OUTPUT && arg != (unsigned long)-1) {
		int oh = fd_handle((long)arg);

		arg = oh < 0 ? (unsigned long)PERF_CORE_MAX_FILES : (unsigned long)oh;
	}
	return perf_sys_ioctl(S.core, cur_task(t), &ua, h, (unsigned)a[1], arg);
}

long sys_perf_close(struct guest_thread *t, const uint64_t a[6])
{
	int h = fd_handle((long)a[0]);
	long r = sys_close(t, a);

	if (r == 0 && h >= 0)
		drop_fd((long)a[0]);
	else if (r == 0)
		perf_ep_forget(&ep_set, (int)a[0]);     /* an epoll fd: ep_free() */
	return r;
}

/* close_range(): the perf fds it closed drop their files. */
long sys_perf_close_range(struct guest_thread *t, const uint64_t a[6])
{
	long r = sys_close_range(t, a);

	if (r || (a[2] & CLOSE_RANGE_CLOEXEC))
		return r;
	for (uint64_t fd = a[0]; fd <= a[1] && fd < PERF_FD_MAX; fd++)
		if (fd_handle((long)fd) >= 0 && fcntl((int)fd, F_GETFD) < 0)
			drop_fd((long)fd);
	return r;
}

static long dup_result(long r, long oldfd)
{
	int h = fd_handle(oldfd);

	if (r < 0 || r == oldfd)
		return r;
	/* newfd closed first: a perf fd there drops its file */
	perf_ep_forget(&ep_set, (int)r);
	drop_fd(r);
	if (h >= 0) {
		perf_file_get(S.core, h);
		fd_set_handle(r, h);
	}
	return r;
}

long sys_perf_dup(struct guest_thread *t, const uint64_t a[6])
{
	return dup_result(sys_pass(t, a), (long)a[0]);
}

long sys_perf_dup2(struct guest_thread *t, const uint64_t a[6])
{
	return dup_result(sys_dup2(t, a), (long)a[0]);
}

long sys_perf_dup3(struct guest_thread *t, const uint64_t a[6])
{
	return dup_result(sys_dup3(t, a), (long)a[0]);
}

long sys_perf_fcntl(struct guest_thread *t, const uint64_t a[6])
{
	int h = fd_handle((long)a[0]);
	int before = 0;
	long r;

	if (h < 0)
		return sys_fcntl(t, a);
	if (a[1] == F_SETFL)
		before = S.async_fd[h] ? O_ASYNC : 0;
	r = sys_fcntl(t, a);
	if (r < 0)
		return r;
	switch (a[1]) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		return dup_result(r, (long)a[0]);
	case F_SETFL:
		/* setfl(): a change of FASYNC calls f_op->fasync (perf_fasync) */
		if ((before ^ (int)a[2]) & O_ASYNC)
			set_async((int)a[0], h, a[2] & O_ASYNC);
		return r;
	case F_GETFL:
		return r | (S.async_fd[h] ? O_ASYNC : 0);
	default:
		return r;
	}
}

long sys_perf_mmap(struct guest_thread *t, const uint64_t a[6])
{
	int h = (a[3] & MAP_ANONYMOUS) ? -1 : fd_handle((long)(int)a[4]);
	uint64_t b[6];
	void *area = NULL;
	int memfd = -1, err;
	int64_t off;
	long r;

	if (h < 0) {
		long r = sys_mmap(t, a);

		if (r >= 0 && !IS_ERR_VALUE_GUEST(r))
			report_mappings(t, (uint64_t)r, (uint64_t)r + a[1]);
		return r;
	}
	if (a[5] & 0xfff)
		return -EINVAL;
	/* do_mmap(): path_noexec() of the anon inode's mount (anon_inodefs
	 * is SB_I_NOEXEC): a PROT_EXEC mapping is refused before perf_mmap() */
	if (a[2] & PROT_EXEC)
		return -EPERM;
	err = perf_sys_mmap(S.core, cur_task(t), h, a[1], (int)a[2], (int)a[3], a[5] >> 12,
			    &area, &memfd);
	if (err)
		return err;
	off = perf_sys_mmap_offset(S.core, h);
	memcpy(b, a, sizeof(b));
	b[4] = (uint64_t)memfd;
	b[5] = (uint64_t)off;
	b[3] = (a[3] & ~(uint64_t)MAP_TYPE) | MAP_SHARED;
	r = sys_mmap(t, b);
	if (r < 0) {
		perf_sys_munmap(S.core, h, area, a[1]);
		return r;
	}
	pthread_mutex_lock(&S.lock);
	if (S.nr_maps < PERF_MAPS_MAX)
		S.maps[S.nr_maps++] = (struct ring_map){ (uint64_t)r, (a[1] + 4095) & ~4095ull, h, area };
	pthread_mutex_unlock(&S.lock);
	report_perf_mapping(t, (uint64_t)r, a);
	return r;
}

long sys_perf_munmap(struct guest_thread *t, const uint64_t a[6])
{
	long r = sys_munmap(t, a);
	uint64_t len = (a[1] + 4095) & ~4095ull;

	if (r || !S.core)
		return r;
	pthread_mutex_lock(&S.lock);
	for (unsigned i = 0; i < S.nr_maps; i++) {
		struct ring_map m = S.maps[i];

		if (m.addr < a[0] || m.addr + m.len > a[0] + len)
			continue;
		S.maps[i--] = S.maps[--S.nr_maps];
		pthread_mutex_unlock(&S.lock);
		perf_sys_munmap(S.core, m.handle, m.area, m.len);
		pthread_mutex_lock(&S.lock);
	}
	pthread_mutex_unlock(&S.lock);
	return r;
}

/*
 * perf_poll() of a guest perf file: the readiness step of poll, select and
 * epoll. A POLLHUP from the end of a child process also waits until the
 * host has made the child a zombie (waitid WNOWAIT: not reaped). In the
 * kernel, do_exit() runs perf_event_exit_task() just before exit_notify()
 * sends SIGCHLD and wakes wait4; here the child's host exit follows its
 * EXIT records by the milliseconds its teardown takes, and a parent
 * polling meanwhile saw POLLHUP long before SIGCHLD (perf test 24). With
 * the wait, SIGCHLD is queued when the answer returns, and a wait4 finds
 * the child. Not our child (another process's, or reaped): ECHILD at once.
 */
static unsigned guest_perf_poll(struct guest_thread *t, int h)
{
	unsigned m = perf_sys_poll(S.core, h);
	pid_t pid;

	if ((m & POLLHUP) && t && (pid = perf_file_exit_pid(S.core, h)) > 0) {
		siginfo_t si;
		uint64_t a[6] = { P_PID, (uint64_t)pid, (uint64_t)(uintptr_t)&si,
				  WEXITED | WNOWAIT | __WALL, 0, 0 };

		signal_host_syscall(t, SYS_waitid, a);
	}
	return m;
}

/*
 * One step of a wait for a perf file's readiness: 1 ms in a host ppoll on
 * fd (an epoll fd whose ordinary items may become ready; -1: none), the
 * signal-safe way (signal_host_syscall), so a caught signal ends the wait
 * as it ends the kernel's poll_schedule_timeout()/ep_poll(). The core has
 * no waitqueue a host sleep could watch: the perf files are polled again
 * after each step. Returns 0 after the full step, 1 if fd became ready,
 * or the negative errno of a signal (-EINTR, -SIG_ERESTARTNOINTR).
 */
static long wait_step(struct guest_thread *t, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec ms = { 0, 1000000 };
	uint64_t a[6] = { (uint64_t)(uintptr_t)&p, fd >= 0, (uint64_t)(uintptr_t)&ms, 0, 8, 0 };
	long r = signal_host_syscall(t, SYS_ppoll, a);

	return r < 0 && r != -EINTR && r != -SIG_ERESTARTNOINTR ? 0 : r;
}

/*
 * poll() over a set with perf fds: perf fds answer from the core
 * (perf_poll), others from the host with a zero timeout; without an answer
 * the call sleeps in 1 ms steps (wait_step) until the timeout (the
 * simulated CPUs of other threads run meanwhile) or a signal. guest: ufds
 * is guest memory (else pmusim's own array, select_common).
 */
static long poll_common(struct guest_thread *t, uint64_t ufds, uint64_t nfds, long timeout_ms,
			bool guest)
{
	struct pollfd *pfd = (struct pollfd *)(uintptr_t)ufds;
	bool any = false;
	long waited = 0, r;

	if (nfds > 4096)
		return -EINVAL;
	if (guest && nfds && !guest_access_ok(t, ufds, nfds * sizeof(*pfd), PROT_READ | PROT_WRITE))
		return -EFAULT;
	for (uint64_t i = 0; i < nfds; i++)
		any |= fd_handle(pfd[i].fd) >= 0;
	if (!any)
		return -ENOSYS;
	for (;;) {
		int ready = 0;

		for (uint64_t i = 0; i < nfds; i++) {
			int h = fd_handle(pfd[i].fd);

			pfd[i].revents = 0;
			if (pfd[i].fd < 0)
				continue;
			if (h >= 0) {
				unsigned m = guest_perf_poll(t, h);

				pfd[i].revents = (short)(m & ((unsigned)pfd[i].events | POLLHUP | POLLERR));
			} else {
				struct pollfd one = pfd[i];

				if (poll(&one, 1, 0) > 0)
					pfd[i].revents = one.revents;
			}
			ready += pfd[i].revents != 0;
		}
		if (ready || (timeout_ms >= 0 && waited >= timeout_ms))
			return ready;
		r = wait_step(t, -1);
		if (r < 0)
			return r;
		waited++;
	}
}

long sys_perf_poll(struct guest_thread *t, const uint64_t a[6])
{
	long r = poll_common(t, a[0], a[1], (long)(int)a[2], true);

	return r == -ENOSYS ? sys_pass(t, a) : r;
}

long sys_perf_ppoll(struct guest_thread *t, const uint64_t a[6])
{
	long ms = -1;
	long r;

	if (a[2]) {
		const struct timespec *ts = (const struct timespec *)(uintptr_t)a[2];

		if (!guest_access_ok(t, a[2], sizeof(*ts), PROT_READ))
			return -EFAULT;
		ms = ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
	}
	r = poll_common(t, a[0], a[1], ms, true);
	return r == -ENOSYS ? sys_pass(t, a) : r;
}

/*
 * fork/vfork/clone of a process: the child's task inherits the parent's
 * events (perf_event_init_task). Parent and child share the core (a shared
 * arena), and either may get there first: whoever does creates the task,
 * under the core lock. Thread clones get their task when they start.
 */
static void fork_task(struct guest_thread *t, struct perf_task *parent, pid_t pid)
{
	struct perf_task *child = NULL;

	if (!S.core || !parent)
		return;
	perf_core_lock(S.core);
	child = perf_task_find(S.core, pid);
	if (!child)
		perf_task_fork(S.core, parent, pid, pid, &child);
	perf_core_unlock(S.core);
	(void)t;
}

static long after_fork(struct guest_thread *t, struct perf_task *parent, long r)
{
	struct pmu_vcpu *pv = t->perf;

	if (r > 0) {
		fork_task(t, parent, (pid_t)r);
		/* kernel_clone(): trace_sched_process_fork() in the parent,
		 * back on its CPU if the child ran there meanwhile */
		if (pv && S.core && pv->task == parent) {
			struct perf_task *child;

			pmu_vcpu_acquire(pv);
			child = perf_task_find(S.core, (pid_t)r);
			if (child)
				perf_tp_sched_process_fork(pv->cpu, child);
			pmu_vcpu_release(pv);
		}
	} else if (r == 0 && pv && S.core) {
		/* the child: its own task, on the CPU from now on */
		pid_t me = getpid();

		fork_task(t, parent, me);
		fork_maps();
		pv->locked = false;
		pv->task = perf_task_find(S.core, me);
		if (!pv->task)
			pv->task = parent;
		perf_core_lock(S.core);
		perf_cpu_switch_to(pv->cpu, pv->task);
		perf_core_unlock(S.core);
	}
	return r;
}

/* fork or vfork (fork_fn) of a process, with its file references. */
static long fork_process(struct guest_thread *t, const uint64_t a[6],
			 long (*fork_fn)(struct guest_thread *, const uint64_t *))
{
	struct perf_task *parent = cur_task(t);
	long r;

	fork_files(false);
	r = fork_fn(t, a);
	if (r < 0)
		fork_files(true);
	return after_fork(t, parent, r);
}

long sys_perf_fork(struct guest_thread *t, const uint64_t a[6])
{
	return fork_process(t, a, sys_fork);
}

long sys_perf_vfork(struct guest_thread *t, const uint64_t a[6])
{
	return fork_process(t, a, sys_vfork);
}

long sys_perf_clone(struct guest_thread *t, const uint64_t a[6])
{
	struct perf_task *parent = cur_task(t);
	/* a new process with its own copy of the fd table and mappings: what
	 * sys_clone runs as a host fork (CLONE_VM|CLONE_VFORK too) */
	bool process = !(a[0] & CLONE_VM) || (a[0] & CLONE_VFORK);
	long r;

	if (process)
		fork_files(false);
	r = sys_clone(t, a);
	if (process && r < 0)
		fork_files(true);
	if (a[0] & CLONE_VM) {     /* a thread (or a CLONE_VM sibling): thread start */
		if (process && r == 0 && S.core)
			fork_maps();
		return r;
	}
	return after_fork(t, parent, r);
}

/*
 * select() and pselect6() over sets holding perf fds: the same readiness as
 * poll (perf_poll's mask: POLLIN/POLLHUP make a fd readable, as the
 * kernel's select maps EPOLLIN|EPOLLHUP|EPOLLERR to the read set). The
 * timeout is kept in milliseconds; pselect6's signal mask is not applied.
 */
static long select_common(struct guest_thread *t, const uint64_t a[6], long ms)
{
	int nfds = (int)a[0];
	fd_set *sets[3] = { (fd_set *)(uintptr_t)a[1], (fd_set *)(uintptr_t)a[2],
			    (fd_set *)(uintptr_t)a[3] };
	struct pollfd pfd[FD_SETSIZE];
	unsigned n = 0;
	bool any = false;
	long r;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return -EINVAL;
	for (int k = 0; k < 3; k++)
		if (sets[k] && !guest_access_ok(t, a[1 + k], (uint64_t)(nfds + 7) / 8,
						 PROT_READ | PROT_WRITE))
			return -EFAULT;
	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;

		if (sets[0] && FD_ISSET(fd, sets[0]))
			ev |= POLLIN;
		if (sets[1] && FD_ISSET(fd, sets[1]))
			ev |= POLLOUT;
		if (sets[2] && FD_ISSET(fd, sets[2]))
			ev |= POLLPRI;
		if (!ev)
			continue;
		any |= fd_handle(fd) >= 0;
		pfd[n].fd = fd;
		pfd[n].events = ev;
		pfd[n++].revents = 0;
	}
	if (!any)
		return -ENOSYS;
	r = poll_common(t, (uint64_t)(uintptr_t)pfd, n, ms, false);
	if (r < 0)
		return r;
	r = 0;
	for (int k = 0; k < 3; k++)
		if (sets[k])
			memset(sets[k], 0, (size_t)(nfds + 7) / 8);
	for (unsigned i = 0; i < n; i++) {
		short re = pfd[i].revents;

		if (sets[0] && (pfd[i].events & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR))) {
			FD_SET(pfd[i].fd, sets[0]);
			r++;
		}
		if (sets[1] && (pfd[i].events & POLLOUT) && (re & (POLLOUT | POLLERR))) {
			FD_SET(pfd[i].fd, sets[1]);
			r++;
		}
		if (sets[2] && (pfd[i].events & POLLPRI) && (re & POLLPRI)) {
			FD_SET(pfd[i].fd, sets[2]);
			r++;
		}
	}
	return r;
}

long sys_perf_select(struct guest_thread *t, const uint64_t a[6])
{
	long ms = -1, r;

	if (a[4]) {
		const struct timeval *tv = (const struct timeval *)(uintptr_t)a[4];

		if (!guest_access_ok(t, a[4], sizeof(*tv), PROT_READ))
			return -EFAULT;
		ms = tv->tv_sec * 1000 + tv->tv_usec / 1000;
	}
	r = select_common(t, a, ms);
	return r == -ENOSYS ? sys_pass(t, a) : r;
}

long sys_perf_pselect6(struct guest_thread *t, const uint64_t a[6])
{
	long ms = -1, r;

	if (a[4]) {
		const struct timespec *ts = (const struct timespec *)(uintptr_t)a[4];

		if (!guest_access_ok(t, a[4], sizeof(*ts), PROT_READ))
			return -EFAULT;
		ms = ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
	}
	r = select_common(t, a, ms);
	return r == -ENOSYS ? sys_pass(t, a) : r;
}

long sys_perf_prctl(struct guest_thread *t, const uint64_t a[6])
{
	struct perf_task *task = cur_task(t);
	long r;

	if (S.core && (a[0] == PR_TASK_PERF_EVENTS_ENABLE || a[0] == PR_TASK_PERF_EVENTS_DISABLE))
		return perf_sys_prctl_events(S.core, task, a[0] == PR_TASK_PERF_EVENTS_ENABLE);
	r = sys_prctl(t, a);
	if (r == 0 && a[0] == PR_SET_NAME && S.core && task) {
		/* __set_task_comm() -> perf_event_comm(tsk, false) */
		char name[16] = { 0 };

		if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0)
			perf_task_set_comm(S.core, task, name);
	}
	return r;
}

/* ---- epoll ------------------------------------------------------------------ */

/*
 * epoll over perf fds (fs/eventpoll.c, with perf_epoll.h's shared table).
 * The host's epoll refuses a memfd (EPERM: no poll), so a perf fd's item
 * lives only in the table: the caller's events and data and the ready
 * list. A wait on an epoll fd holding perf items collects those from the
 * core (perf_ep_collect: ep_item_poll -> perf_poll, EPOLLET,
 * EPOLLONESHOT), the ordinary fds from the host, and sleeps in
 * wait_step()s on the epoll fd.
 */
static __thread struct guest_thread *ep_thread;       /* the caller of epoll_* */

static unsigned ep_poll_file(int fd, int h)
{
	(void)fd;
	return guest_perf_poll(ep_thread, h);
}

static const struct perf_ep_ops *ep_ops(void)
{
	static struct perf_ep_ops ops = { .poll = ep_poll_file };

	ops.core = S.core;
	return &ops;
}

/* do_epoll_ctl()'s checks of the epoll fd: EBADF if it is not open, EINVAL
 * if it is not an epoll file or is fd itself. */
static long ep_check_epfd(int epfd, int fd)
{
	char path[32], link[32];
	ssize_t n;

	if (fcntl(epfd, F_GETFD) < 0)
		return -EBADF;
	if (epfd == fd)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", epfd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -EBADF;
	link[n] = 0;
	return strcmp(link, "anon_inode:[eventpoll]") ? -EINVAL : 0;
}

long sys_perf_epoll_ctl(struct guest_thread *t, const uint64_t a[6])
{
	int epfd = (int)a[0], op = (int)a[1], fd = (int)a[2];
	int h = fd_handle(fd);
	struct epoll_event ev = { 0 };
	long r;

	if (h < 0)
		return sys_pass(t, a);
	/* ep_op_has_event(): copy_from_user of the event first */
	if (op != EPOLL_CTL_DEL) {
		if (!guest_access_ok(t, a[3], sizeof(ev), PROT_READ))
			return -EFAULT;
		memcpy(&ev, (const void *)(uintptr_t)a[3], sizeof(ev));
	}
	r = ep_check_epfd(epfd, fd);
	if (r)
		return r;
	ep_thread = t;
	return perf_ep_ctl(&ep_set, ep_ops(), epfd, op, fd, h, &ev);
}

/*
 * epoll_wait/epoll_pwait/epoll_pwait2 (do_epoll_wait -> ep_poll): an epoll
 * fd without perf items is the host's. Otherwise perf items first (the
 * ready list kept in the table), then the host's ready ordinary fds, and
 * without any, 1 ms waits (as poll's) until the timeout or a signal.
 * epoll_pwait's signal mask is checked (sigsetsize) but not applied.
 */
long sys_perf_epoll_wait(struct guest_thread *t, const uint64_t a[6])
{
	int epfd = (int)a[0], max = (int)a[2];
	struct epoll_event *evs = (struct epoll_event *)(uintptr_t)a[1];
	long nr = (long)t->syscall_nr, timeout_ms = -1, waited = 0;

	if (!S.core || !perf_ep_watches(&ep_set, epfd))
		return sys_pass(t, a);
	if (nr == SYS_epoll_pwait2 && a[3]) {
		const struct timespec *ts = (const struct timespec *)(uintptr_t)a[3];

		if (!guest_access_ok(t, a[3], sizeof(*ts), PROT_READ))
			return -EFAULT;
		if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)
			return -EINVAL;
		/* whole milliseconds, rounded up: a wait is never shorter */
		timeout_ms = ts->tv_sec * 1000 + (ts->tv_nsec + 999999) / 1000000;
	} else if (nr != SYS_epoll_pwait2 && (int)a[3] >= 0) {
		timeout_ms = (int)a[3];
	}
	if (nr != SYS_epoll_wait && a[4] && a[5] != sizeof(uint64_t))
		return -EINVAL;         /* set_user_sigmask(): sigsetsize */
	if (max <= 0 || (size_t)max > INT32_MAX / sizeof(*evs))
		return -EINVAL;         /* EP_MAX_EVENTS */
	if (!guest_access_ok(t, a[1], (uint64_t)max * sizeof(*evs), PROT_WRITE))
		return -EFAULT;
	ep_thread = t;
	for (;;) {
		int n = perf_ep_collect(&ep_set, ep_ops(), epfd, evs, max);
		long r = 0;

		if (n < max)            /* the host's ready ordinary fds */
			r = syscall(SYS_epoll_wait, epfd, evs + n, max - n, 0);
		if (r < 0)
			return -errno;
		if (n + r || (timeout_ms >= 0 && waited >= timeout_ms))
			return n + r;
		r = wait_step(t, epfd);
		if (r < 0)
			return r;
		waited += r == 0;       /* a full step; else an ordinary fd woke */
	}
}
