/*
 * pmu_bp.c - the breakpoint PMU "breakpoint" (PERF_TYPE_BREAKPOINT):
 * kernel/events/hw_breakpoint.c over the x86 debug registers of
 * arch/x86/kernel/hw_breakpoint.c. An event watches bp_len bytes at
 * bp_addr for execution (X), writes (W) or reads and writes (RW); its
 * open reserves one of the CPU's HBP_NUM debug registers in the kernel's
 * constraint table (-ENOSPC past them), add() installs it in the first
 * free one (DR0..DR3), and the machine reports each hit as one count of
 * that register's source (SIM_SRC_BP0 + n) at the accessing instruction,
 * as perf_bp_event() feeds perf_swevent_event(). Its events live in the
 * software context and overflow as software events do.
 */
#include <errno.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include "sim/core/attr_check.h"
#include "sim/core/pmu.h"

/* TASK_SIZE_MAX of x86-64 with 4-level paging: (1 << 47) - PAGE_SIZE */
#define X86_TASK_SIZE_MAX ((UINT64_C(1) << 47) - 4096)

static bool bp_probe(const struct perf_core *core, uint32_t *type, unsigned *caps)
{
	const struct pmu_model *m = core ? perf_core_model(core) : NULL;

	/* init_hw_breakpoint(): the x86 debug registers; the arm64
	 * breakpoint and watchpoint registers are not modelled */
	if (m && m->arch == PMU_ARCH_ARM_PMUV3)
		return false;
	*type = PERF_TYPE_BREAKPOINT;
	*caps = 0;      /* perf_breakpoint registers no capabilities */
	return true;
}

static bool is_bp_event(const struct perf_event *event)
{
	return perf_event_pmu(event) == &perf_bp_pmu;
}

/* task_bp_pinned(): the breakpoints of task that may be on cpu (bound to
 * it or to no CPU). One weight each (hw_breakpoint_weight). */
static int task_bp_pinned(const struct perf_task *task, int cpu)
{
	const struct perf_event *e;
	int n = 0;

	if (!task->ctx)
		return 0;
	list_for_each_entry(e, &task->ctx->event_list, event_entry)
		if (is_bp_event(e) && (e->cpu < 0 || e->cpu == cpu))
			n++;
	return n;
}

/* info->cpu_pinned: the CPU-wide breakpoints of cpu. */
static int cpu_bp_pinned(const struct perf_cpu *cpu)
{
	const struct perf_event *e;
	int n = 0;

	list_for_each_entry(e, &cpu->ctx.event_list, event_entry)
		if (is_bp_event(e))
			n++;
	return n;
}

/* max_task_bp_pinned(): the most breakpoints one task has on cpu. */
static int max_task_bp_pinned(const struct perf_core *core, int cpu)
{
	const struct perf_task *t;
	int max = 0;

	list_for_each_entry(t, &core->tasks, task_entry) {
		int n = task_bp_pinned(t, cpu);

		if (n > max)
			max = n;
	}
	return max;
}

/*
 * __reserve_bp_slot(): -EINVAL for an empty or X|RW type, -ENOSPC when
 * one more breakpoint would not fit on some CPU the event may run on
 * (max_bp_pinned_slots: the CPU's own breakpoints plus the target's, or
 * plus the busiest task's for a CPU-wide one). x86 shares its registers
 * between instruction and data breakpoints (HAVE_MIXED_BREAKPOINTS_REGS).
 */
static int reserve_bp_slot(const struct perf_core *core, const struct perf_event_attr *attr,
			   const struct perf_event_init_hooks *hooks)
{
	const struct perf_task *target = hooks ? hooks->target : NULL;
	int cpu = hooks ? hooks->cpu : -1;
	unsigned nr = perf_core_nr_cpus(core);

	if (attr->bp_type == HW_BREAKPOINT_EMPTY || attr->bp_type == HW_BREAKPOINT_INVALID)
		return -EINVAL;
	if (!core->cpus)
		return 0;       /* attr checks on a core without CPUs: nothing placed */
	for (unsigned c = 0; c < nr; c++) {
		int pinned;

		if (cpu >= 0 && (unsigned)cpu != c)
			continue;
		pinned = cpu_bp_pinned(&core->cpus[c]);
		pinned += target ? task_bp_pinned(target, (int)c) : max_task_bp_pinned(core, (int)c);
		if (pinned + 1 > PERF_HBP_NUM)
			return -ENOSPC;
	}
	return 0;
}

/*
 * hw_breakpoint_arch_parse() with arch_build_bp_info() (x86-64): the
 * type (W, RW, or X with bp_len sizeof(long); R alone has no x86
 * encoding), the length 1, 2, 4 or 8 with the address aligned to it
 * (other powers of two are AMD range breakpoints: -EOPNOTSUPP without
 * BPEXT, which the modelled CPUs lack). The cpu_entry_area and kprobe
 * blacklist checks concern kernel addresses, which need CAP_SYS_ADMIN.
 */
static int bp_arch_parse(const struct perf_event_attr *attr)
{
	uint64_t align;

	if (attr->bp_addr + attr->bp_len - 1 < attr->bp_addr)
		return -EINVAL;
	switch (attr->bp_type) {
	case HW_BREAKPOINT_W:
	case HW_BREAKPOINT_RW:
		break;
	case HW_BREAKPOINT_X:
		if (attr->bp_len == sizeof(long))
			return 0;       /* X86_BREAKPOINT_LEN_X: align 0 */
		return -EINVAL;
	default:
		return -EINVAL;
	}
	switch (attr->bp_len) {
	case HW_BREAKPOINT_LEN_1:
	case HW_BREAKPOINT_LEN_2:
	case HW_BREAKPOINT_LEN_4:
	case HW_BREAKPOINT_LEN_8:
		break;
	default:
		if (!attr->bp_len || (attr->bp_len & (attr->bp_len - 1)))
			return -EINVAL;         /* !is_power_of_2() */
		if (attr->bp_addr & (attr->bp_len - 1))
			return -EINVAL;
		return -EOPNOTSUPP;     /* !boot_cpu_has(X86_FEATURE_BPEXT) */
	}
	align = attr->bp_len - 1;
	if (attr->bp_addr & align)
		return -EINVAL;
	return 0;
}

