/*
 * attr_check.c - perf_event_attr checking with the kernel's errnos.
 *
 * Owns everything sys_perf_event_open() and perf_event_alloc() reject on
 * the attr alone, in the kernel's order (kernel/events/core.c, Linux 6.18 as
 * on the host): perf_copy_attr(), the syscall's checks before group_fd,
 * perf_event_alloc()'s checks around perf_init_event(), the software PMUs'
 * event_init (perf_swevent_init, cpu_clock_event_init,
 * task_clock_event_init) and the dispatch of hardware types to the model's
 * event_init. Also owns perf_uaccess_direct.
 *
 * The simulated system has exactly these PMUs: "software" (type 1),
 * "cpu_clock" (6), "task_clock" (7) and the model's core PMU. It has no
 * tracepoint, kprobe/uprobe, breakpoint, msr or AUX PMU, and no perf_event
 * cgroup hierarchy. Every deliberate difference from the host is listed in
 * docs/attr-checks.md.
 *
 * Our ABI header (Debian's linux-libc-dev 6.1) makes struct perf_event_attr
 * 128 bytes (PERF_ATTR_SIZE_VER7): that is the size the simulated kernel
 * accepts and writes back on E2BIG. The bits 6.1's header calls reserved
 * but 6.18 defines (aux_action in __reserved_3, PERF_SAMPLE_BRANCH_COUNTERS)
 * are handled as 6.18 does.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

/* ---- constants of the 6.18 ABI that 6.1's header lacks ---- */

/* include/uapi/linux/perf_event.h (6.8): PERF_SAMPLE_BRANCH_COUNTERS_SHIFT 19 */
#define SIM_SAMPLE_BRANCH_COUNTERS  (1ULL << 19)
#define SIM_SAMPLE_BRANCH_MAX       (1ULL << 20)
/* 6.13: union { __u32 aux_action; struct { aux_start_paused:1, aux_pause:1,
 * aux_resume:1, __reserved_3:29 } } took over 6.1's __u32 __reserved_3. */
#define SIM_AUX_START_PAUSED        (1U << 0)
#define SIM_AUX_PAUSE               (1U << 1)
#define SIM_AUX_RESUME              (1U << 2)
#define SIM_AUX_ACTION_MASK         (SIM_AUX_START_PAUSED | SIM_AUX_PAUSE | SIM_AUX_RESUME)

/* kernel/events/core.c */
#define SIM_PERF_FLAG_ALL (PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | \
			   PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC)
#define SIM_SAMPLE_BRANCH_PERM_PLM (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)

/* include/linux/perf_event.h: PERF_PMU_TYPE_SHIFT, PERF_HW_EVENT_MASK */
#define SIM_PMU_TYPE_SHIFT 32
#define SIM_HW_EVENT_MASK  0xffffffffULL

#define SIM_PAGE_SIZE 4096u

/* x86-64 perf_regs (arch/x86/include/uapi/asm/perf_regs.h): GPRs 0..23,
 * DS/ES/FS/GS (12..15) unsupported on 64-bit, 24..31 reserved, XMM from 32
 * (PERF_REG_EXTENDED_MASK). */
#define X86_PERF_REG_64_MAX   24
#define X86_PERF_REG_XMM0     32
#define X86_REG_NOSUPPORT     ((1ULL << 12) | (1ULL << 13) | (1ULL << 14) | (1ULL << 15))
#define X86_REG_RESERVED      (((1ULL << X86_PERF_REG_XMM0) - 1) & \
			       ~((1ULL << X86_PERF_REG_64_MAX) - 1))
#define X86_REG_EXTENDED_MASK (~((1ULL << X86_PERF_REG_XMM0) - 1))
/* arm64 (arch/arm64/kernel/perf_regs.c): x0..x30, sp, pc; VG (46) only
 * with SVE, which the simulated arm64 CPU does not have. */
#define ARM64_PERF_REG_MAX    33
#define ARM64_REG_RESERVED    (~((1ULL << ARM64_PERF_REG_MAX) - 1))

/* ---- perf_uaccess_direct ---- */

