/*
 * test_attr_check.c - errno table for perf_event_attr checking.
 *
 * Each row is an attr (plus the syscall's pid/cpu/flags and the opener's
 * privilege) and the errno the kernel returns for it, worked out by hand
 * from kernel/events/core.c (Linux 6.18) and named by the function that
 * makes the check. A row runs through the chain the open path uses:
 * perf_open_check_flags -> perf_copy_attr_as -> perf_open_check_attr ->
 * perf_event_init_attr_cgroup (the group_fd and pid lookups in between
 * are the open path's and succeed for the pids used here: 0 and -1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <cmocka.h>

#include "testsuite/attr/attr_test_util.h"

#pragma GCC diagnostic ignored "-Woverride-init"

#define UBASE 0x100000ULL
#define BUFSZ 8192

enum { M_NONE, M_X86, M_ARM };

struct attr_row {
	int line;
	const char *kfunc;              /* where the kernel makes the check */
	const char *what;
	struct perf_event_attr attr;    /* attr.size is what the user passes */
	unsigned tail_at;               /* >= 128: a byte past our struct */
	unsigned char tail_val;
	size_t readable;                /* bytes of user memory from uattr (0: BUFSZ) */
	bool null_uattr;
	int model;
	int paranoid;
	bool unpriv;
	pid_t pid;
	int cpu;
	unsigned long flags;
	int err;                        /* expected: 0 or -errno */
	uint32_t size_back;             /* expected uattr->size afterwards (0: unchecked) */
};

#define ROW(...) { .line = __LINE__, .cpu = -1, .paranoid = -1, .model = M_X86, __VA_ARGS__ }
#define A(...) .attr = { .type = PERF_TYPE_SOFTWARE, .size = PERF_ATTR_SIZE_VER7, \
			 .config = PERF_COUNT_SW_DUMMY, __VA_ARGS__ }

#define BIT(n) (1ULL << (n))

