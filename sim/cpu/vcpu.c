/*
 * vcpu.c - the Unicorn vCPU: engine creation for a guest architecture
 * (cpu_arch.h: its own hooks, SYSCALL and CPUID on x86-64), the hooks that
 * are always present (invalid memory, interrupts), RDTSC (the
 * interposed helper of safe_stop.h, or code-hook sites where that is off),
 * the optional block hook (the one dispatch point for per-block events) and
 * the run loop's single step: vcpu_run(), with the block prefix run of an
 * exact stop (pmu_machine.h).
 */
#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/jit_count.h"
#include "sim/cpu/safe_stop.h"
#include "sim/cpu/tlb_fast.h"
#include "sim/cpu/vcpu.h"
#include "sim/cpu/pmu_machine.h"

#define DEFAULT_FREQ_HZ  UINT64_C(3000000000)

/*
 * The "until" address of a run. Unicorn turns the instruction at it into a
 * halt (uc_addr_is_exit() in the translator), so no guest instruction may
 * have it: 0, where a NULL call or an entry point of 0 lands, made those
 * runs stop at once with nothing done, again and again. This one is
 * non-canonical (also under 5-level paging), so the guest can reach it only
 * by a jump that the CPU refuses with #GP, which vcpu_run() reports as that
 * fetch's fault.
 */
#define VCPU_NO_EXIT UINT64_C(0x4b1d00000000c0de)

/* ---- block-size cache: instructions per translated block -------------- */

struct bc_entry { uint64_t addr; uint32_t size; uint32_t ninsns; };

struct vcpu_bcache {
	struct bc_entry *e;
	size_t mask;               /* capacity - 1 (power of two) */
	size_t used;
	const struct cpu_arch *arch;
	struct arch_decoder *dec;
};

static int bcache_new(struct vcpu *c)
{
	struct vcpu_bcache *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->mask = 4095;
	b->e = calloc(b->mask + 1, sizeof(*b->e));
	if (!b->e)
		goto err_free;
	b->arch = c->arch;
	b->dec = c->arch->decoder_new();
	if (!b->dec)
		goto err_entries;
	c->bcache = b;
	return 0;
err_entries:
	free(b->e);
err_free:
	free(b);
	return -ENOMEM;
}

static void bcache_free(struct vcpu_bcache *b)
{
	if (!b)
		return;
	b->arch->decoder_free(b->dec);
	free(b->e);
	free(b);
}

static size_t bc_hash(uint64_t a)
{
	return (size_t)((a * UINT64_C(0x9E3779B97F4A7C15)) >> 20);
}