/* The NULL page faults; so does a range that wraps. */
static bool direct_range_faults(uint64_t uaddr, size_t len)
{
	if (uaddr < SIM_PAGE_SIZE)
		return true;
	if (len && uaddr + len - 1 < uaddr)
		return true;
	return false;
}

static int direct_copy_from(void *ctx, void *dst, uint64_t uaddr, size_t len)
{
	(void)ctx;
	if (direct_range_faults(uaddr, len))
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)uaddr, len);
	return 0;
}

static int direct_copy_to(void *ctx, uint64_t uaddr, const void *src, size_t len)
{
	(void)ctx;
	if (direct_range_faults(uaddr, len))
		return -EFAULT;
	memcpy((void *)(uintptr_t)uaddr, src, len);
	return 0;
}

const struct perf_uaccess perf_uaccess_direct = {
	.copy_from = direct_copy_from,
	.copy_to = direct_copy_to,
	.ctx = NULL,
};

/* ---- credentials ---- */

bool perf_perfmon_capable(const struct perf_task *current)
{
	return !current || current->cred.cap_perfmon;
}

static int core_paranoid(const struct perf_core *core)
{
	return core ? core->cfg.paranoid : -1;
}

/* perf_allow_kernel(): paranoid > 1 needs CAP_PERFMON. */
int perf_allow_kernel(const struct perf_core *core, const struct perf_task *current)
{
	if (core_paranoid(core) > 1 && !perf_perfmon_capable(current))
		return -EACCES;
	return 0;
}

/* perf_allow_cpu(): paranoid > 0 needs CAP_PERFMON. */
int perf_allow_cpu(const struct perf_core *core, const struct perf_task *current)
{
	if (core_paranoid(core) > 0 && !perf_perfmon_capable(current))
		return -EACCES;
	return 0;
}

static unsigned core_max_stack(const struct perf_core *core)
{
	if (core && core->cfg.max_stack)
		return core->cfg.max_stack;
	return PERF_SIM_MAX_STACK_DEFAULT;
}

static unsigned core_max_sample_rate(const struct perf_core *core)
{
	if (core && core->cfg.max_sample_rate)
		return core->cfg.max_sample_rate;
	return 100000;  /* DEFAULT_MAX_SAMPLE_RATE */
}

static unsigned core_nr_cpus(const struct perf_core *core)
{
	if (core && core->nr_cpus)
		return core->nr_cpus;
	if (core && core->cfg.nr_cpus)
		return core->cfg.nr_cpus;
	return 1;
}

static bool model_is_arm(const struct perf_core *core)
{
	return core && perf_core_model(core) && perf_core_model(core)->arch == PMU_ARCH_ARM_PMUV3;
}

/* ---- perf_copy_attr ---- */

/*
 * check_zeroed_user() as copy_struct_from_user() uses it: scans the user
 * range [from, from+size) word by aligned word and stops at the first
 * non-zero word, so a non-zero byte before an unreadable page gives
 * E2BIG, not EFAULT. Returns 1 if all zero, 0 if not, -EFAULT.
 */
static int check_zeroed_user(const struct perf_uaccess *ua, uint64_t from, size_t size)
{
	uint64_t addr = from & ~7ULL;
	uint64_t end = from + size;

	if (!size)
		return 1;
	while (addr < end) {
		unsigned char w[8];
		int ret = ua->copy_from(ua->ctx, w, addr, sizeof(w));

		if (ret)
			return -EFAULT;
		for (unsigned i = 0; i < 8; i++) {
			uint64_t a = addr + i;

			if (a >= from && a < end && w[i])
				return 0;
		}
		addr += 8;
	}
	return 1;
}

/* x86-64 / arm64 perf_reg_validate(). */
static int perf_reg_validate(const struct perf_core *core, uint64_t mask)
{
	if (model_is_arm(core)) {
		if (!mask || (mask & ARM64_REG_RESERVED))
			return -EINVAL;
		return 0;
	}
	if (!mask || (mask & (X86_REG_NOSUPPORT | X86_REG_RESERVED)))
		return -EINVAL;
	return 0;
}