static const struct attr_row rows[] = {
	/* ---- perf_copy_attr: size and user memory ---- */
	ROW(.kfunc = "perf_copy_attr", .what = "size 0 is VER0", A(.size = 0), .err = 0),
	ROW(.kfunc = "perf_copy_attr", .what = "size VER1", A(.size = PERF_ATTR_SIZE_VER1), .err = 0),
	ROW(.kfunc = "perf_copy_attr", .what = "size 63 < VER0", A(.size = 63),
	    .err = -E2BIG, .size_back = 128),
	ROW(.kfunc = "perf_copy_attr", .what = "size 4097 > PAGE_SIZE", A(.size = 4097),
	    .err = -E2BIG, .size_back = 128),
	ROW(.kfunc = "perf_copy_attr", .what = "size 4096, zero tail", A(.size = 4096), .err = 0),
	ROW(.kfunc = "copy_struct_from_user", .what = "size 136, byte 130 set",
	    A(.size = 136), .tail_at = 130, .tail_val = 1, .err = -E2BIG, .size_back = 128),
	ROW(.kfunc = "copy_struct_from_user", .what = "size 4096, last byte set",
	    A(.size = 4096), .tail_at = 4095, .tail_val = 0x80, .err = -E2BIG, .size_back = 128),
	ROW(.kfunc = "copy_struct_from_user", .what = "size 129 odd, zero tail", A(.size = 129), .err = 0),
	ROW(.kfunc = "perf_copy_attr", .what = "short size: fields past it read as 0",
	    A(.size = PERF_ATTR_SIZE_VER0, .sample_type = PERF_SAMPLE_REGS_USER, .sample_regs_user = 1),
	    .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "NULL attr", A(), .null_uattr = true, .err = -EFAULT),
	ROW(.kfunc = "perf_copy_attr", .what = "size unreadable (get_user)", A(), .readable = 6,
	    .err = -EFAULT),
	ROW(.kfunc = "copy_struct_from_user", .what = "attr body unreadable", A(), .readable = 100,
	    .err = -EFAULT),
	ROW(.kfunc = "check_zeroed_user", .what = "zero tail runs into a fault", A(.size = 300),
	    .readable = 200, .err = -EFAULT),
	ROW(.kfunc = "check_zeroed_user", .what = "non-zero tail before the fault wins",
	    A(.size = 300), .tail_at = 150, .tail_val = 7, .readable = 200, .err = -E2BIG,
	    .size_back = 128),
	ROW(.kfunc = "check_zeroed_user", .what = "non-zero tail after the fault", A(.size = 300),
	    .tail_at = 250, .tail_val = 7, .readable = 200, .err = -EFAULT),
	ROW(.kfunc = "perf_copy_attr", .what = "size 5000: E2BIG, our size written back",
	    A(.size = 5000), .err = -E2BIG, .size_back = 128),

	/* ---- perf_copy_attr: fields ---- */
	ROW(.kfunc = "perf_copy_attr", .what = "__reserved_1 (flag bit 38)",
	    A(.__reserved_1 = 1), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "__reserved_1 (flag bit 63)",
	    A(.__reserved_1 = 1u << 25), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "__reserved_2", A(.__reserved_2 = 1), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "__reserved_3 bit 3 (past aux_action)",
	    A(.__reserved_3 = 8), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "sample_type PERF_SAMPLE_MAX",
	    A(.sample_type = PERF_SAMPLE_MAX), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "sample_type bit 63", A(.sample_type = BIT(63)),
	    .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "read_format PERF_FORMAT_MAX",
	    A(.read_format = PERF_FORMAT_MAX), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "read_format all defined bits",
	    A(.read_format = PERF_FORMAT_MAX - 1), .err = 0),
	ROW(.kfunc = "perf_copy_attr", .what = "branch: no bits", A(.sample_type = PERF_SAMPLE_BRANCH_STACK),
	    .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "branch: only a priv level",
	    A(.sample_type = PERF_SAMPLE_BRANCH_STACK, .branch_sample_type = PERF_SAMPLE_BRANCH_USER),
	    .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "branch: bit 20 past BRANCH_MAX (6.18)",
	    A(.sample_type = PERF_SAMPLE_BRANCH_STACK, .branch_sample_type = BIT(20) | BIT(3)),
	    .err = -EINVAL),
	ROW(.kfunc = "perf_swevent_init", .what = "branch ANY on software",
	    A(.sample_type = PERF_SAMPLE_BRANCH_STACK, .branch_sample_type = PERF_SAMPLE_BRANCH_ANY),
	    .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_swevent_init", .what = "branch COUNTERS (bit 19, 6.8) is defined",
	    A(.sample_type = PERF_SAMPLE_BRANCH_STACK, .branch_sample_type = BIT(19)),
	    .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_copy_attr", .what = "branch w/o PLM + exclude_hv=0 needs kernel priv",
	    A(.exclude_kernel = 1, .sample_type = PERF_SAMPLE_BRANCH_STACK,
	      .branch_sample_type = PERF_SAMPLE_BRANCH_ANY),
	    .paranoid = 2, .unpriv = true, .err = -EACCES),
	ROW(.kfunc = "perf_swevent_init", .what = "branch w/o PLM, all excluded but user: no priv",
	    A(.exclude_kernel = 1, .exclude_hv = 1, .sample_type = PERF_SAMPLE_BRANCH_STACK,
	      .branch_sample_type = PERF_SAMPLE_BRANCH_ANY),
	    .paranoid = 2, .unpriv = true, .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_swevent_init", .what = "branch KERNEL under paranoid 1",
	    A(.exclude_kernel = 1, .sample_type = PERF_SAMPLE_BRANCH_STACK,
	      .branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_KERNEL),
	    .paranoid = 1, .unpriv = true, .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_reg_validate", .what = "REGS_USER mask 0",
	    A(.sample_type = PERF_SAMPLE_REGS_USER), .err = -EINVAL),
	ROW(.kfunc = "perf_reg_validate", .what = "REGS_USER DS (x86-64 REG_NOSUPPORT)",
	    A(.sample_type = PERF_SAMPLE_REGS_USER, .sample_regs_user = BIT(12)), .err = -EINVAL),
	ROW(.kfunc = "perf_reg_validate", .what = "REGS_USER bit 24 (reserved)",
	    A(.sample_type = PERF_SAMPLE_REGS_USER, .sample_regs_user = BIT(24)), .err = -EINVAL),
	ROW(.kfunc = "perf_reg_validate", .what = "REGS_USER R15",
	    A(.sample_type = PERF_SAMPLE_REGS_USER, .sample_regs_user = BIT(23) | 1), .err = 0),
	ROW(.kfunc = "perf_try_init_event", .what = "REGS_USER XMM0 on software",
	    A(.sample_type = PERF_SAMPLE_REGS_USER, .sample_regs_user = BIT(32)), .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_try_init_event", .what = "XMM bit in sample_regs_intr without REGS_INTR",
	    A(.sample_regs_intr = BIT(40)), .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_reg_validate", .what = "arm64: REGS_USER pc (32)", .model = M_ARM,
	    A(.sample_type = PERF_SAMPLE_REGS_USER, .sample_regs_user = BIT(32)), .err = 0),
	ROW(.kfunc = "perf_reg_validate", .what = "arm64: REGS_USER bit 33", .model = M_ARM,
	    A(.sample_type = PERF_SAMPLE_REGS_USER, .sample_regs_user = BIT(33)), .err = -EINVAL),
	ROW(.kfunc = "perf_reg_validate", .what = "arm64: REGS_USER DS-number 12 is x12", .model = M_ARM,
	    A(.sample_type = PERF_SAMPLE_REGS_USER, .sample_regs_user = BIT(12)), .err = 0),
	ROW(.kfunc = "perf_copy_attr", .what = "STACK_USER 0xffff (>= USHRT_MAX)",
	    A(.sample_type = PERF_SAMPLE_STACK_USER, .sample_stack_user = 0xffff), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "STACK_USER unaligned",
	    A(.sample_type = PERF_SAMPLE_STACK_USER, .sample_stack_user = 12), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "STACK_USER 0xfff8",
	    A(.sample_type = PERF_SAMPLE_STACK_USER, .sample_stack_user = 0xfff8), .err = 0),
	ROW(.kfunc = "perf_copy_attr", .what = "STACK_USER size ignored without the bit",
	    A(.sample_stack_user = 13), .err = 0),
	ROW(.kfunc = "perf_reg_validate", .what = "REGS_INTR mask 0",
	    A(.sample_type = PERF_SAMPLE_REGS_INTR), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "REGS_INTR AX on software",
	    A(.sample_type = PERF_SAMPLE_REGS_INTR, .sample_regs_intr = 1), .err = 0),
	ROW(.kfunc = "perf_copy_attr", .what = "WEIGHT with WEIGHT_STRUCT",
	    A(.sample_type = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "inherit_thread without inherit",
	    A(.inherit_thread = 1), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "remove_on_exec with enable_on_exec",
	    A(.remove_on_exec = 1, .enable_on_exec = 1), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "sigtrap without remove_on_exec",
	    A(.sigtrap = 1), .err = -EINVAL),
	ROW(.kfunc = "perf_copy_attr", .what = "copy_attr EINVAL before open_check EACCES",
	    A(.sample_type = PERF_SAMPLE_REGS_USER), .paranoid = 2, .unpriv = true, .err = -EINVAL),

	/* ---- sys_perf_event_open ---- */
	ROW(.kfunc = "sys_perf_event_open", .what = "unknown flag, checked before the attr",
	    A(.size = 63), .flags = 1UL << 4, .err = -EINVAL),
	ROW(.kfunc = "sys_perf_event_open", .what = "flag bit 63", A(), .flags = 1UL << 63,
	    .err = -EINVAL),
	ROW(.kfunc = "perf_allow_kernel", .what = "kernel counting, paranoid 2, unprivileged",
	    A(), .paranoid = 2, .unpriv = true, .err = -EACCES),
	ROW(.kfunc = "perf_allow_kernel", .what = "kernel counting, paranoid 1, unprivileged",
	    A(), .paranoid = 1, .unpriv = true, .err = 0),
	ROW(.kfunc = "perf_allow_kernel", .what = "kernel counting, paranoid 2, CAP_PERFMON",
	    A(), .paranoid = 2, .err = 0),
	ROW(.kfunc = "sys_perf_event_open", .what = "namespaces needs CAP_PERFMON whatever paranoid",
	    A(.exclude_kernel = 1, .namespaces = 1), .paranoid = -1, .unpriv = true, .err = -EACCES),
	ROW(.kfunc = "sys_perf_event_open", .what = "freq above perf_event_max_sample_rate",
	    A(.freq = 1, .sample_freq = 100001), .err = -EINVAL),
	ROW(.kfunc = "sys_perf_event_open", .what = "freq at perf_event_max_sample_rate",
	    A(.freq = 1, .sample_freq = 100000), .err = 0),
	ROW(.kfunc = "sys_perf_event_open", .what = "sample_period bit 63",
	    A(.sample_period = BIT(63)), .err = -EINVAL),
	ROW(.kfunc = "sys_perf_event_open", .what = "freq 2^63 is a rate, not a period",
	    A(.freq = 1, .sample_freq = BIT(63)), .err = -EINVAL),
	ROW(.kfunc = "sys_perf_event_open", .what = "PHYS_ADDR unprivileged, paranoid 2",
	    A(.exclude_kernel = 1, .sample_type = PERF_SAMPLE_PHYS_ADDR),
	    .paranoid = 2, .unpriv = true, .err = -EACCES),
	ROW(.kfunc = "sys_perf_event_open", .what = "PHYS_ADDR unprivileged, paranoid 1",
	    A(.exclude_kernel = 1, .sample_type = PERF_SAMPLE_PHYS_ADDR),
	    .paranoid = 1, .unpriv = true, .err = 0),
	ROW(.kfunc = "sys_perf_event_open", .what = "PID_CGROUP with pid -1", A(),
	    .pid = -1, .cpu = 0, .flags = PERF_FLAG_PID_CGROUP, .err = -EINVAL),
	ROW(.kfunc = "sys_perf_event_open", .what = "PID_CGROUP with cpu -1", A(),
	    .pid = 3, .cpu = -1, .flags = PERF_FLAG_PID_CGROUP, .err = -EINVAL),
	ROW(.kfunc = "perf_cgroup_connect", .what = "PID_CGROUP fd is no cgroup dir", A(),
	    .pid = 3, .cpu = 0, .flags = PERF_FLAG_PID_CGROUP, .err = -EBADF),

	/* ---- perf_event_alloc ---- */
	ROW(.kfunc = "perf_event_alloc", .what = "cpu == nr_cpu_ids", A(), .cpu = 4, .err = -EINVAL),
	ROW(.kfunc = "perf_event_alloc", .what = "cpu -2 with a task", A(), .cpu = -2, .err = -EINVAL),
	ROW(.kfunc = "perf_event_alloc", .what = "pid -1 cpu -1", A(), .pid = -1, .cpu = -1,
	    .err = -EINVAL),
	ROW(.kfunc = "perf_event_alloc", .what = "pid -1 cpu 3", A(), .pid = -1, .cpu = 3, .err = 0),
	ROW(.kfunc = "perf_event_alloc", .what = "sigtrap needs a task",
	    A(.sigtrap = 1, .remove_on_exec = 1), .pid = -1, .cpu = 0, .err = -EINVAL),
	ROW(.kfunc = "perf_event_alloc", .what = "sigtrap on a task",
	    A(.sigtrap = 1, .remove_on_exec = 1), .err = 0),
	ROW(.kfunc = "perf_event_alloc", .what = "inherit + SAMPLE_READ without TID",
	    A(.inherit = 1, .sample_type = PERF_SAMPLE_READ), .err = -EINVAL),
	ROW(.kfunc = "perf_event_alloc", .what = "inherit + SAMPLE_READ + TID (6.12)",
	    A(.inherit = 1, .sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_TID), .err = 0),
	ROW(.kfunc = "perf_event_alloc", .what = "aux_start_paused on a PMU without AUX_PAUSE",
	    A(.__reserved_3 = 1), .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_event_alloc", .what = "aux_pause with aux_resume",
	    A(.__reserved_3 = 6), .err = -EINVAL),
	ROW(.kfunc = "perf_event_alloc", .what = "aux_output on a PMU without AUX_OUTPUT",
	    A(.aux_output = 1), .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_event_alloc", .what = "aux_output beats aux_pause+resume",
	    A(.aux_output = 1, .__reserved_3 = 6), .err = -EOPNOTSUPP),
	ROW(.kfunc = "get_callchain_buffers", .what = "sample_max_stack above the sysctl",
	    A(.sample_type = PERF_SAMPLE_CALLCHAIN, .sample_max_stack = 128), .err = -EOVERFLOW),
	ROW(.kfunc = "get_callchain_buffers", .what = "sample_max_stack at the sysctl",
	    A(.sample_type = PERF_SAMPLE_CALLCHAIN, .sample_max_stack = 127), .err = 0),
	ROW(.kfunc = "get_callchain_buffers", .what = "max_stack ignored without CALLCHAIN",
	    A(.sample_max_stack = 500), .err = 0),

	/* ---- perf_init_event and the PMUs' event_init ---- */
	ROW(.kfunc = "perf_swevent_init", .what = "config PERF_COUNT_SW_MAX",
	    A(.config = PERF_COUNT_SW_MAX), .err = -ENOENT),
	ROW(.kfunc = "perf_swevent_init", .what = "config 2^32 (no extended type for SOFTWARE)",
	    A(.config = BIT(32)), .err = -ENOENT),
	ROW(.kfunc = "perf_swevent_init", .what = "cgroup-switches", A(.config = PERF_COUNT_SW_CGROUP_SWITCHES),
	    .err = 0),
	ROW(.kfunc = "cpu_clock_event_init", .what = "type 6 is the cpu_clock PMU",
	    A(.type = PERF_TYPE_CPU_CLOCK_SIM, .config = 0), .err = 0),
	ROW(.kfunc = "cpu_clock_event_init", .what = "cpu_clock PMU, config 1",
	    A(.type = PERF_TYPE_CPU_CLOCK_SIM, .config = 1), .err = -ENOENT),
	ROW(.kfunc = "task_clock_event_init", .what = "type 7 config 1 is task-clock",
	    A(.type = PERF_TYPE_TASK_CLOCK_SIM, .config = 1), .err = 0),
	ROW(.kfunc = "task_clock_event_init", .what = "type 7 config 0",
	    A(.type = PERF_TYPE_TASK_CLOCK_SIM, .config = 0), .err = -ENOENT),
	ROW(.kfunc = "perf_swevent_init", .what = "cpu-clock with a branch stack",
	    A(.config = PERF_COUNT_SW_CPU_CLOCK, .sample_type = PERF_SAMPLE_BRANCH_STACK,
	      .branch_sample_type = PERF_SAMPLE_BRANCH_ANY), .err = -EOPNOTSUPP),
	ROW(.kfunc = "cpu_clock_event_init", .what = "type 6 with a branch stack",
	    A(.type = PERF_TYPE_CPU_CLOCK_SIM, .config = 0, .sample_type = PERF_SAMPLE_BRANCH_STACK,
	      .branch_sample_type = PERF_SAMPLE_BRANCH_ANY), .err = -EOPNOTSUPP),
	ROW(.kfunc = "perf_trace_init", .what = "tracepoint: an id no event has",
	    A(.type = PERF_TYPE_TRACEPOINT, .config = 0x7fffffff), .err = -EINVAL),
	ROW(.kfunc = "__reserve_bp_slot", .what = "breakpoint of type HW_BREAKPOINT_EMPTY",
	    A(.type = PERF_TYPE_BREAKPOINT, .config = 0), .err = -EINVAL),
	ROW(.kfunc = "__reserve_bp_slot", .what = "breakpoint of type X|RW (HW_BREAKPOINT_INVALID)",
	    A(.type = PERF_TYPE_BREAKPOINT, .bp_type = 7, .bp_addr = 0x401000, .bp_len = 8),
	    .err = -EINVAL),
	ROW(.kfunc = "hw_breakpoint_event_init", .what = "breakpoint with a branch stack",
	    A(.type = PERF_TYPE_BREAKPOINT, .bp_type = 2, .bp_addr = 0x601000, .bp_len = 8,
	      .sample_type = PERF_SAMPLE_BRANCH_STACK, .branch_sample_type = PERF_SAMPLE_BRANCH_ANY),
	    .err = -EOPNOTSUPP),
	ROW(.kfunc = "arch_build_bp_info", .what = "X breakpoint of bp_len 8 (sizeof(long))",
	    A(.type = PERF_TYPE_BREAKPOINT, .bp_type = 4, .bp_addr = 0x401003, .bp_len = 8),
	    .err = 0),
	ROW(.kfunc = "arch_build_bp_info", .what = "X breakpoint of bp_len 1",
	    A(.type = PERF_TYPE_BREAKPOINT, .bp_type = 4, .bp_addr = 0x401000, .bp_len = 1),
	    .err = -EINVAL),
	ROW(.kfunc = "arch_build_bp_info", .what = "read-only breakpoint (no x86 encoding)",
	    A(.type = PERF_TYPE_BREAKPOINT, .bp_type = 1, .bp_addr = 0x601000, .bp_len = 4),
	    .err = -EINVAL),
	ROW(.kfunc = "arch_build_bp_info", .what = "a 16-byte range without BPEXT",
	    A(.type = PERF_TYPE_BREAKPOINT, .bp_type = 2, .bp_addr = 0x601000, .bp_len = 16),
	    .err = -EOPNOTSUPP),
	ROW(.kfunc = "hw_breakpoint_arch_parse", .what = "W of bp_len 4 at an address 2 mod 4",
	    A(.type = PERF_TYPE_BREAKPOINT, .bp_type = 2, .bp_addr = 0x601002, .bp_len = 4),
	    .err = -EINVAL),
	ROW(.kfunc = "hw_breakpoint_parse", .what = "kernel address with exclude_kernel",
	    A(.type = PERF_TYPE_BREAKPOINT, .bp_type = 2, .bp_addr = 0xffffffff81000000ull,
	      .bp_len = 8, .exclude_kernel = 1), .err = -EINVAL),
	ROW(.kfunc = "perf_init_event", .what = "unknown type 1000", A(.type = 1000), .err = -ENOENT),
	ROW(.kfunc = "perf_init_event", .what = "hardware without a model",
	    A(.type = PERF_TYPE_HARDWARE, .config = 0), .model = M_NONE, .err = -ENOENT),
	ROW(.kfunc = "perf_init_event", .what = "hardware to the model",
	    A(.type = PERF_TYPE_HARDWARE, .config = 1), .err = 0),
	ROW(.kfunc = "perf_init_event", .what = "hardware the model rejects",
	    A(.type = PERF_TYPE_HARDWARE, .config = 42), .err = -ENOENT),
	ROW(.kfunc = "perf_init_event", .what = "extended type naming software: no EXTENDED_HW_TYPE",
	    A(.type = PERF_TYPE_HARDWARE, .config = BIT(32) | 1), .err = -ENOENT),
	ROW(.kfunc = "perf_init_event", .what = "extended type RAW on x86 (its type)",
	    A(.type = PERF_TYPE_HARDWARE, .config = (4ULL << 32) | 1), .err = 0),
	ROW(.kfunc = "perf_init_event", .what = "extended type unknown: the list walk finds x86",
	    A(.type = PERF_TYPE_HW_CACHE, .config = 99ULL << 32), .err = 0),
	ROW(.kfunc = "perf_init_event", .what = "arm64: extended type = PMU type",
	    A(.type = PERF_TYPE_HARDWARE, .config = (10ULL << 32) | 2), .model = M_ARM, .err = 0),
	ROW(.kfunc = "perf_init_event", .what = "arm64: RAW reaches armpmu by the list walk",
	    A(.type = PERF_TYPE_RAW, .config = 0x11), .model = M_ARM, .err = 0),
	ROW(.kfunc = "perf_init_event", .what = "arm64: the model's own type",
	    A(.type = 10, .config = 0x11), .model = M_ARM, .err = 0),
	ROW(.kfunc = "perf_try_init_event", .what = "arm64 PMU has EXTENDED_REGS (mask 0 there)",
	    A(.type = 10, .config = 0x11, .sample_regs_intr = BIT(40)), .model = M_ARM, .err = 0),

	/* ---- perf_event_set_clock (sys_perf_event_open after alloc) ---- */
	ROW(.kfunc = "perf_event_set_clock", .what = "REALTIME on software (NO_NMI)",
	    A(.use_clockid = 1, .clockid = CLOCK_REALTIME), .err = 0),
	ROW(.kfunc = "perf_event_set_clock", .what = "TAI on software",
	    A(.use_clockid = 1, .clockid = CLOCK_TAI), .err = 0),
	ROW(.kfunc = "perf_event_set_clock", .what = "clock 3 (PROCESS_CPUTIME)",
	    A(.use_clockid = 1, .clockid = CLOCK_PROCESS_CPUTIME_ID), .err = -EINVAL),
	ROW(.kfunc = "perf_event_set_clock", .what = "clockid ignored without use_clockid",
	    A(.clockid = 3), .err = 0),
	ROW(.kfunc = "perf_event_set_clock", .what = "REALTIME on x86 hardware (NMI)",
	    A(.type = PERF_TYPE_HARDWARE, .config = 0, .use_clockid = 1, .clockid = CLOCK_REALTIME),
	    .err = -EINVAL),
	ROW(.kfunc = "perf_event_set_clock", .what = "MONOTONIC_RAW on x86 hardware",
	    A(.type = PERF_TYPE_HARDWARE, .config = 0, .use_clockid = 1, .clockid = CLOCK_MONOTONIC_RAW),
	    .err = 0),
};

static const struct pmu_model *row_model(int m)
{
	return m == M_X86 ? &fake_x86_model : m == M_ARM ? &fake_arm_model : NULL;
}

/* The attr-check chain the open path runs (see attr_check.h). */
static int run_chain(const struct perf_core *core, const struct perf_task *task,
		     const struct perf_uaccess *ua, uint64_t uattr, pid_t pid, int cpu,
		     unsigned long flags, struct perf_event_init *init)
{
	struct perf_event_attr attr;
	bool cgroup = flags & PERF_FLAG_PID_CGROUP;
	int err;

	err = perf_open_check_flags(flags);
	if (err)
		return err;
	err = perf_copy_attr_as(core, task, ua, uattr, &attr);
	if (err)
		return err;
	err = perf_open_check_attr(core, task, &attr, pid, cpu, flags);
	if (err)
		return err;
	return perf_event_init_attr_cgroup(core, &attr, cpu, pid != -1 && !cgroup,
					   cgroup ? pid : -1, init);
}

static void test_rows(void **state)
{
	(void)state;
	static unsigned char buf[BUFSZ];
	unsigned fails = 0;

	assert_true(sizeof(rows) / sizeof(rows[0]) >= 60);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct attr_row *r = &rows[i];
		struct perf_core *core = attr_test_core(row_model(r->model), 4, r->paranoid);
		struct perf_task task = { .core = core, .pid = 100, .tid = 100,
					  .cred = { .uid = r->unpriv ? 1000 : 0,
						    .cap_perfmon = !r->unpriv } };
		struct uwindow w = { .buf = buf, .uaddr_base = UBASE,
				     .len = r->readable ? r->readable : BUFSZ };
		struct perf_uaccess ua = { uwin_from, uwin_to, &w };
		struct perf_event_init init;
		uint32_t back;
		int err;

		memset(buf, 0, sizeof(buf));
		memcpy(buf, &r->attr, sizeof(r->attr));
		if (r->tail_at)
			buf[r->tail_at] = r->tail_val;
		err = run_chain(core, &task, &ua, r->null_uattr ? 0 : UBASE,
				r->pid, r->cpu, r->flags, &init);
		memcpy(&back, buf + offsetof(struct perf_event_attr, size), sizeof(back));
		if (err != r->err || (r->size_back && back != r->size_back)) {
			fprintf(stderr, "line %d (%s: %s): got %d size %u, want %d size %u\n",
				r->line, r->kfunc, r->what, err, back, r->err, r->size_back);
			fails++;
		}
		free(core);
	}
	assert_int_equal(fails, 0);
}