static int bcache_grow(struct vcpu_bcache *b)
{
	size_t ncap = (b->mask + 1) * 2;
	struct bc_entry *ne = calloc(ncap, sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	for (size_t i = 0; i <= b->mask; i++) {
		if (!b->e[i].addr)
			continue;
		size_t j = bc_hash(b->e[i].addr) & (ncap - 1);

		while (ne[j].addr)
			j = (j + 1) & (ncap - 1);
		ne[j] = b->e[i];
	}
	free(b->e);
	b->e = ne;
	b->mask = ncap - 1;
	return 0;
}

/* Counts the instructions of the block [addr, addr+size) by decoding it once
 * (the architecture's decoder); the result is cached by (addr, size). */
static unsigned bcache_count(struct vcpu_bcache *b, uint64_t addr, uint32_t size)
{
	size_t i = bc_hash(addr) & b->mask;
	const uint8_t *code = (const uint8_t *)(uintptr_t)addr;
	size_t left = size;
	uint64_t pc = addr;
	unsigned n = 0;
	const struct pmu_model *m = pmu_model_default();
	struct arch_insn ai;

	while (b->e[i].addr) {
		if (b->e[i].addr == addr && b->e[i].size == size)
			return b->e[i].ninsns;
		i = (i + 1) & b->mask;
	}
	while (left && b->arch->decode(b->dec, code, left, pc, m->pipeline, m->caches->l1d.latency,
				       &ai)) {
		assert(ai.len > 0 && ai.len <= left);
		code += ai.len;
		left -= ai.len;
		pc += ai.len;
		n++;
	}
	if (left)   /* undecodable tail: count it as one */
		n++;
	if ((b->used + 1) * 2 > b->mask + 1) {
		if (bcache_grow(b))
			return n;
		i = bc_hash(addr) & b->mask;
		while (b->e[i].addr)
			i = (i + 1) & b->mask;
	}
	b->e[i] = (struct bc_entry){ addr, size, n };
	b->used++;
	return n;
}

/* ---- hooks ------------------------------------------------------------- */

void vcpu_syscall_entry(struct vcpu *c)
{
	c->clk.coarse += VCLOCK_SYSCALL_CYCLES;
	if (c->pmu)
		pmu_syscall_enter(c->pmu);
	c->ops->syscall(c, c->opaque);
	if (c->pmu)
		pmu_syscall_exit(c->pmu);
}

/* An access to unmapped or forbidden memory: remember it; the engine stops
 * with the matching uc_err. */
static bool hook_memerr(uc_engine *uc, uc_mem_type type, uint64_t addr,
			int size, int64_t value, void *user)
{
	struct vcpu *c = user;

	(void)uc; (void)size; (void)value;
	c->fault.addr = addr;
	c->fault.write = type == UC_MEM_WRITE_UNMAPPED || type == UC_MEM_WRITE_PROT;
	c->fault.exec = type == UC_MEM_FETCH_UNMAPPED || type == UC_MEM_FETCH_PROT;
	c->fault.prot = type == UC_MEM_READ_PROT || type == UC_MEM_WRITE_PROT ||
			type == UC_MEM_FETCH_PROT;
	if (c->arch->fault_state)
		c->arch->fault_state(c);
	safe_stop_fault_pending();
	return false;
}

/* CPU exceptions: the architecture says which end the run and how (x86-64:
 * #DE, #UD and the rest; AArch64's SVC is its syscall instruction). */
static void hook_intr(uc_engine *uc, uint32_t intno, void *user)
{
	struct vcpu *c = user;
	int x = c->arch->interrupt(c, intno);

	if (x < 0)
		return;
	c->exit = (enum vcpu_exit)x;
	c->err = UC_ERR_EXCEPTION;
	uc_emu_stop(uc);
}

/*
 * The block hook: count, then the dispatch point. It runs before the block
 * does, ahead of the block's exit test, so a stop asked for here (a kick, or
 * a stop the previous block's accounting deferred) leaves with nothing of
 * this block run or counted; the block is counted when the run resumes.
 */
static void hook_block(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	struct vcpu *c = user;
	unsigned n;

	if (size == JIT_SLOW_MARK) {
		/* inline counting's slow path: after the block's exit-request
		 * test, so the block runs unless the slow path has it leave
		 * first (jit_count_abort_block: a kick seen there, an exact
		 * stop); a stop asked for in it takes effect at the next block
		 * start (vcpu_stop uses uc_emu_stop then) */
		c->in_jit_call = true;
		pmu_on_jit_block(c->pmu, (const struct jit_slot *)(uintptr_t)addr);
		c->in_jit_call = false;
		return;
	}
	if (size == JIT_FETCH_MARK) {     /* a cold block's start while logging */
		c->in_jit_call = true;     /* it may take the slow path */
		pmu_on_jit_fetch(c->pmu, (struct jit_slot *)(uintptr_t)addr);
		c->in_jit_call = false;
		return;
	}
	if (c->exact_prefix)     /* vcpu_run() runs a block up to an overflow */
		return;
	if (c->pmu && c->pmu->ex.state)   /* an overflow at the previous block's last instruction */
		pmu_exact_block(c->pmu, addr);
	if (atomic_load_explicit(&c->kick, memory_order_relaxed)) {
		uc_emu_stop(uc);
		return;
	}
	c->in_block_hook = true;
	if (c->pmu) {
		pmu_on_block(c->pmu, addr, size);
	} else {
		n = bcache_count(c->bcache, addr, size);
		c->clk.insns += n;
		vcpu_on_block(c, addr, size, n);
	}
	c->in_block_hook = false;
}

void vcpu_on_block(struct vcpu *c, uint64_t addr, uint32_t size, unsigned ninsns)
{
	(void)c; (void)addr; (void)size; (void)ninsns;
}

static void hook_mem(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
		     int64_t value, void *user)
{
	(void)uc; (void)value;
	vcpu_on_mem(user, type == UC_MEM_WRITE, addr, (unsigned)size);
}

void vcpu_on_mem(struct vcpu *c, bool write, uint64_t addr, unsigned size)
{
	if (write)
		c->mem_writes++;
	else
		c->mem_reads++;
	if (c->pmu)   /* the cache model and memory events */
		pmu_on_mem(c->pmu, write, addr, size);
}

/*
 * RDTSC (0f 31) or RDTSCP (0f 01 f9) at a hooked site. The instruction runs
 * (it reads the host TSC); the hook on the following instruction then puts
 * the virtual TSC into RDX:RAX (and TSC_AUX into ECX for RDTSCP). Writing
 * registers other than RIP does not end the translated block.
 */
static void hook_rdtsc_pre(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	struct vcpu *c = user;
	const uint8_t *p = (const uint8_t *)(uintptr_t)addr;

	(void)uc; (void)size;
	c->tsc_pending = 0;
	if (p[0] == 0x0f && p[1] == 0x31) {
		c->tsc_pending = addr + 2;
		c->tsc_pending_p = false;
	} else if (p[0] == 0x0f && p[1] == 0x01 && p[2] == 0xf9) {
		c->tsc_pending = addr + 3;
		c->tsc_pending_p = true;
	}
	/* else: the code changed since the scan, not a TSC read any more */
}

/* The virtual TSC a RDTSC(P) reads: the clock moves by its own cost first. */
static void rdtsc_answer(void *opaque, bool rdtscp, uint64_t *rax, uint64_t *rdx, uint64_t *rcx)
{
	struct vcpu *c = opaque;
	uint64_t tsc;

	c->clk.coarse += VCLOCK_RDTSC_CYCLES;
	if (c->pmu)
		pmu_cycles(c->pmu, true);
	tsc = vcpu_tsc(c);
	*rax = (uint32_t)tsc;
	*rdx = tsc >> 32;
	/* IA32_TSC_AUX: setup_getcpu() stores vdso_encode_cpunode(cpu, node),
	 * node 0 here: the simulated CPU the thread is on */
	if (rdtscp)
		*rcx = c->pmu ? perf_cpu_num(c->pmu->cpu) : 0;
}

static void hook_rdtsc_post(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	struct vcpu *c = user;
	uint64_t rax, rdx, rcx;

	(void)size;
	if (c->tsc_pending != addr)
		return;            /* reached by a jump, not after the read */
	c->tsc_pending = 0;
	rdtsc_answer(c, c->tsc_pending_p, &rax, &rdx, &rcx);
	uc_reg_write(uc, UC_X86_REG_RAX, &rax);
	uc_reg_write(uc, UC_X86_REG_RDX, &rdx);
	if (c->tsc_pending_p)
		uc_reg_write(uc, UC_X86_REG_RCX, &rcx);
}

/* ---- life cycle ---------------------------------------------------------- */

struct vcpu *vcpu_new(const struct pmu_model *m, const struct vcpu_ops *ops, void *opaque)
{
	return vcpu_new_arch(&cpu_arch_x86_64, m, ops, opaque);
}

struct vcpu *vcpu_new_arch(const struct cpu_arch *arch, const struct pmu_model *m,
			   const struct vcpu_ops *ops, void *opaque)
{
	struct vcpu *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->arch = arch;
	c->model = m;
	c->ops = ops;
	c->opaque = opaque;
	c->clk.cpi_milli = 1000;
	c->clk.freq_hz = m && m->freq_hz ? m->freq_hz : DEFAULT_FREQ_HZ;
	c->clk.tsc_hz = m && m->tsc_hz ? m->tsc_hz : c->clk.freq_hz;
	if (uc_open(arch->uc_arch, arch->uc_mode, &c->uc) != UC_ERR_OK)
		goto err_free;
	if (bcache_new(c))
		goto err_close;
	/* Hooks first: they reach only code translated after they exist. */
	if (arch->engine_init(c))
		goto err_bcache;
	if (uc_hook_add(c->uc, &c->h_memerr, UC_HOOK_MEM_INVALID, hook_memerr, c, 1, 0)
	    != UC_ERR_OK)
		goto err_bcache;
	if (uc_hook_add(c->uc, &c->h_intr, UC_HOOK_INTR, hook_intr, c, 1, 0) != UC_ERR_OK)
		goto err_bcache;
	return c;
err_bcache:
	bcache_free(c->bcache);
err_close:
	uc_close(c->uc);
err_free:
	free(c);
	return NULL;
}

void vcpu_free(struct vcpu *c)
{
	if (!c)
		return;
	uc_close(c->uc);
	bcache_free(c->bcache);
	free(c->tsc_sites);
	free(c->xr);
	free(c);
}

uint64_t vcpu_reg(struct vcpu *c, int reg)
{
	uint64_t v = 0;

	uc_reg_read(c->uc, reg, &v);
	return v;
}

void vcpu_set_reg(struct vcpu *c, int reg, uint64_t v)
{
	uc_reg_write(c->uc, reg, &v);
}

uint64_t vcpu_pc(struct vcpu *c)
{
	return vcpu_reg(c, c->arch->reg_pc);
}

void vcpu_set_pc(struct vcpu *c, uint64_t pc)
{
	vcpu_set_reg(c, c->arch->reg_pc, pc);
}

uint64_t vcpu_sp(struct vcpu *c)
{
	return vcpu_reg(c, c->arch->reg_sp);
}

void vcpu_set_sp(struct vcpu *c, uint64_t sp)
{
	vcpu_set_reg(c, c->arch->reg_sp, sp);
}

void vcpu_syscall_set_rip(struct vcpu *c, uint64_t target)
{
	c->arch->syscall_set_pc(c, target);
}

uint64_t vcpu_syscall_rip(struct vcpu *c)
{
	return c->arch->syscall_pc(c);
}

void vcpu_syscall_restart(struct vcpu *c, bool in_hook)
{
	if (in_hook)
		vcpu_syscall_set_rip(c, vcpu_pc(c));
	else
		vcpu_set_pc(c, vcpu_pc(c) - c->arch->syscall_insn_len);
}

int vcpu_set_tls(struct vcpu *c, uint64_t base)
{
	return c->arch->set_tls(c, base);
}

uint64_t vcpu_tls(struct vcpu *c)
{
	return c->arch->get_tls(c);
}

int vcpu_set_fs(struct vcpu *c, uint64_t base)
{
	return vcpu_set_tls(c, base);
}

int vcpu_set_gs(struct vcpu *c, uint64_t base)
{
	if (c->arch != &cpu_arch_x86_64)
		return -EINVAL;
	return uc_reg_write(c->uc, UC_X86_REG_GS_BASE, &base) == UC_ERR_OK ? 0 : -EINVAL;
}

static void drop_all_translations(struct vcpu *c);

/* A breakpoint's instruction is about to execute (a fault: before it);
 * a hit whose signal or sample needs the state ends the run before it,
 * at once (hook_bp_step). */
static void hook_bp_exec(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	struct vcpu *c = user;

	(void)size;
	if (c->pmu && pmu_on_breakpoint(c->pmu, true, false, addr, 1)) {
		if (safe_stop_on())
			safe_stop_fault_pending();
		uc_emu_stop(uc);        /* before the instruction: the fault's state */
	}
}

/* Every instruction while a data breakpoint's trap needs the state after
 * its instruction: a pending trap is reported here, before this one, and
 * the run ends here, in the middle of the block (the #DB trap returns to
 * user mode before the next instruction: its signal is taken there). With
 * safe stops a stop waits for the next block start, so the exit takes
 * the fault path, which leaves the block at once with RIP at addr (the
 * code hook synced it); the rest of the block runs as a block of its own
 * (pmu_on_breakpoint_step). */
static void hook_bp_step(uc_engine *uc, uint64_t addr, uint32_t size, void *user)
{
	struct vcpu *c = user;

	(void)size;
	if (c->pmu && pmu_on_breakpoint_step(c->pmu, addr)) {
		if (safe_stop_on())
			safe_stop_fault_pending();
		uc_emu_stop(uc);
	}
}

/* An access near a data breakpoint (the hook's range starts early so
 * that accesses overlapping the watched bytes from below are seen). */
static void hook_bp_mem(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
			int64_t value, void *user)
{
	struct vcpu *c = user;

	(void)value;
	if (c->pmu && pmu_on_breakpoint(c->pmu, false, type == UC_MEM_WRITE, addr, (unsigned)size))
		uc_emu_stop(uc);
}

/* The widest access one memory hook call reports (an AVX-512 store). */
#define VCPU_MAX_ACCESS 64

/*
 * Installs the hooks of bp_want (outside every callback): the old ones
 * go, the new ones only see code translated after them, so every
 * translation is dropped. Returns 0 or -ENOMEM (then none is installed).
 */
static int apply_breakpoints(struct vcpu *c)
{
	bool step = false;

	c->bp_pending = false;
	for (unsigned i = 0; i < PERF_HBP_NUM; i++)
		if (c->bp_mask >> i & 1)
			uc_hook_del(c->uc, c->h_bp[i]);
	c->bp_mask = 0;
	for (unsigned i = 0; i < PERF_HBP_NUM; i++) {
		const struct perf_breakpoint *b = &c->bp_want[i];
		uint64_t lo = b->addr >= VCPU_MAX_ACCESS - 1 ? b->addr - (VCPU_MAX_ACCESS - 1) : 0;
		uc_err e;

		if (!(c->bp_want_mask >> i & 1))
			continue;
		if (b->type == HW_BREAKPOINT_X)
			e = uc_hook_add(c->uc, &c->h_bp[i], UC_HOOK_CODE, hook_bp_exec, c,
					b->addr, b->addr);
		else
			e = uc_hook_add(c->uc, &c->h_bp[i],
					(b->type & HW_BREAKPOINT_R ? UC_HOOK_MEM_READ : 0) |
					UC_HOOK_MEM_WRITE, hook_bp_mem, c, lo, b->addr + b->len - 1);
		if (e != UC_ERR_OK)
			break;
		c->bp[i] = *b;
		c->bp_mask |= 1u << i;
		step |= b->type != HW_BREAKPOINT_X && b->needs_state;
	}
	if (c->bp_step_on && !step) {
		uc_hook_del(c->uc, c->h_bp_step);
		c->bp_step_on = false;
	} else if (!c->bp_step_on && step) {
		c->bp_step_on = uc_hook_add(c->uc, &c->h_bp_step, UC_HOOK_CODE, hook_bp_step, c,
					    1, 0) == UC_ERR_OK;
	}
	drop_all_translations(c);
	return c->bp_mask == c->bp_want_mask ? 0 : -ENOMEM;
}

int vcpu_want_blocks(struct vcpu *c)
{
	if (c->blocks_on)
		return 0;
	if (uc_hook_add(c->uc, &c->h_block, UC_HOOK_BLOCK, hook_block, c, 1, 0) != UC_ERR_OK)
		return -ENOMEM;
	c->blocks_on = true;
	c->want_blocks_pending = false;
	/* already translated blocks carry no hook call: retranslate them
	 * (range by range: a full tb_flush costs seconds in 2.0.1) */
	drop_all_translations(c);
	return 0;
}

/* Drops every translation this engine made of the code it knows. */
static void drop_all_translations(struct vcpu *c)
{
	for (unsigned i = 0; i < c->nr_xr; i++)
		vcpu_drop_translations(c, c->xr[i].start, c->xr[i].end);
}

/* Data accesses are seen from now on: by inline counting's access log when
 * mem_log_want (no Unicorn hook: the accesses stay on the engine's fast
 * path), else by the memory hook. */
int vcpu_want_mem(struct vcpu *c)
{
	if (c->mem_on)
		return 0;
	if (c->mem_log_want && c->pmu && c->pmu->jit &&
	    !jit_count_log(c->pmu->jit, true, c->mem_log_fetches)) {
		c->mem_log = true;
	} else if (uc_hook_add(c->uc, &c->h_mem, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, hook_mem,
			       c, 1, 0) != UC_ERR_OK) {
		return -ENOMEM;
	}
	c->mem_on = true;
	drop_all_translations(c);
	return 0;
}

void vcpu_unwant_mem(struct vcpu *c)
{
	if (!c->mem_on)
		return;
	if (c->mem_log)
		jit_count_log(c->pmu->jit, false, false);
	else
		uc_hook_del(c->uc, c->h_mem);
	c->mem_on = c->mem_log = false;
	drop_all_translations(c);
}

void vcpu_stop(struct vcpu *c)
{
	c->stop = true;
	if (c->in_jit_call) {         /* the exit-request test of the next block */
		uc_emu_stop(c->uc);
	} else if (c->in_block_hook) {   /* after this block: at the next block start */
		atomic_store(&c->kick, 1);
		if (c->pmu && c->pmu->jit)   /* which sees the kick in the slow path */
			jit_count_force_next(c->pmu->jit);
	}
	else
		uc_emu_stop(c->uc);
}

/*
 * Any thread, or a signal handler. The kick flag is written before the
 * running state is read, and vcpu_run() writes that state before it reads
 * the flag, so either the run sees the kick before it starts or the kick
 * sees the run. A uc_emu_stop() that lands between that check and
 * uc_emu_start() is lost (Unicorn ignores a stop while it is not running);
 * the signal watchdog kicks again.
 */
void vcpu_kick(struct vcpu *c)
{
	atomic_store(&c->kick, 1);
	if (atomic_load(&c->running_unhooked))
		safe_stop_kick(c->uc);
}

/* The thread's TLB fill observer (tlb_fast.h) while c runs. */
static bool tlb_observer(void *arg, void *qemu_cpu, uint64_t addr, int access, uintptr_t retaddr)
{
	struct vcpu *c = arg;

	c->qemu_cpu = qemu_cpu;
	return c->ops->tlb_fill(c, c->opaque, addr, access, retaddr);
}

uint64_t vcpu_access_ip(struct vcpu *c, uint64_t addr, uintptr_t retaddr)
{
	uint64_t rip, page = addr & ~0xfffull;

	if (tlb_fast_restore_pc(c->qemu_cpu, retaddr))
		return vcpu_pc(c);
	/* tb_find(): translating the block at RIP; a block that starts on
	 * the page before runs on into this one */
	rip = vcpu_pc(c);
	return (rip & ~0xfffull) == page ? rip : page;
}

void vcpu_flush_tlb(struct vcpu *c)
{
	tlb_fast_flush(c->qemu_cpu);
}

/*
 * An exact stop (pmu_machine.h): the block hook stopped the engine before a
 * block whose instruction k overflows a counter that needs the guest's
 * state after k. Runs the block from its start to the instruction after k
 * (the "until" exit: Unicorn translates it as a halt, and drops that
 * translation again when the run returns), without the block hook's
 * accounting, then reports the overflow in that state. The block's
 * translation is dropped first, or its cached code would run past the exit.
 * A run that ends early without a fault (an asynchronous stop) resumes
 * there. Returns the engine's result.
 */
static uc_err run_exact_prefix(struct vcpu *c)
{
	uint64_t begin, until, rip;
	uc_err e = UC_ERR_OK;
	void *qcpu;

	if (!pmu_exact_prefix(c->pmu, &begin, &until))
		return UC_ERR_OK;
	tlb_fast_unfill_begin();
	uc_ctl_remove_cache(c->uc, begin, begin + 1);
	qcpu = tlb_fast_unfill_end(begin, begin + 1);
	if (qcpu)
		c->qemu_cpu = qcpu;
	c->exact_prefix = true;
	c->exact_stops++;
	for (rip = begin; rip != until && e == UC_ERR_OK && c->exit == VCPU_EXIT_STOP; ) {
		e = uc_emu_start(c->uc, rip, until, 0, 0);
		rip = vcpu_pc(c);
	}
	c->exact_prefix = false;
	pmu_exact_done(c->pmu);
	return e;
}

/*
 * Runs from RIP until a hook stops the engine or the guest faults. Returns
 * the reason; for VCPU_EXIT_FAULT c->fault says where. RIP is left at the
 * faulting instruction for faults, after the last executed one otherwise.
 */
enum vcpu_exit vcpu_run(struct vcpu *c)
{
	uint64_t rip;
	uc_err e;

	if (c->want_blocks_pending)
		vcpu_want_blocks(c);
	if (c->mem_toggle_pending) {
		/* outside every callback: a hook deleted inside one keeps firing */
		c->mem_toggle_pending = false;
		if (c->mem_on)
			vcpu_unwant_mem(c);
		if (c->mem_want)
			vcpu_want_mem(c);
	}
	if (c->bp_pending)
		(void)apply_breakpoints(c);   /* -ENOMEM: those hits go uncounted */
	c->stop = false;
	c->exit = VCPU_EXIT_STOP;
	c->err = UC_ERR_OK;
	memset(&c->fault, 0, sizeof(c->fault));
	rip = vcpu_pc(c);
	if (c->jit_retranslate) {
		c->jit_retranslate = false;
		drop_all_translations(c);
	}
	/* with the block hook on, kicks are seen there (hook_block), except
	 * in blocks that count inline: every block start tests for them */
	atomic_store(&c->running_unhooked,
		     (!c->blocks_on || (c->pmu && c->pmu->jit)) &&
		     safe_stop_on_engine(c->arch->safe_stop_aarch64));
	if (atomic_load(&c->kick)) {
		e = UC_ERR_OK;
	} else {
		safe_stop_set_tsc(rdtsc_answer, c);
		safe_stop_set_engine(c->arch->safe_stop_aarch64);
		tlb_fast_observe(c->ops->tlb_fill ? tlb_observer : NULL, c);
		if (c->pmu && c->pmu->jit)
			jit_count_begin(c->pmu->jit);
		e = uc_emu_start(c->uc, rip, VCPU_NO_EXIT, 0, 0);
		if (c->pmu && c->pmu->jit)
			jit_count_end(c->pmu->jit);
		if (c->pmu && e == UC_ERR_OK && c->exit == VCPU_EXIT_STOP)
			e = run_exact_prefix(c);
		tlb_fast_observe(NULL, NULL);
		safe_stop_set_tsc(NULL, NULL);
		if (c->pmu)   /* an overflow at the run's last instruction */
			pmu_exact_done(c->pmu);
	}
	atomic_store(&c->running_unhooked, 0);
	atomic_store(&c->kick, 0);
	if (c->exit != VCPU_EXIT_STOP)    /* set by hook_intr */
		return c->exit;
	switch (e) {
	case UC_ERR_OK:
		if (vcpu_pc(c) != VCPU_NO_EXIT)
			return VCPU_EXIT_STOP;
		/* the guest jumped to the run's exit: as a fetch from any
		 * other non-canonical address fails */
		c->fault.addr = VCPU_NO_EXIT;
		c->fault.exec = true;
		e = UC_ERR_FETCH_UNMAPPED;
		c->exit = VCPU_EXIT_FAULT;
		break;
	case UC_ERR_READ_UNMAPPED:
	case UC_ERR_WRITE_UNMAPPED:
		/* no page, or a non-canonical address: no cache saw it */
		if (c->pmu && c->pmu->jit)
			jit_count_log_unrecord(c->pmu->jit, c->fault.addr);
		c->exit = VCPU_EXIT_FAULT;
		break;
	case UC_ERR_FETCH_UNMAPPED:
	case UC_ERR_READ_PROT:
	case UC_ERR_WRITE_PROT:
	case UC_ERR_FETCH_PROT:
		c->exit = VCPU_EXIT_FAULT;
		break;
	case UC_ERR_INSN_INVALID:
		c->exit = VCPU_EXIT_ILLEGAL;
		break;
	default:
		c->exit = VCPU_EXIT_OTHER;
		break;
	}
	c->err = e;
	return c->exit;
}

/* ---- RDTSC sites --------------------------------------------------------- */

static int tsc_add(struct vcpu *c, uint64_t addr, unsigned len)
{
	struct vcpu_tsc_site *site;

	for (unsigned i = 0; i < c->nr_tsc; i++)
		if (c->tsc_sites[i].addr == addr)
			return 0;
	if (c->nr_tsc == c->cap_tsc) {
		unsigned nc = c->cap_tsc ? c->cap_tsc * 2 : 64;
		struct vcpu_tsc_site *s = realloc(c->tsc_sites, nc * sizeof(*s));

		if (!s)
			return -ENOMEM;
		c->tsc_sites = s;
		c->cap_tsc = nc;
	}
	site = &c->tsc_sites[c->nr_tsc];
	site->addr = addr;
	if (uc_hook_add(c->uc, &site->pre, UC_HOOK_CODE, hook_rdtsc_pre, c, addr, addr) != UC_ERR_OK)
		return -ENOMEM;
	if (uc_hook_add(c->uc, &site->post, UC_HOOK_CODE, hook_rdtsc_post, c,
			addr + len, addr + len) != UC_ERR_OK) {
		uc_hook_del(c->uc, site->pre);
		return -ENOMEM;
	}
	c->nr_tsc++;
	return 0;
}

/*
 * Records an executable range (its translations are dropped when hooks
 * change). Only where safe_stop is off: every byte pair 0f 31 (and 0f 01 f9)
 * in it gets a one-address code hook; a site that is not an instruction
 * start is never reached, so a false match costs nothing at run time.
 */
int vcpu_scan_rdtsc(struct vcpu *c, uint64_t start, uint64_t end)
{
	const uint8_t *p = (const uint8_t *)(uintptr_t)start;
	size_t n = end - start;
	int err;

	for (unsigned i = 0; i < c->nr_xr; i++)
		if (c->xr[i].start == start && c->xr[i].end == end)
			goto scan;
	if (c->nr_xr == c->cap_xr) {
		unsigned nc = c->cap_xr ? c->cap_xr * 2 : 32;
		void *nx = realloc(c->xr, nc * sizeof(*c->xr));

		if (!nx)
			return -ENOMEM;
		c->xr = nx;
		c->cap_xr = nc;
	}
	c->xr[c->nr_xr].start = start;
	c->xr[c->nr_xr].end = end;
	c->nr_xr++;
scan:
	if (safe_stop_on() || !c->arch->tsc_sites)
		return 0;   /* RDTSC(P) reach the interposed helpers (safe_stop.h) */

	for (size_t i = 0; i + 1 < n; i++) {
		if (p[i] != 0x0f)
			continue;
		if (p[i + 1] == 0x31)
			err = tsc_add(c, start + i, 2);
		else if (i + 2 < n && p[i + 1] == 0x01 && p[i + 2] == 0xf9)
			err = tsc_add(c, start + i, 3);
		else
			continue;
		if (err)
			return err;
	}
	return 0;
}

void vcpu_forget_code(struct vcpu *c, uint64_t start, uint64_t end)
{
	for (unsigned i = 0; i < c->nr_xr; ) {
		if (c->xr[i].start >= start && c->xr[i].end <= end) {
			c->xr[i] = c->xr[--c->nr_xr];
		} else {
			/* partly covered: clip to what remains (one side) */
			if (c->xr[i].start < end && c->xr[i].end > start) {
				if (c->xr[i].start >= start)
					c->xr[i].start = end;
				else if (c->xr[i].end <= end)
					c->xr[i].end = start;
			}
			i++;
		}
	}
	for (unsigned i = 0; i < c->nr_tsc; ) {
		if (c->tsc_sites[i].addr >= start && c->tsc_sites[i].addr < end) {
			uc_hook_del(c->uc, c->tsc_sites[i].pre);
			uc_hook_del(c->uc, c->tsc_sites[i].post);
			c->tsc_sites[i] = c->tsc_sites[c->nr_tsc - 1];
			c->nr_tsc--;
		} else {
			i++;
		}
	}
	vcpu_drop_translations(c, start, end);
}

/*
 * The engine's translations that overlap [start, end) dropped. Unicorn
 * 2.0.1's UC_CTL_TB_REMOVE_CACHE translates only the start address (as a
 * code fetch: the page must be executable in the engine) and assumes the
 * range is contiguous in its RAM space; regions are not. Page by page.
 */
static void remove_translations(struct vcpu *c, uint64_t start, uint64_t end)
{
	void *qcpu;

	tlb_fast_unfill_begin();
	for (uint64_t a = start, next; a < end; a = next) {
		next = (a | 0xfff) + 1;        /* the next page's start */
		uc_ctl_remove_cache(c->uc, a, next < end ? next : end);
	}
	/* the lookups filled the TLB: the guest's first fetch must miss */
	qcpu = tlb_fast_unfill_end(start, end);
	if (qcpu)
		c->qemu_cpu = qcpu;
}

void vcpu_drop_translations(struct vcpu *c, uint64_t start, uint64_t end)
{
	if (c->pmu)
		pmu_code_changed(c->pmu, start, end);
	remove_translations(c, start & ~0xfffull, (end + 0xfff) & ~0xfffull);
}

void vcpu_retranslate(struct vcpu *c, uint64_t pc)
{
	remove_translations(c, pc, pc + 1);
}

/* ---- virtual clock ------------------------------------------------------- */

/*
 * Cycles of the virtual clock: with block accounting on, retired
 * instructions x CPI; without it (the default, so that programs run at full
 * speed), a coarse clock that advances by a fixed amount at each syscall and
 * each RDTSC: deterministic and strictly increasing, not proportional to work.
 */
uint64_t vcpu_cycles(struct vcpu *c)
{
	if (c->pmu)   /* the perf core's simulated CPU clock */
		return pmu_cycles(c->pmu, false);
	return (uint64_t)((unsigned __int128)c->clk.insns * c->clk.cpi_milli / 1000) +
	       c->clk.coarse;
}

uint64_t vcpu_tsc(struct vcpu *c)
{
	return (uint64_t)((unsigned __int128)vcpu_cycles(c) * c->clk.tsc_hz / c->clk.freq_hz);
}

uint64_t vcpu_virtual_ns(struct vcpu *c)
{
	return (uint64_t)((unsigned __int128)vcpu_cycles(c) * 1000000000u / c->clk.freq_hz);
}

uint64_t vcpu_virtual_cpu_ns(struct vcpu *c)
{
	uint64_t ns = vcpu_virtual_ns(c), slept = c->pmu ? pmu_slept_ns(c->pmu) : 0;

	return ns > slept ? ns - slept : 0;
}
