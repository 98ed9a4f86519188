/*
 * sys_perf.c - the guest's perf_event interface (sys_perf.h): the session's
 * core, core tasks for guest threads, the machine hooks the core calls
 * (fill_sample, fasync), and the perf syscalls on guest fds.
 *
 * A perf file is a host memfd named "[perf_event]" in the guest's fd table,
 * so close-on-exec, fork, exec, SCM_RIGHTS and the fd numbers work as for
 * any fd; the process's perf fds, their file references, file operations,
 * rings and poll are sim/perf_file's (perf_file.h) over this file's host
 * operations, and the core tags each file with its memfd's inode so
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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/arena.h"
#include "sim/core/perf_epoll.h"
#include "sim/core/sample_data.h"
#include "sim/cpu/kernel_symbols.h"
#include "sim/cpu/pmu_machine.h"
#include "sim/cpu/vcpu.h"
#include "sim/perf_file/perf_file.h"
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

static struct {
	struct perf_core *core;
	unsigned nr_cpus;
	unsigned next_k;                  /* CPU of the next thread: k mod nr_cpus */
	/* O_ASYNC of a file (the host keeps no FASYNC on a memfd): the fd
	 * F_SETFL set it through (fasync_struct's fa_fd) + 1, 0: off */
	int async_fd[PERF_CORE_MAX_FILES];
} S;

/* the process's perf fds (slot = fd) and rings */
static struct perf_fd_slot fd_slots[PERF_FD_MAX];
static const struct perf_file_host guest_files_host;
static struct perf_files PF = { .host = &guest_files_host, .slots = fd_slots,
				.nr_slots = PERF_FD_MAX, .max_rings = PERF_MAPS_MAX };

static __thread struct pmu_vcpu *cur_pv;
static struct perf_guest_session_hooks SH;   /* a `pmusim run` session, or zeros */