#ifdef HAVE_PERF_SYS_EVENT_OPEN
/* The same rows through perf_sys_event_open() on a real core (the default
 * model): the rows whose answer does not depend on the fake models. */
static void test_rows_open_path(void **state)
{
	(void)state;
	static unsigned char buf[BUFSZ];
	unsigned fails = 0, ran = 0;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct attr_row *r = &rows[i];
		struct perf_core_config cfg = { .model = pmu_model_default(), .nr_cpus = 4,
						.paranoid = r->paranoid };
		struct perf_cred cred = { .uid = r->unpriv ? 1000 : 0, .cap_perfmon = !r->unpriv };
		struct uwindow w = { .buf = buf, .uaddr_base = UBASE,
				     .len = r->readable ? r->readable : BUFSZ };
		struct perf_uaccess ua = { uwin_from, uwin_to, &w };
		struct perf_core *core;
		struct perf_task *task;
		uint32_t back;
		int h;

		if (r->model != M_X86 || r->attr.type == PERF_TYPE_HARDWARE ||
		    r->attr.type == PERF_TYPE_HW_CACHE || r->attr.type == PERF_TYPE_RAW)
			continue;
		assert_int_equal(perf_core_create(&cfg, NULL, &core), 0);
		task = perf_task_create(core, 100, 100, cred);
		assert_non_null(task);
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &r->attr, sizeof(r->attr));
		if (r->tail_at)
			buf[r->tail_at] = r->tail_val;
		h = perf_sys_event_open(core, task, &ua, r->null_uattr ? 0 : UBASE,
					r->pid, r->cpu, -1, r->flags);
		memcpy(&back, buf + offsetof(struct perf_event_attr, size), sizeof(back));
		if ((h < 0 ? h : 0) != r->err || (r->size_back && back != r->size_back)) {
			fprintf(stderr, "open path: line %d (%s: %s): got %d size %u, want %d\n",
				r->line, r->kfunc, r->what, h, back, r->err);
			fails++;
		}
		if (h >= 0)
			perf_file_put(core, h);
		perf_core_destroy(core);
		ran++;
	}
	assert_true(ran >= 60);
	assert_int_equal(fails, 0);
}
#endif

