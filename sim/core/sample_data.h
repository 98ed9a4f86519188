/*
 * sample_data.h - the values of one sample (struct perf_sample_data).
 *
 * At an overflow the core asks the machine to fill what only it knows (the
 * instruction pointer, registers, the guest stack, branch records, the data
 * address); the core fills what it owns (ids, time, period, cpu, read
 * values) and lays the record out as perf_output_sample does. Pointers
 * stay owned by the machine and need only live until the record is written.
 */
#ifndef PMUSIM_SAMPLE_DATA_H
#define PMUSIM_SAMPLE_DATA_H

#include <stdint.h>
#include <linux/perf_event.h>

/* x86 perf_regs order has 24 entries (PERF_REG_X86_64_MAX); arm64 has 33. */
#define PERF_SAMPLE_MAX_REGS 64

struct perf_sample_regs {
	uint64_t abi;                   /* PERF_SAMPLE_REGS_ABI_* (0 = none) */
	uint64_t regs[PERF_SAMPLE_MAX_REGS]; /* indexed by the arch's perf_regs numbering */
};

struct perf_sample_data {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t id, stream_id;
	uint32_t cpu;
	uint64_t period;
	/* PERF_SAMPLE_CALLCHAIN: entries including PERF_CONTEXT_* markers */
	const uint64_t *callchain;
	uint64_t callchain_nr;
	/* PERF_SAMPLE_RAW */
	const void *raw;
	uint32_t raw_size;
	/* PERF_SAMPLE_BRANCH_STACK */
	const struct perf_branch_entry *branches;
	uint64_t branches_nr;
	uint64_t branches_hw_idx;       /* with PERF_SAMPLE_BRANCH_HW_INDEX */
	/* PERF_SAMPLE_REGS_USER / REGS_INTR */
	struct perf_sample_regs regs_user;
	struct perf_sample_regs regs_intr;
	/* PERF_SAMPLE_STACK_USER: up to attr.sample_stack_user bytes */
	const void *stack_user;
	uint64_t stack_user_size;       /* bytes available at stack_user */
	union perf_sample_weight weight;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	uint8_t cpumode;                /* PERF_RECORD_MISC_USER / _KERNEL */
	uint8_t exact_ip;               /* PERF_RECORD_MISC_EXACT_IP */
};

#endif