static uint64_t perf_reg_extended_mask(const struct perf_core *core)
{
	/* PERF_REG_EXTENDED_MASK: x86's XMM registers; 0 on arm64. */
	return model_is_arm(core) ? 0 : X86_REG_EXTENDED_MASK;
}

/*
 * perf_copy_attr() (kernel/events/core.c). Reads the attr, then checks
 * reserved bits, sample_type, read_format, the branch stack (with its
 * privilege check), registers, the user stack size, and the flag
 * combinations, in the kernel's order. On a size error writes our size
 * back to uattr->size (ignoring a fault, as put_user's result is ignored).
 */
int perf_copy_attr_as(const struct perf_core *core, const struct perf_task *current,
		      const struct perf_uaccess *ua, uint64_t uattr,
		      struct perf_event_attr *attr)
{
	const uint32_t ksize = sizeof(*attr);
	uint32_t size;
	int ret;

	if (!ua)
		ua = &perf_uaccess_direct;
	memset(attr, 0, sizeof(*attr));

	/* get_user(size, &uattr->size) */
	ret = ua->copy_from(ua->ctx, &size, uattr + offsetof(struct perf_event_attr, size),
			    sizeof(size));
	if (ret)
		return -EFAULT;

	/* ABI compatibility quirk: */
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > SIM_PAGE_SIZE)
		goto err_size;

	/* copy_struct_from_user(): the tail past our struct must be zero
	 * (checked first), then the common part is copied. */
	if (size > ksize) {
		ret = check_zeroed_user(ua, uattr + ksize, size - ksize);
		if (ret < 0)
			return ret;
		if (ret == 0)
			goto err_size;
	}
	if (ua->copy_from(ua->ctx, attr, uattr, size < ksize ? size : ksize))
		return -EFAULT;

	attr->size = size;

	/* __reserved_3 of our header carries 6.18's aux_action bits. The
	 * newer kernel source read for this file also defines flag bits 38
	 * and 39 (defer_callchain, defer_output, 6.19); the 6.18 host rejects
	 * them as __reserved_1 (EINVAL, measured), and so do we. */
	if (attr->__reserved_1 || attr->__reserved_2 ||
	    (attr->__reserved_3 & ~SIM_AUX_ACTION_MASK))
		return -EINVAL;

	if (attr->sample_type & ~(PERF_SAMPLE_MAX - 1))
		return -EINVAL;

	if (attr->read_format & ~(PERF_FORMAT_MAX - 1))
		return -EINVAL;

	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t mask = attr->branch_sample_type;

		/* only using defined bits */
		if (mask & ~(SIM_SAMPLE_BRANCH_MAX - 1))
			return -EINVAL;

		/* at least one branch bit must be set */
		if (!(mask & ~PERF_SAMPLE_BRANCH_PLM_ALL))
			return -EINVAL;

		/* propagate priv level, when not set for branch */
		if (!(mask & PERF_SAMPLE_BRANCH_PLM_ALL)) {
			if (!attr->exclude_kernel)
				mask |= PERF_SAMPLE_BRANCH_KERNEL;
			if (!attr->exclude_user)
				mask |= PERF_SAMPLE_BRANCH_USER;
			if (!attr->exclude_hv)
				mask |= PERF_SAMPLE_BRANCH_HV;
			attr->branch_sample_type = mask;
		}
		/* privileged levels capture (kernel, hv): perf_allow_kernel() */
		if (mask & SIM_SAMPLE_BRANCH_PERM_PLM) {
			ret = perf_allow_kernel(core, current);
			if (ret)
				return ret;
		}
	}

	if (attr->sample_type & PERF_SAMPLE_REGS_USER) {
		ret = perf_reg_validate(core, attr->sample_regs_user);
		if (ret)
			return ret;
	}

	if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
		/* arch_perf_have_user_stack_dump(): true on x86 and arm64.
		 * __u16 sample size limit; 8-byte aligned. */
		if (attr->sample_stack_user >= 0xffff)
			return -EINVAL;
		else if (attr->sample_stack_user % sizeof(uint64_t))
			return -EINVAL;
	}

	if (!attr->sample_max_stack)
		attr->sample_max_stack = (uint16_t)core_max_stack(core);

	/* The kernel keeps going after a bad sample_regs_intr and returns
	 * its error at the end unless a later check fails first. */
	ret = 0;
	if (attr->sample_type & PERF_SAMPLE_REGS_INTR)
		ret = perf_reg_validate(core, attr->sample_regs_intr);

	/* PERF_SAMPLE_CGROUP is accepted: CONFIG_CGROUP_PERF=y, as on the host. */

	if ((attr->sample_type & PERF_SAMPLE_WEIGHT) &&
	    (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL;

	if (!attr->inherit && attr->inherit_thread)
		return -EINVAL;

	if (attr->remove_on_exec && attr->enable_on_exec)
		return -EINVAL;

	if (attr->sigtrap && !attr->remove_on_exec)
		return -EINVAL;

	return ret;

err_size:
	/* put_user(sizeof(*attr), &uattr->size); its result is ignored */
	if (ua->copy_to)
		(void)ua->copy_to(ua->ctx, uattr + offsetof(struct perf_event_attr, size),
				  &ksize, sizeof(ksize));
	return -E2BIG;
}

int perf_copy_attr(const struct perf_uaccess *ua, uint64_t uattr,
		   struct perf_event_attr *attr)
{
	return perf_copy_attr_as(NULL, NULL, ua, uattr, attr);
}

/* ---- sys_perf_event_open's checks before group_fd ---- */

int perf_open_check_flags(unsigned long flags)
{
	/* for future expandability... */
	if (flags & ~(unsigned long)SIM_PERF_FLAG_ALL)
		return -EINVAL;
	return 0;
}

/*
 * sys_perf_event_open() between perf_copy_attr() and the group_fd lookup.
 * security_perf_event_open() and security_locked_down(LOCKDOWN_PERF) allow
 * everything: the simulated system has no LSM and no lockdown.
 */
int perf_open_check_attr(const struct perf_core *core, const struct perf_task *current,
			 struct perf_event_attr *attr, pid_t pid, int cpu,
			 unsigned long flags)
{
	int err;

	err = perf_open_check_flags(flags);
	if (err)
		return err;

	if (!attr->sample_max_stack)  /* perf_copy_attr() default, if skipped */
		attr->sample_max_stack = (uint16_t)core_max_stack(core);

	if (!attr->exclude_kernel) {
		err = perf_allow_kernel(core, current);
		if (err)
			return err;
	}

	if (attr->namespaces) {
		if (!perf_perfmon_capable(current))
			return -EACCES;
	}

	if (attr->freq) {
		if (attr->sample_freq > core_max_sample_rate(core))
			return -EINVAL;
	} else {
		if (attr->sample_period & (1ULL << 63))
			return -EINVAL;
	}

	/* Only privileged users can get physical addresses */
	if (attr->sample_type & PERF_SAMPLE_PHYS_ADDR) {
		err = perf_allow_kernel(core, current);
		if (err)
			return err;
	}

	/* In cgroup mode pid is a cgroup fd and cpu must be given. */
	if ((flags & PERF_FLAG_PID_CGROUP) && (pid == -1 || cpu == -1))
		return -EINVAL;

	return 0;
}

/* ---- perf_event_alloc / perf_init_event ---- */

bool perf_attr_need_aux_event(const struct perf_event_attr *attr)
{
	/* perf_need_aux_event(): aux_output || has_aux_action() */
	return attr->aux_output || attr->aux_sample_size ||
	       (attr->__reserved_3 & (SIM_AUX_PAUSE | SIM_AUX_RESUME));
}

static bool has_extended_regs(const struct perf_core *core, const struct perf_event_attr *attr)
{
	uint64_t ext = perf_reg_extended_mask(core);

	return (attr->sample_regs_user & ext) || (attr->sample_regs_intr & ext);
}

static bool event_has_any_exclude_flag(const struct perf_event_attr *attr)
{
	return attr->exclude_idle || attr->exclude_user || attr->exclude_kernel ||
	       attr->exclude_hv || attr->exclude_guest || attr->exclude_host;
}

/*
 * perf_try_init_event(): the PMU's event_init, then the checks made on
 * its capabilities. Every simulated PMU is CPU-scoped (scope NONE).
 */
static int try_init_event(const struct perf_core *core, unsigned idx,
			  struct perf_event_attr *attr, const struct perf_event_init_hooks *hooks,
			  struct perf_event_init *out)
{
	const struct perf_pmu *pmu = perf_pmus[idx];
	int ret;

	/* "event->pmu = pmu" before event_init, as the kernel does */
	out->pmu = pmu;
	perf_pmu_probe(core, pmu, &out->pmu_type, &out->pmu_caps);
	ret = pmu->event_init(core, attr, hooks, out);
	if (ret)
		return ret;

	if (!(out->pmu_caps & PERF_PMU_CAP_SIM_EXTENDED_REGS) && has_extended_regs(core, attr))
		return -EOPNOTSUPP;

	if ((out->pmu_caps & PERF_PMU_CAP_SIM_NO_EXCLUDE) && event_has_any_exclude_flag(attr))
		return -EINVAL;

	return 0;
}

/*
 * perf_init_event(): HARDWARE and HW_CACHE are aliases for RAW unless the
 * config names a PMU in its high 32 bits (extended type); a PMU found by
 * type gets the event, and a -ENOENT after it rewrote attr->type (the
 * clocks) retries on the new type; an unknown type is offered to every
 * PMU in registration order.
 */
static int perf_init_event(const struct perf_core *core, struct perf_event_attr *attr,
			   const struct perf_event_init_hooks *hooks, struct perf_event_init *out)
{
	bool extended_type = false;
	uint32_t type = attr->type;
	unsigned caps;
	int idx, ret;

	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE) {
		type = (uint32_t)(attr->config >> SIM_PMU_TYPE_SHIFT);
		if (!type) {
			type = PERF_TYPE_RAW;
		} else {
			extended_type = true;
			attr->config &= SIM_HW_EVENT_MASK;
		}
	}

again:
	idx = perf_pmu_find_type(core, type);
	/* The x86 core PMU registers as PERF_TYPE_RAW; a model on another
	 * type (arm64: dynamic) is not found for RAW and gets the event
	 * through the list walk below, as armpmu does. */
	if (idx >= 0) {
		perf_pmu_probe(core, perf_pmus[idx], NULL, &caps);
		if (attr->type != type && type != PERF_TYPE_RAW &&
		    !(caps & PERF_PMU_CAP_SIM_EXTENDED_HW_TYPE))
			return -ENOENT;

		ret = try_init_event(core, (unsigned)idx, attr, hooks, out);
		if (ret == -ENOENT && attr->type != type && !extended_type) {
			type = attr->type;
			goto again;
		}
		return ret;
	}

	/* list_for_each_entry_rcu(pmu, &pmus, entry): each PMU takes what
	 * its event_init recognises (software, cpu_clock and task_clock only
	 * their own types; the model's core PMU HARDWARE/HW_CACHE/RAW, as
	 * x86_pmu_event_init and armpmu_map_event do); the first answer
	 * other than -ENOENT ends the walk. */
	for (unsigned i = 0; i < perf_nr_pmus; i++) {
		if (!perf_pmu_probe(core, perf_pmus[i], NULL, NULL))
			continue;
		ret = try_init_event(core, i, attr, hooks, out);
		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

/* perf_event_set_clock(): the five clocks; the non-NMI-safe ones only on a
 * PMU that never raises NMIs. */
static int perf_event_set_clock(int32_t clk_id, unsigned pmu_caps)
{
	bool nmi_safe = false;

	switch (clk_id) {
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
		nmi_safe = true;
		break;
	case CLOCK_REALTIME:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		break;
	default:
		return -EINVAL;
	}
	if (!nmi_safe && !(pmu_caps & PERF_PMU_CAP_SIM_NO_NMI))
		return -EINVAL;
	return 0;
}

/*
 * perf_event_alloc()'s checks in order, perf_init_event(), the checks
 * after it, and sys_perf_event_open()'s two checks right after
 * perf_event_alloc(). On success *out says which PMU took the event and
 * what it counts; on failure *out is undefined.
 */
int perf_event_init_attr_hooks(const struct perf_core *core,
			       const struct perf_event_attr *uattr, int cpu,
			       bool has_task, int cgroup_fd,
			       const struct perf_event_init_hooks *hooks,
			       struct perf_event_init *out)
{
	struct perf_event_attr *attr = &out->attr;
	int ret;

	assert(uattr && out);
	memset(out, 0, sizeof(*out));
	*attr = *uattr;
	out->attach_task = has_task;
	out->cpu = cpu;

	/* perf_event_alloc(): a CPU must exist unless it follows a task */
	if ((unsigned)cpu >= core_nr_cpus(core)) {
		if (!has_task || cpu != -1)
			return -EINVAL;
	}
	/* Requires a task: avoid signalling random tasks. */
	if (attr->sigtrap && !has_task)
		return -EINVAL;

	/* PERF_SAMPLE_READ on inherited events needs PERF_SAMPLE_TID
	 * (has_inherit_and_sample_read(), 6.12+). */
	if (attr->inherit && (attr->sample_type & PERF_SAMPLE_READ) &&
	    !(attr->sample_type & PERF_SAMPLE_TID))
		return -EINVAL;

	if (!has_branch_stack(attr))
		attr->branch_sample_type = 0;

	ret = perf_init_event(core, attr, hooks, out);
	if (ret)
		return ret;

	/* perf_event_alloc(): "Disallow uncore-task events. Similarly,
	 * disallow uncore-cgroup events" (cstate, uncore: perf_invalid_context) */
	if (out->pmu->task_ctx_nr == perf_invalid_context && (has_task || cgroup_fd != -1))
		return -EINVAL;

	/* No PMU has PERF_PMU_CAP_AUX_OUTPUT or PERF_PMU_CAP_AUX_PAUSE. */
	if (attr->aux_output &&
	    (!(out->pmu_caps & PERF_PMU_CAP_SIM_AUX_OUTPUT) ||
	     (attr->__reserved_3 & (SIM_AUX_PAUSE | SIM_AUX_RESUME))))
		return -EOPNOTSUPP;

	if ((attr->__reserved_3 & SIM_AUX_PAUSE) && (attr->__reserved_3 & SIM_AUX_RESUME))
		return -EINVAL;

	if (attr->__reserved_3 & SIM_AUX_START_PAUSED) {
		if (!(out->pmu_caps & PERF_PMU_CAP_SIM_AUX_PAUSE))
			return -EOPNOTSUPP;
	}

	/* perf_cgroup_connect(): no fd is a perf_event cgroup directory. */
	if (cgroup_fd != -1)
		return -EBADF;

	/* exclusive_event_init(): no simulated PMU is PERF_PMU_CAP_EXCLUSIVE. */

	/* get_callchain_buffers(): a per-event cap above the sysctl */
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (attr->sample_max_stack > core_max_stack(core))
			return -EOVERFLOW;
	}

	/* sys_perf_event_open(), right after perf_event_alloc(): */
	if (attr->sample_period) {      /* is_sampling_event() */
		if (out->pmu_caps & PERF_PMU_CAP_SIM_NO_INTERRUPT)
			return -EOPNOTSUPP;
	}
	if (attr->use_clockid) {
		ret = perf_event_set_clock(attr->clockid, out->pmu_caps);
		if (ret)
			return ret;
	}
	return 0;
}

int perf_event_init_attr_cgroup(const struct perf_core *core,
				const struct perf_event_attr *attr, int cpu,
				bool has_task, int cgroup_fd, struct perf_event_init *out)
{
	return perf_event_init_attr_hooks(core, attr, cpu, has_task, cgroup_fd, NULL, out);
}

int perf_event_init_attr(const struct perf_core *core, const struct perf_event_attr *attr,
			 int cpu, bool has_task, struct perf_event_init *out)
{
	return perf_event_init_attr_hooks(core, attr, cpu, has_task, -1, NULL, out);
}