/* The dispatch with the real models: what perf_init_event() and the checks
 * around it add to each model's event_init. */
struct model_row {
	int line;
	const char *kfunc;
	const char *model;
	struct perf_event_attr attr;
	int err;
};

#define MA(...) { .size = PERF_ATTR_SIZE_VER7, .exclude_kernel = 1, __VA_ARGS__ }

static const struct model_row model_rows[] = {
	{ __LINE__, "x86_pmu_event_init", "skylake", MA(.type = PERF_TYPE_HARDWARE, .config = 0), 0 },
	{ __LINE__, "perf_init_event", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = (4ULL << 32) | 1), 0 },
	{ __LINE__, "perf_init_event", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = (1ULL << 32) | 1), -ENOENT },
	{ __LINE__, "perf_init_event", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = (6ULL << 32) | 0), -ENOENT },
	{ __LINE__, "perf_event_set_clock", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = 0, .use_clockid = 1, .clockid = CLOCK_BOOTTIME), -EINVAL },
	{ __LINE__, "perf_event_set_clock", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = 0, .use_clockid = 1, .clockid = CLOCK_MONOTONIC), 0 },
	{ __LINE__, "x86_pmu_hw_config", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = 0, .sample_regs_intr = 1ULL << 32), -EINVAL },
	{ __LINE__, "get_callchain_buffers", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = 0, .sample_type = PERF_SAMPLE_CALLCHAIN,
	     .sample_max_stack = 200), -EOVERFLOW },
	{ __LINE__, "intel_pmu_hw_config", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = 0, .aux_output = 1), -EINVAL },
	{ __LINE__, "perf_event_alloc", "skylake",
	  MA(.type = PERF_TYPE_HARDWARE, .config = 0, .aux_output = 1, .precise_ip = 1,
	     .sample_period = 1000), -EOPNOTSUPP },
	{ __LINE__, "x86_pmu_event_init", "zen", MA(.type = PERF_TYPE_HARDWARE, .config = 1), 0 },
	{ __LINE__, "perf_init_event", "pmuv3", MA(.type = PERF_TYPE_RAW, .config = 0x11), 0 },
	{ __LINE__, "perf_init_event", "pmuv3", MA(.type = 10, .config = 0x11), 0 },
	{ __LINE__, "perf_init_event", "pmuv3",
	  MA(.type = PERF_TYPE_HARDWARE, .config = (10ULL << 32) | 0), 0 },
	{ __LINE__, "perf_init_event", "pmuv3",
	  MA(.type = PERF_TYPE_HARDWARE, .config = (1ULL << 32) | 0), -ENOENT },
	{ __LINE__, "perf_event_set_clock", "pmuv3",
	  MA(.type = PERF_TYPE_RAW, .config = 0x11, .use_clockid = 1, .clockid = CLOCK_TAI), -EINVAL },
	{ __LINE__, "perf_reg_validate", "pmuv3",
	  MA(.type = PERF_TYPE_RAW, .config = 0x11, .sample_type = PERF_SAMPLE_REGS_USER,
	     .sample_regs_user = 1ULL << 32), 0 },
	{ __LINE__, "perf_reg_validate", "pmuv3",
	  MA(.type = PERF_TYPE_RAW, .config = 0x11, .sample_type = PERF_SAMPLE_REGS_USER,
	     .sample_regs_user = 1ULL << 33), -EINVAL },
	{ __LINE__, "perf_reg_validate", "pmuv3",
	  MA(.type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
	     .sample_type = PERF_SAMPLE_REGS_INTR, .sample_regs_intr = 1ULL << 40), -EINVAL },
};