static int fd_handle(long fd)
{
	return perf_fd_handle(&PF, NULL, fd);
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

/*
 * A sample of an idle CPU (a CPU-wide cpu-clock event's timer while nothing
 * runs there): the timer interrupted the idle task, pid 0, in the kernel's
 * idle loop. get_perf_callchain() gives its kernel part only (the idle task
 * has no user mm); the loop's own frames are not modelled.
 */
static void idle_sample(struct perf_event *event, struct perf_sample_data *data)
{
	static __thread uint64_t cc[2];
	const struct perf_event_attr *attr = perf_event_attr(event);

	data->ip = kernel_idle_ip();
	data->cpumode = PERF_RECORD_MISC_KERNEL;
	if (!(attr->sample_type & PERF_SAMPLE_CALLCHAIN) || attr->exclude_callchain_kernel)
		return;
	cc[0] = PERF_CONTEXT_KERNEL;
	cc[1] = data->ip;
	data->callchain = cc;
	data->callchain_nr = 2;
}

static void m_fill_sample(void *machine, struct perf_cpu *cpu, struct perf_event *event,
			  struct perf_sample_data *data)
{
	(void)machine;
	if (!perf_cpu_task(cpu)) {
		idle_sample(event, data);
		return;
	}
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
	sig = perf_fd_sigio_info(sig > 0 ? sig : 0, fd, si_code, &si);
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

/* attr.sigtrap's SIGTRAP to the guest thread running the event's task on
 * cpu (the core checked it is the event's): taken where the run stopped,
 * which for a sampling or breakpoint overflow is right after its
 * instruction (needs_state, exact stops). */
static void m_sigtrap(void *machine, struct perf_cpu *cpu, uint64_t addr, uint32_t type,
		      uint64_t sig_data)
{
	(void)machine;
	if (!cur_pv || cur_pv->cpu != cpu || !cur_pv->owner)
		return;
	signal_send_perf(cur_pv->owner, addr, type, sig_data);
	if (cur_pv->c)
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
	.sigtrap = m_sigtrap,
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
	uint32_t ulen = (uint32_t)a[1];        /* the syscall's unsigned int len */
	size_t len = ulen < sizeof(mask) ? ulen : sizeof(mask);
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
	if ((uint64_t)(uint32_t)a[1] * 8 < S.nr_cpus)   /* an unsigned int len */
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
		PF.core = NULL;
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
	PF.core = core;
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
	{
		/* an exec keeps the task on its CPU: the one it is current
		 * on still (the old image's) or last ran on */
		int was = perf_task_cpu(task);

		if (was >= 0 && (unsigned)was < S.nr_cpus && cpu_allowed(t, (unsigned)was))
			cur_pv->cpu = perf_core_cpu(core, (unsigned)was);
	}
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
	perf_fd_rings_release(&PF, NULL);
}

/* exit_files(), or do_close_on_exec() with cloexec: the perf fds of the
 * process close. Returns how many fds it put in dropped (up to max). */
static unsigned release_fds(bool cloexec, int *dropped, unsigned max)
{
	return S.core ? perf_fd_release(&PF, NULL, cloexec, dropped, max) : 0;
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
	if (S.core)
		perf_fd_fork(&PF, NULL, undo);
}

/* The child of a fork: the ring mappings it copied are its own too
 * (dup_mmap -> perf_mmap_open); one whose ring went meanwhile is not
 * tracked. */
static void fork_maps(void)
{
	perf_fd_rings_fork(&PF, true);
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


long sys_perf_event_open(struct guest_thread *t, const uint64_t a[6])
{
	struct perf_uaccess ua = { ua_from, ua_to, t };
	unsigned long flags = a[4];
	int group = -1, h;

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
	return perf_fd_install(&PF, t, h, flags);
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
	return perf_fd_adopt(&PF, NULL, fd, h, 0, take_ref);
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
static void scm_sent_fd(void *arg, int *fd)
{
	int h = fd_handle(*fd);

	(void)arg;
	if (h >= 0)
		perf_file_get(S.core, h);
}

static void scm_received_fd(void *arg, int *fd)
{
	adopt_fd(*fd, *(bool *)arg);
}

static void scm_fds(struct msghdr *msg, bool sent, bool peek)
{
	perf_fd_scm_each(msg, sent ? scm_sent_fd : scm_received_fd, &peek);
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

	if (h < 0)
		return sys_pass(t, a);
	return perf_fd_read(&PF, t, h, a[1], a[2]);
}

/* readv, and preadv2 at position -1: perf_read() segment by segment. */
long sys_perf_readv(struct guest_thread *t, const uint64_t a[6])
{
	int h = fd_handle((long)a[0]);
	long r;

	if (h < 0)
		return sys_pass(t, a);
	r = perf_fd_no_op((long)t->syscall_nr, (const long *)a);
	return r ? r : perf_fd_readv(&PF, t, h, a[1], (long)a[2]);
}

/* The calls perf_fops has no entry for, on a perf fd: perf_fd_no_op()'s
 * errnos (write and writev; pread64, pwrite64 and their vectors; lseek;
 * fsync, fdatasync and ftruncate). Other fds pass. */
long sys_perf_no_op(struct guest_thread *t, const uint64_t a[6])
{
	return fd_handle((long)a[0]) < 0 ? sys_pass(t, a)
					 : perf_fd_no_op((long)t->syscall_nr, (const long *)a);
}

long sys_perf_ioctl(struct guest_thread *t, const uint64_t a[6])
{
	struct perf_uaccess ua = { ua_from, ua_to, t };
	int h = fd_handle((long)a[0]);

	if (h < 0)
		return sys_pass(t, a);
	return perf_fd_ioctl(&PF, t, cur_task(t), &ua, h, (const long *)a, NULL);
}

long sys_perf_close(struct guest_thread *t, const uint64_t a[6])
{
	int h = fd_handle((long)a[0]);
	long r;

	if (h >= 0)
		return perf_fd_close(&PF, t, (long)a[0]);
	r = sys_close(t, a);
	if (r == 0)
		perf_fd_ep_forget(&PF, (int)a[0]);     /* an epoll fd: ep_free() */
	return r;
}

/* close_range(): the perf fds it closed drop their files. */
long sys_perf_close_range(struct guest_thread *t, const uint64_t a[6])
{
	static __thread int hs[PERF_FD_MAX];   /* guest threads run at once */
	long r;

	if (!S.core)
		return sys_close_range(t, a);
	perf_fd_snapshot(&PF, t, (unsigned)a[0], (unsigned)a[1], hs);
	r = sys_close_range(t, a);
	perf_fd_close_range_done(&PF, t, r, (const long *)a, hs);
	return r;
}

long sys_perf_dup(struct guest_thread *t, const uint64_t a[6])
{
	int h = fd_handle((long)a[0]);

	return h < 0 ? sys_pass(t, a) : perf_fd_dup(&PF, t, (long)a[0], h, 0, false);
}

/* dup2/dup3 (t->syscall_nr): either fd may be a perf fd. */
static long dup23(struct guest_thread *t, const uint64_t a[6])
{
	int oh = fd_handle((long)a[0]), nh = a[0] == a[1] ? -1 : fd_handle((long)a[1]);
	long r = t->syscall_nr == SYS_dup2 ? sys_dup2(t, a) : sys_dup3(t, a);

	if (r >= 0 && a[0] != a[1])
		perf_fd_ep_forget(&PF, (int)a[1]);     /* newfd closed first */
	return perf_fd_dup2_done(&PF, t, r, (const long *)a, oh, nh);
}

long sys_perf_dup2(struct guest_thread *t, const uint64_t a[6])
{
	return dup23(t, a);
}

long sys_perf_dup3(struct guest_thread *t, const uint64_t a[6])
{
	return dup23(t, a);
}

long sys_perf_fcntl(struct guest_thread *t, const uint64_t a[6])
{
	int h = fd_handle((long)a[0]);

	if (h < 0)
		return sys_fcntl(t, a);
	return perf_fd_fcntl(&PF, t, h, (const long *)a);
}

long sys_perf_mmap(struct guest_thread *t, const uint64_t a[6])
{
	int h = (a[3] & MAP_ANONYMOUS) ? -1 : fd_handle((long)(int)a[4]);
	long r;

	if (h < 0) {
		r = sys_mmap(t, a);
		if (r >= 0 && !IS_ERR_VALUE_GUEST(r))
			report_mappings(t, (uint64_t)r, (uint64_t)r + a[1]);
		return r;
	}
	r = perf_fd_mmap(&PF, t, cur_task(t), h, (const long *)a);
	if (r >= 0)
		report_perf_mapping(t, (uint64_t)r, a);
	return r;
}

long sys_perf_munmap(struct guest_thread *t, const uint64_t a[6])
{
	return perf_fd_munmap(&PF, t, a[0], a[1]);
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
 * One step of a wait for a perf file's readiness: 1 ms (or ns, if less) in
 * a host ppoll on fd (an epoll fd whose ordinary items may become ready;
 * -1: none), the
 * signal-safe way (signal_host_syscall), so a caught signal ends the wait
 * as it ends the kernel's poll_schedule_timeout()/ep_poll(). The core has
 * no waitqueue a host sleep could watch: the perf files are polled again
 * after each step. Returns 0 after the full step, 1 if fd became ready,
 * or the negative errno of a signal (-EINTR, -SIG_ERESTARTNOINTR).
 */
static long wait_step(struct guest_thread *t, int fd, int64_t ns)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct timespec ms = { 0, ns >= 0 && ns < 1000000 ? ns : 1000000 };
	uint64_t a[6] = { (uint64_t)(uintptr_t)&p, fd >= 0, (uint64_t)(uintptr_t)&ms, 0, 8, 0 };
	long r = signal_host_syscall(t, SYS_ppoll, a);

	return r < 0 && r != -EINTR && r != -SIG_ERESTARTNOINTR ? 0 : r;
}

/* do_sys_poll()'s first check: a set longer than the soft RLIMIT_NOFILE.
 * Asked only where pmusim answers (a set the host polls is the host's to
 * refuse), as it costs a syscall. */
static bool over_nofile(unsigned int nfds)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) == 0 && nfds > rl.rlim_cur;
}

/*
 * poll() over a set with perf fds (perf_fd_poll_fds): perf fds answer from
 * the core (perf_poll), others from the host; without an answer the call
 * sleeps in 1 ms steps (wait_step) until the timeout (ns, -1: none; the
 * simulated CPUs of other threads run meanwhile) or a signal. Returns
 * -ENOSYS when no fd is a perf fd (the host's call). As do_sys_poll(),
 * a set longer than the soft RLIMIT_NOFILE (the guest's: getrlimit is the
 * host's) is EINVAL whatever the set holds (over_nofile()). nfds is the
 * syscalls' unsigned int (the register's upper half ignored).
 */
static long poll_common(struct guest_thread *t, uint64_t ufds, unsigned int nfds, int64_t timeout_ns)
{
	struct pollfd *pfd = (struct pollfd *)(uintptr_t)ufds;
	static __thread int small[256];
	int *hs = small;
	bool any = false;
	long r = -ENOSYS;

	if (nfds && !guest_access_ok(t, ufds, (uint64_t)nfds * sizeof(*pfd), PROT_READ | PROT_WRITE))
		return over_nofile(nfds) ? -EINVAL : -EFAULT;
	if (nfds > sizeof(small) / sizeof(small[0])) {
		if (over_nofile(nfds))   /* a set no limit allows: no buffer for it */
			return -EINVAL;
		if (!(hs = malloc((size_t)nfds * sizeof(*hs))))
			return -ENOMEM;
	}
	for (unsigned int i = 0; i < nfds; i++) {
		hs[i] = pfd[i].fd < 0 ? -1 : fd_handle(pfd[i].fd);
		any |= hs[i] >= 0;
	}
	if (any)
		r = over_nofile(nfds) ? -EINVAL : perf_fd_poll_fds(&PF, t, pfd, nfds, hs, timeout_ns);
	if (hs != small)
		free(hs);
	return r;
}

long sys_perf_poll(struct guest_thread *t, const uint64_t a[6])
{
	long r = poll_common(t, a[0], a[1], (int)a[2] < 0 ? -1 : (int64_t)(int)a[2] * 1000000);

	return r == -ENOSYS ? sys_pass(t, a) : r;
}

/* A ppoll/pselect6 timespec (or select's timeval) at uaddr in ns, -1 for
 * none: -EFAULT, or perf_fd_timeout_ns()'s -EINVAL. */
static long guest_timeout_ns(struct guest_thread *t, uint64_t uaddr, bool timeval, int64_t *ns)
{
	*ns = -1;
	if (!uaddr)
		return 0;
	if (timeval) {
		struct timeval tv;

		if (ua_from(t, &tv, uaddr, sizeof(tv)))
			return -EFAULT;
		return perf_fd_timeout_ns(tv.tv_sec, tv.tv_usec, true, ns);
	} else {
		struct timespec ts;

		if (ua_from(t, &ts, uaddr, sizeof(ts)))
			return -EFAULT;
		return perf_fd_timeout_ns(ts.tv_sec, ts.tv_nsec, false, ns);
	}
}

long sys_perf_ppoll(struct guest_thread *t, const uint64_t a[6])
{
	int64_t ns;
	long r = guest_timeout_ns(t, a[2], false, &ns);

	if (r)
		return r;
	r = poll_common(t, a[0], a[1], ns);
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

/*
 * wake_up_new_task(): select_task_rq() with WF_FORK places a new process
 * on the idlest allowed CPU (find_idlest_cpu()), so a child runs beside
 * its parent rather than behind it. Here new tasks take the allowed CPUs
 * in turn, as new threads do; the parent chooses before the fork, so
 * both sides know.
 */
static unsigned place_new_process(const struct guest_thread *t)
{
	return S.core && t->perf ? place_new_thread(t) : 0;
}

static long after_fork(struct guest_thread *t, struct perf_task *parent, unsigned child_cpu,
		       long r)
{
	struct pmu_vcpu *pv = t->perf;

	if (r > 0) {
		fork_task(t, parent, (pid_t)r);
		/* kernel_clone(): trace_sched_process_fork() in the parent,
		 * back on its CPU if the child ran there meanwhile */
		if (pv && S.core && pv->task == parent) {
			struct perf_task *child;

			/* the core's lock first: the order is the core's,
			 * then the CPU's */
			perf_core_lock(S.core);
			pmu_vcpu_acquire(pv);
			child = perf_task_find(S.core, (pid_t)r);
			if (child)
				perf_tp_sched_process_fork(pv->cpu, child);
			pmu_vcpu_release(pv);
			perf_core_unlock(S.core);
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
		pv->cpu = perf_core_cpu(S.core, child_cpu);
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
	unsigned child_cpu = place_new_process(t);
	long r;

	fork_files(false);
	r = fork_fn(t, a);
	if (r < 0)
		fork_files(true);
	return after_fork(t, parent, child_cpu, r);
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
	unsigned child_cpu = !(a[0] & CLONE_VM) ? place_new_process(t) : 0;
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
	return after_fork(t, parent, child_cpu, r);
}

/*
 * select() and pselect6() over sets holding perf fds: the same readiness as
 * poll, through do_select()'s sets (perf_fd_select_to_poll), and the time
 * left written back (poll_select_finish); pselect6's signal mask is not
 * applied.
 */
static long select_common(struct guest_thread *t, const uint64_t a[6], int64_t ns)
{
	int64_t start = perf_fd_now_ns();
	int nfds = (int)a[0];
	unsigned long *sets[3] = { (unsigned long *)(uintptr_t)a[1], (unsigned long *)(uintptr_t)a[2],
				   (unsigned long *)(uintptr_t)a[3] };
	struct pollfd pfd[FD_SETSIZE];
	int hs[FD_SETSIZE];
	unsigned long n;
	long r;

	if (nfds < 0 || nfds > FD_SETSIZE)
		return -EINVAL;
	for (int k = 0; k < 3; k++)
		if (sets[k] && !guest_access_ok(t, a[1 + k], PERF_FD_BITS_BYTES(nfds),
						 PROT_READ | PROT_WRITE))
			return -EFAULT;
	if (!perf_fd_select_any(&PF, t, nfds, sets))
		return -ENOSYS;
	n = perf_fd_select_to_poll(&PF, t, nfds, sets, pfd, hs);
	r = perf_fd_poll_fds(&PF, t, pfd, n, hs, ns);
	if (r >= 0)
		r = perf_fd_poll_to_select(nfds, sets, pfd, n);
	if (r >= 0)
		perf_fd_select_finish(&PF, t, (long)t->syscall_nr, a[4], ns, start);
	return r;
}

long sys_perf_select(struct guest_thread *t, const uint64_t a[6])
{
	int64_t ns;
	long r = guest_timeout_ns(t, a[4], true, &ns);

	if (r)
		return r;
	r = select_common(t, a, ns);
	return r == -ENOSYS ? sys_pass(t, a) : r;
}

long sys_perf_pselect6(struct guest_thread *t, const uint64_t a[6])
{
	int64_t ns;
	long r = guest_timeout_ns(t, a[4], false, &ns);

	if (r)
		return r;
	r = select_common(t, a, ns);
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
		char name[16];

		perf_fd_comm_from_user(&PF, t, a[1], name);
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
	return perf_fd_ep_ctl(&PF, t, epfd, op, fd, h, &ev);
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
	int64_t timeout, deadline = 0;
	uint64_t mask;
	bool has_mask;
	long r;

	if (!S.core || !perf_fd_ep_watches(&PF, epfd))
		return sys_pass(t, a);
	r = perf_fd_epoll_args(&PF, t, (long)t->syscall_nr, (const long *)a, &timeout, &mask,
			       &has_mask);
	if (r)
		return r;
	if (max <= 0 || (size_t)max > INT32_MAX / sizeof(*evs))
		return -EINVAL;         /* EP_MAX_EVENTS */
	if (!guest_access_ok(t, a[1], (uint64_t)max * sizeof(*evs), PROT_WRITE))
		return -EFAULT;
	if (timeout > 0)
		deadline = perf_fd_now_ns() + timeout;
	for (;;) {
		int n = perf_fd_ep_collect(&PF, t, epfd, evs, max);
		int64_t left = -1;

		r = 0;
		if (n < max)            /* the host's ready ordinary fds */
			r = syscall(SYS_epoll_wait, epfd, evs + n, max - n, 0);
		if (r < 0)
			return -errno;
		if (timeout > 0)
			left = deadline - perf_fd_now_ns();
		if (n + r || timeout == 0 || (timeout > 0 && left <= 0))
			return n + r;
		r = wait_step(t, epfd, left);
		if (r < 0)
			return r;
	}
}

/* ---- the host operations of the guest's perf fds (sim/perf_file) ---------- */

static long g_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long r = syscall(nr, a1, a2, a3, a4, a5, a6);

	return r < 0 ? -errno : r;
}

/* The guest's own call: its fd checks (pmusim's reserved fds), its
 * mappings, its signal-safe host call. */
static long g_pass(void *ctx, long nr, const long a[6])
{
	struct guest_thread *t = ctx;
	const uint64_t *u = (const uint64_t *)a;

	switch (nr) {
	case SYS_close:
		return sys_close(t, u);
	case SYS_fcntl:
		return sys_fcntl(t, u);
	case SYS_munmap:
		return sys_munmap(t, u);
	}
	return nr == (long)t->syscall_nr ? sys_pass(t, u) : signal_host_syscall(t, nr, u);
}

/* A memfd named "[perf_event]", tagged in the core with its inode. */
static long g_make_fd(void *ctx, int h, unsigned long flags, uint64_t *tag)
{
	int fd = memfd_create(PERF_FD_NAME, (flags & PERF_FLAG_FD_CLOEXEC) ? MFD_CLOEXEC : 0);

	(void)ctx;
	if (fd < 0)
		return -errno;
	*tag = fd_tag(fd);
	if (fd >= PERF_FD_MAX || perf_file_set_tag(S.core, h, *tag) < 0) {
		close(fd);
		return -EMFILE;
	}
	return fd;
}

static long g_dup_fd(void *ctx, long fd, long min, bool cloexec)
{
	uint64_t a[6] = { (uint64_t)fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, (uint64_t)min, 0, 0, 0 };

	return sys_fcntl(ctx, a);
}

static long g_slot(long fd)
{
	return fd >= 0 && fd < PERF_FD_MAX ? fd : -1;
}

static long g_slot_fd(long i)
{
	return i;
}

static bool g_async(void *ctx, int h)
{
	(void)ctx;
	return S.async_fd[h] != 0;
}

static void g_set_async(void *ctx, int h, long fd, bool on)
{
	(void)ctx;
	S.async_fd[h] = on ? (int)fd + 1 : 0;
}

static void g_dropped(void *ctx, long fd, int h)
{
	(void)ctx;
	perf_fd_ep_forget(&PF, (int)fd);
	if (S.async_fd[h] == fd + 1)
		S.async_fd[h] = 0;    /* fasync_helper() entry of that fd goes */
}

/* The ring's pages in the guest: the memfd at the ring's offset, shared. */
static long g_map_ring(void *ctx, struct perf_files *pf, const long a[6], int memfd, int64_t off,
		       bool *tracked)
{
	uint64_t b[6];

	(void)pf;
	(void)tracked;
	memcpy(b, a, sizeof(b));
	b[4] = (uint64_t)memfd;
	b[5] = (uint64_t)off;
	b[3] = (b[3] & ~(uint64_t)MAP_TYPE) | MAP_SHARED;
	return sys_mmap(ctx, b);
}

static unsigned g_poll(void *ctx, long fd, int h, short revents)
{
	(void)fd;
	(void)revents;
	return guest_perf_poll(ctx, h);
}

static long g_poll_wait(void *ctx, struct pollfd *fds, unsigned long n, int64_t timeout_ns)
{
	(void)fds;
	(void)n;
	return wait_step(ctx, -1, timeout_ns);
}

static const struct perf_file_host guest_files_host = {
	.sys = g_sys,
	.pass = g_pass,
	.copy_from = ua_from,
	.copy_to = ua_to,
	.make_fd = g_make_fd,
	.dup_fd = g_dup_fd,
	.slot = g_slot,
	.slot_fd = g_slot_fd,
	.async = g_async,
	.set_async = g_set_async,
	.dropped = g_dropped,
	.map_ring = g_map_ring,
	.poll = g_poll,
	.poll_wait = g_poll_wait,
};