/* hw_breakpoint_parse(): the arch's parse, then a breakpoint on a kernel
 * address (arch_check_bp_in_kernelspace) is -EINVAL with exclude_kernel
 * and needs CAP_SYS_ADMIN (-EPERM). */
static int bp_parse(const struct perf_event_attr *attr, const struct perf_task *current)
{
	uint64_t len = attr->bp_type == HW_BREAKPOINT_X ? 1 : attr->bp_len;
	int err = bp_arch_parse(attr);

	if (err)
		return err;
	if (attr->bp_addr >= X86_TASK_SIZE_MAX || attr->bp_addr + len - 1 >= X86_TASK_SIZE_MAX) {
		if (attr->exclude_kernel)
			return -EINVAL;
		if (!perf_perfmon_capable(current))
			return -EPERM;
	}
	return 0;
}

/* hw_breakpoint_event_init() -> register_perf_hw_breakpoint():
 * reserve_bp_slot(), then hw_breakpoint_parse(). */
static int bp_event_init(const struct perf_core *core, struct perf_event_attr *attr,
			 const struct perf_event_init_hooks *hooks, struct perf_event_init *out)
{
	int err;

	if (attr->type != PERF_TYPE_BREAKPOINT)
		return -ENOENT;
	/* no branch sampling for breakpoint events */
	if (has_branch_stack(attr))
		return -EOPNOTSUPP;
	err = reserve_bp_slot(core, attr, hooks);
	if (err)
		return err;
	err = bp_parse(attr, hooks ? hooks->current : NULL);
	if (err)
		return err;
	out->source = SIM_SRC_BP0;      /* the register is chosen at add() */
	out->sw_source = PERF_SW_SRC_NONE;
	return 0;
}

/* hw_breakpoint_add() -> arch_install_hw_breakpoint(): the first free
 * debug register of the CPU takes the breakpoint; its hits are that
 * register's source. The reservation made at open guarantees one. */
static void bp_add(struct perf_cpu *cpu, struct perf_event *event, int flags)
{
	(void)flags;
	for (unsigned i = 0; i < PERF_HBP_NUM; i++) {
		if (cpu->bp_regs[i])
			continue;
		cpu->bp_regs[i] = event;
		event->source = SIM_SRC_BP0 + i;
		if (event->slot >= 0)
			cpu->slots[event->slot].source = event->source;
		return;
	}
	assert(!"no free debug register: the slot reservation failed");
}

/* hw_breakpoint_del() -> arch_uninstall_hw_breakpoint() */
static void bp_del(struct perf_cpu *cpu, struct perf_event *event, int flags)
{
	(void)flags;
	for (unsigned i = 0; i < PERF_HBP_NUM; i++)
		if (cpu->bp_regs[i] == event)
			cpu->bp_regs[i] = NULL;
}

const struct perf_pmu perf_bp_pmu = {
	.name = "breakpoint",
	.task_ctx_nr = perf_sw_context,
	.probe = bp_probe,
	.event_init = bp_event_init,
	.add = bp_add,
	.del = bp_del,
	.handle_overflow = perf_swevent_handle_overflow,
};

/* hw_breakpoint_copy_attr() */
static void bp_copy_attr(struct perf_event_attr *to, const struct perf_event_attr *from)
{
	to->bp_addr = from->bp_addr;
	to->bp_type = from->bp_type;
	to->bp_len = from->bp_len;
	to->disabled = from->disabled;
}

/*
 * modify_user_hw_breakpoint_check(bp, attr, true): the new address, type
 * and length parsed as at open; every other field must be the event's
 * (-EINVAL). The type keeps its register on x86 (modify_bp_slot between
 * mixed types changes no count).
 */
static int bp_modify_one(struct perf_event *event, const struct perf_event_attr *attr,
			 const struct perf_task *current)
{
	struct perf_event_attr old = event->attr;
	int err = bp_parse(attr, current);

	if (err)
		return err;
	bp_copy_attr(&old, attr);
	if (memcmp(&old, attr, sizeof(old)))
		return -EINVAL;
	bp_copy_attr(&event->attr, attr);
	return 0;
}

/* perf_event_modify_breakpoint(): off, changed, and on again unless the
 * new attr says disabled. */
static int bp_modify_event(struct perf_event *event, const struct perf_event_attr *attr,
			   const struct perf_task *current)
{
	int err;

	perf_event_disable(event);
	err = bp_modify_one(event, attr, current);
	if (!event->attr.disabled)
		perf_event_enable(event);
	return err;
}

int perf_bp_modify_attr(struct perf_event *event, const struct perf_event_attr *attr,
			const struct perf_task *current)
{
	struct perf_event *child;
	int err;

	/* perf_event_modify_copy_attr(): sig_data first */
	event->attr.sig_data = attr->sig_data;
	err = bp_modify_event(event, attr, current);
	if (err)
		return err;
	list_for_each_entry(child, &event->child_list, child_entry) {
		child->attr.sig_data = attr->sig_data;
		err = bp_modify_event(child, attr, current);
		if (err)
			return err;
	}
	return 0;
}