static void test_model_rows(void **state)
{
	(void)state;
	unsigned fails = 0;

	for (size_t i = 0; i < sizeof(model_rows) / sizeof(model_rows[0]); i++) {
		const struct model_row *r = &model_rows[i];
		const struct pmu_model *m = pmu_model_find(r->model);
		struct perf_core *core;
		struct perf_event_attr a = r->attr, copy;
		struct perf_event_init init;
		int err;

		assert_non_null(m);
		core = attr_test_core(m, 2, -1);
		err = perf_copy_attr_as(core, NULL, &perf_uaccess_direct, (uint64_t)(uintptr_t)&a, &copy);
		if (!err)
			err = perf_open_check_attr(core, NULL, &copy, 0, -1, 0);
		if (!err)
			err = perf_event_init_attr(core, &copy, -1, true, &init);
		if (err != r->err) {
			fprintf(stderr, "line %d (%s, %s): got %d, want %d\n", r->line, r->kfunc,
				r->model, err, r->err);
			fails++;
		}
		free(core);
	}
	assert_int_equal(fails, 0);
}

/* perf_uaccess_direct: host pointers, the NULL page faults. */
static void test_uaccess_direct(void **state)
{
	(void)state;
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = 63 }, out;

	assert_int_equal(perf_copy_attr(&perf_uaccess_direct, 0, &out), -EFAULT);
	assert_int_equal(perf_copy_attr(&perf_uaccess_direct, 16, &out), -EFAULT);
	assert_int_equal(perf_copy_attr(NULL, (uint64_t)(uintptr_t)&a, &out), -E2BIG);
	assert_int_equal(a.size, sizeof(struct perf_event_attr));
	a.size = 0;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	assert_int_equal(perf_copy_attr(&perf_uaccess_direct, (uint64_t)(uintptr_t)&a, &out), 0);
	assert_int_equal(out.size, PERF_ATTR_SIZE_VER0);
	assert_int_equal(out.config, PERF_COUNT_SW_PAGE_FAULTS);
	/* perf_copy_attr: sample_max_stack defaults to the sysctl */
	assert_int_equal(out.sample_max_stack, PERF_SIM_MAX_STACK_DEFAULT);
}

/* perf_copy_attr: branch priv levels propagate from exclude_* */
static void test_branch_plm_propagation(void **state)
{
	(void)state;
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = 128,
				     .sample_type = PERF_SAMPLE_BRANCH_STACK,
				     .branch_sample_type = PERF_SAMPLE_BRANCH_ANY,
				     .exclude_kernel = 1 }, out;

	assert_int_equal(perf_copy_attr(NULL, (uint64_t)(uintptr_t)&a, &out), 0);
	assert_int_equal(out.branch_sample_type, PERF_SAMPLE_BRANCH_ANY |
			 PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_HV);
	a.branch_sample_type |= PERF_SAMPLE_BRANCH_KERNEL;  /* given: kept as is */
	assert_int_equal(perf_copy_attr(NULL, (uint64_t)(uintptr_t)&a, &out), 0);
	assert_int_equal(out.branch_sample_type, PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_KERNEL);
}

/* What perf_init_event() chose: the PMU and the counting source. */
struct src_row {
	int line;
	const char *kfunc;
	uint32_t type;
	uint64_t config;
	int ctx_nr;                     /* enum perf_event_task_context */
	uint32_t pmu_type;
	enum perf_sw_source sw;
	enum sim_source src;
};

static const struct src_row src_rows[] = {
	{ __LINE__, "cpu_clock_event_init", 1, PERF_COUNT_SW_CPU_CLOCK, perf_sw_context, 6, PERF_SW_SRC_CLOCK, SIM_SRC_NONE },
	{ __LINE__, "task_clock_event_init", 1, PERF_COUNT_SW_TASK_CLOCK, perf_sw_context, 7, PERF_SW_SRC_CLOCK, SIM_SRC_NONE },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_PAGE_FAULTS, perf_sw_context, 1, PERF_SW_SRC_MACHINE, SIM_SRC_PAGE_FAULTS },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_PAGE_FAULTS_MIN, perf_sw_context, 1, PERF_SW_SRC_MACHINE, SIM_SRC_PAGE_FAULTS_MIN },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_PAGE_FAULTS_MAJ, perf_sw_context, 1, PERF_SW_SRC_MACHINE, SIM_SRC_PAGE_FAULTS_MAJ },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_ALIGNMENT_FAULTS, perf_sw_context, 1, PERF_SW_SRC_MACHINE, SIM_SRC_ALIGNMENT_FAULTS },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_EMULATION_FAULTS, perf_sw_context, 1, PERF_SW_SRC_MACHINE, SIM_SRC_EMULATION_FAULTS },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_CONTEXT_SWITCHES, perf_sw_context, 1, PERF_SW_SRC_SWITCHES, SIM_SRC_NONE },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_CPU_MIGRATIONS, perf_sw_context, 1, PERF_SW_SRC_MIGRATIONS, SIM_SRC_NONE },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_DUMMY, perf_sw_context, 1, PERF_SW_SRC_NONE, SIM_SRC_NONE },
	{ __LINE__, "perf_swevent_init", 1, PERF_COUNT_SW_BPF_OUTPUT, perf_sw_context, 1, PERF_SW_SRC_NONE, SIM_SRC_NONE },
	{ __LINE__, "perf_init_event", PERF_TYPE_HARDWARE, 1, perf_hw_context, 4, PERF_SW_SRC_NONE, SIM_SRC_INSTRUCTIONS },
	{ __LINE__, "perf_init_event", PERF_TYPE_HW_CACHE, 0, perf_hw_context, 4, PERF_SW_SRC_NONE, SIM_SRC_L1D_ACCESS },
};

static void test_init_sources(void **state)
{
	(void)state;
	struct perf_core *core = attr_test_core(&fake_x86_model, 2, -1);

	for (size_t i = 0; i < sizeof(src_rows) / sizeof(src_rows[0]); i++) {
		const struct src_row *r = &src_rows[i];
		struct perf_event_attr a = { .type = r->type, .size = 128, .config = r->config };
		struct perf_event_init init;
		int err = perf_event_init_attr(core, &a, -1, true, &init);

		if (err || init.pmu->task_ctx_nr != r->ctx_nr || init.pmu_type != r->pmu_type ||
		    init.sw_source != r->sw || init.source != r->src)
			fail_msg("line %d (%s): err %d pmu %d type %u sw %d src %d", r->line,
				 r->kfunc, err, err ? -1 : init.pmu->task_ctx_nr, init.pmu_type, init.sw_source, init.source);
	}
	free(core);
}

/* perf_init_event strips the extended type; perf_swevent_init_hrtimer turns
 * a clock's frequency into a period; perf_event_alloc clears
 * branch_sample_type without BRANCH_STACK. */
static void test_init_attr_rewrites(void **state)
{
	(void)state;
	struct perf_core *core = attr_test_core(&fake_x86_model, 2, -1);
	struct perf_event_init init;
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = 128,
				     .config = (77ULL << 32) | 3, .branch_sample_type = 5 };

	fake_event_init_calls = 0;
	assert_int_equal(perf_event_init_attr(core, &a, 0, false, &init), 0);
	assert_int_equal(fake_event_init_calls, 1);
	assert_int_equal(fake_last_attr.config, 3);
	assert_int_equal(init.attr.config, 3);
	assert_int_equal(init.attr.branch_sample_type, 0);

	struct perf_event_attr c = { .type = PERF_TYPE_SOFTWARE, .size = 128,
				     .config = PERF_COUNT_SW_CPU_CLOCK, .freq = 1, .sample_freq = 4000 };
	assert_int_equal(perf_event_init_attr(core, &c, 0, false, &init), 0);
	assert_int_equal(init.attr.type, PERF_TYPE_CPU_CLOCK_SIM);
	assert_int_equal(init.attr.freq, 0);
	assert_int_equal(init.attr.sample_period, 250000);
	free(core);
}

/* validate_group() runs inside the hardware PMU's event_init: its EINVAL
 * comes before get_callchain_buffers' EOVERFLOW; software events never
 * call it. */
static unsigned vg_calls;

static int vg_fail(void *ctx, const struct perf_event_attr *attr,
		   const struct perf_event_init *init)
{
	(void)ctx;
	(void)attr;
	assert_int_equal(init->pmu->task_ctx_nr, perf_hw_context);
	vg_calls++;
	return -EINVAL;
}

static void test_validate_group_order(void **state)
{
	(void)state;
	struct perf_core *core = attr_test_core(&fake_x86_model, 2, -1);
	const struct perf_event_init_hooks hooks = { .validate_group = vg_fail };
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = 128, .config = 1,
				     .sample_type = PERF_SAMPLE_CALLCHAIN, .sample_max_stack = 200 };
	struct perf_event_init init;

	assert_int_equal(perf_event_init_attr_hooks(core, &a, -1, true, -1, NULL, &init), -EOVERFLOW);
	assert_int_equal(perf_event_init_attr_hooks(core, &a, -1, true, -1, &hooks, &init), -EINVAL);
	assert_int_equal(vg_calls, 1);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	assert_int_equal(perf_event_init_attr_hooks(core, &a, -1, true, -1, &hooks, &init), -EOVERFLOW);
	assert_int_equal(vg_calls, 1);
	free(core);
}

/* Credentials helpers, as find_get_context() uses perf_allow_cpu(). */
static void test_allow(void **state)
{
	(void)state;
	struct perf_core *core = attr_test_core(NULL, 1, 1);
	struct perf_task user = { .cred = { .uid = 1000, .cap_perfmon = false } };
	struct perf_task root = { .cred = { .uid = 0, .cap_perfmon = true } };

	assert_int_equal(perf_allow_cpu(core, &user), -EACCES);
	assert_int_equal(perf_allow_kernel(core, &user), 0);
	assert_int_equal(perf_allow_cpu(core, &root), 0);
	core->cfg.paranoid = 0;
	assert_int_equal(perf_allow_cpu(core, &user), 0);
	core->cfg.paranoid = 2;
	assert_int_equal(perf_allow_kernel(core, &user), -EACCES);
	assert_int_equal(perf_allow_kernel(core, NULL), 0);
	free(core);

	struct perf_event_attr a = { .aux_sample_size = 8 };
	assert_true(perf_attr_need_aux_event(&a));
	a.aux_sample_size = 0;
	assert_false(perf_attr_need_aux_event(&a));
	a.__reserved_3 = 2;  /* aux_pause */
	assert_true(perf_attr_need_aux_event(&a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
#ifdef HAVE_PERF_SYS_EVENT_OPEN
		cmocka_unit_test(test_rows_open_path),
#endif
		cmocka_unit_test(test_model_rows),
		cmocka_unit_test(test_uaccess_direct),
		cmocka_unit_test(test_branch_plm_propagation),
		cmocka_unit_test(test_init_sources),
		cmocka_unit_test(test_init_attr_rewrites),
		cmocka_unit_test(test_validate_group_order),
		cmocka_unit_test(test_allow),
	};
	return cmocka_run_group_tests_name("attr_check", tests, NULL, NULL);
}
