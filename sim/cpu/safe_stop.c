/*
 * safe_stop.c - interposition of Unicorn 2.0.1's exit-request test, of
 * cpu_exit() and of the RDTSC helpers, so that uc_emu_stop() is safe while
 * the engine runs (see safe_stop.h).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/safe_stop.h"

enum { SS_UNKNOWN = 0, SS_PROBING, SS_ON, SS_OFF };
static _Atomic int state = SS_UNKNOWN;

typedef void (*void_ptr_fn)(void *);
typedef void (*noreturn_ptr_fn)(void *) __attribute__((noreturn));

static void_ptr_fn real_check_exit, real_cpu_exit, real_rdtsc, real_rdtscp;
static noreturn_ptr_fn real_loop_exit;
static void_ptr_fn a64_check_exit;
static noreturn_ptr_fn a64_loop_exit;
static bool a64_on;                     /* AArch64's copies exported */
static __thread bool tl_aarch64;        /* the engine here is AArch64's */
static _Atomic unsigned long n_checks_dropped;   /* for the probe */

static __thread bool tl_fault;          /* a memory-error hook said "fault" */
static __thread int tl_kicking;         /* inside safe_stop_kick() */
static __thread safe_stop_tsc_fn tl_tsc;
static __thread void *tl_tsc_opaque;

/* CPUX86State begins with target_ulong regs[CPU_NB_REGS] (target/i386/cpu.h) */
enum { QEMU_R_EAX = 0, QEMU_R_ECX = 1, QEMU_R_EDX = 2 };

static void *resolve(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p)
		abort();   /* only reached when libunicorn calls our definition */
	return p;
}

static bool dropping(void)
{
	int s = atomic_load_explicit(&state, memory_order_relaxed);

	return s == SS_ON || s == SS_PROBING;
}

/*
 * Translation time, once per guest load, store and code hook: stock code
 * emits "if (icount_decr < 0) leave the block" here. When on, nothing is
 * emitted; the test at the start of every block (gen_tb_start) remains.
 */
/* The same test in libunicorn's AArch64 copy. */
void check_exit_request_aarch64(void *tcg_ctx);
void check_exit_request_aarch64(void *tcg_ctx)
{
	if (dropping() && a64_on) {
		atomic_fetch_add_explicit(&n_checks_dropped, 1, memory_order_relaxed);
		return;
	}
	if (!a64_check_exit)
		a64_check_exit = (void_ptr_fn)resolve("check_exit_request_aarch64");
	a64_check_exit(tcg_ctx);
}

void check_exit_request_x86_64(void *tcg_ctx);
void check_exit_request_x86_64(void *tcg_ctx)
{
	if (dropping()) {
		atomic_fetch_add_explicit(&n_checks_dropped, 1, memory_order_relaxed);
		return;
	}
	if (!real_check_exit)
		real_check_exit = (void_ptr_fn)resolve("check_exit_request_x86_64");
	real_check_exit(tcg_ctx);
}

/*
 * Every exit request: uc_emu_stop(), and the memory-fault paths of
 * cputlb.c. A load or fetch fault follows it with cpu_loop_exit(); a store
 * fault returns into the block and relied on the dropped test, so here it
 * leaves the block the same way (RIP handling as for load faults).
 */
void cpu_exit(void *cpu);
void cpu_exit(void *cpu)
{
	if (!real_cpu_exit)
		real_cpu_exit = (void_ptr_fn)resolve("cpu_exit");
	real_cpu_exit(cpu);
	if (tl_fault && !tl_kicking && dropping()) {
		tl_fault = false;
		if (tl_aarch64 && a64_on)
			a64_loop_exit(cpu);
		if (!real_loop_exit)
			real_loop_exit = (noreturn_ptr_fn)resolve("cpu_loop_exit_x86_64");
		real_loop_exit(cpu);
	}
}

void safe_stop_kick(void *uc)
{
	tl_kicking++;     /* a kick is not the fault a hook reported */
	uc_emu_stop(uc);
	tl_kicking--;
}

void safe_stop_fault_pending(void)
{
	tl_fault = true;
}

/* The TCG helpers of RDTSC and RDTSCP (target/i386/misc_helper.c). */
static void tsc_helper(void *env, bool rdtscp)
{
	uint64_t *regs = env, rax = 0, rdx = 0, rcx = regs[QEMU_R_ECX];

	tl_tsc(tl_tsc_opaque, rdtscp, &rax, &rdx, &rcx);
	regs[QEMU_R_EAX] = (uint32_t)rax;
	regs[QEMU_R_EDX] = (uint32_t)rdx;
	if (rdtscp)
		regs[QEMU_R_ECX] = (uint32_t)rcx;
}

/* The virtual TSC while an engine of ours runs here, the real helper else. */
static void rdtsc_entry(void *env, bool rdtscp)
{
	void_ptr_fn *real = rdtscp ? &real_rdtscp : &real_rdtsc;

	if (tl_tsc && dropping()) {
		tsc_helper(env, rdtscp);
		return;
	}
	if (!*real)
		*real = (void_ptr_fn)resolve(rdtscp ? "helper_rdtscp_x86_64" : "helper_rdtsc_x86_64");
	(*real)(env);
}

void helper_rdtsc_x86_64(void *env);
void helper_rdtsc_x86_64(void *env)
{
	rdtsc_entry(env, false);
}

void helper_rdtscp_x86_64(void *env);
void helper_rdtscp_x86_64(void *env)
{
	rdtsc_entry(env, true);
}

void safe_stop_set_tsc(safe_stop_tsc_fn fn, void *opaque)
{
	tl_tsc = fn;
	tl_tsc_opaque = opaque;
}

/* ---- start-up probe -------------------------------------------------------- */

#define PROBE_TSC 0x1122334455667788ull

static void probe_tsc(void *opaque, bool rdtscp, uint64_t *rax, uint64_t *rdx, uint64_t *rcx)
{
	(void)opaque; (void)rdtscp; (void)rcx;
	*rax = (uint32_t)PROBE_TSC;
	*rdx = PROBE_TSC >> 32;
}

static bool probe_memerr(uc_engine *uc, uc_mem_type type, uint64_t addr, int size,
			 int64_t value, void *user)
{
	(void)uc; (void)type; (void)addr; (void)size; (void)value; (void)user;
	safe_stop_fault_pending();
	return false;
}

/*
 * On a scratch engine: rdtsc; mov [rdi], rax (rdi: a read-only page);
 * mov ebx, 1; hlt. All three interpositions hold when RDX:RAX is the probe's
 * TSC, the store faults, EBX stays 0 (the block was left at the store) and
 * exit tests were dropped. Returns a reason, or NULL when they hold.
 */
static const char *probe(void)
{
	static const uint8_t code[] = {
		0x0f, 0x31,                     /* rdtsc */
		0x48, 0x89, 0x07,               /* mov [rdi], rax */
		0xbb, 0x01, 0x00, 0x00, 0x00,   /* mov ebx, 1 */
		0xf4,                           /* hlt */
	};
	const char *why = "cannot set up the probe engine";
	uc_engine *uc = NULL;
	uc_hook h;
	uint64_t rdi, rax = 0, rdx = 0, rbx = 0;
	uint8_t *mem;
	uc_err e;

	mem = mmap(NULL, 0x2000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return why;
	memcpy(mem, code, sizeof(code));
	if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK)
		goto out;
	if (uc_mem_map_ptr(uc, (uint64_t)mem, 0x1000, UC_PROT_READ | UC_PROT_EXEC, mem) ||
	    uc_mem_map_ptr(uc, (uint64_t)mem + 0x1000, 0x1000, UC_PROT_READ, mem + 0x1000) ||
	    uc_hook_add(uc, &h, UC_HOOK_MEM_INVALID, probe_memerr, NULL, 1, 0))
		goto out;
	rdi = (uint64_t)mem + 0x1000;
	uc_reg_write(uc, UC_X86_REG_RDI, &rdi);
	safe_stop_set_tsc(probe_tsc, NULL);
	e = uc_emu_start(uc, (uint64_t)mem, (uint64_t)mem + sizeof(code) - 1, 0, 0);
	safe_stop_set_tsc(NULL, NULL);
	tl_fault = false;
	uc_reg_read(uc, UC_X86_REG_RAX, &rax);
	uc_reg_read(uc, UC_X86_REG_RDX, &rdx);
	uc_reg_read(uc, UC_X86_REG_RBX, &rbx);
	if (atomic_load(&n_checks_dropped) == 0)
		why = "libunicorn does not call the interposed check_exit_request_x86_64 "
		      "(binary not linked with -rdynamic?)";
	else if ((rdx << 32 | (uint32_t)rax) != PROBE_TSC)
		why = "libunicorn does not call the interposed helper_rdtsc_x86_64";
	else if (e != UC_ERR_WRITE_PROT || rbx != 0)
		why = "a store fault does not leave the block through the interposed cpu_exit";
	else
		why = NULL;
out:
	if (uc)
		uc_close(uc);
	munmap(mem, 0x2000);
	return why;
}

bool safe_stop_init(bool disable, const char **why)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	static const char *reason;
	unsigned maj, min, v;

	pthread_mutex_lock(&once);
	if (atomic_load(&state) != SS_UNKNOWN)
		goto done;
	reason = NULL;
	v = uc_version(&maj, &min);
	if (disable)
		reason = "disabled by option";
	else if (((v >> 8) & 0xffffff) != 0x020001)   /* UC_MAKE_VERSION */
		reason = "libunicorn is not 2.0.1 (its exit paths are unknown)";
	else if (!dlsym(RTLD_NEXT, "check_exit_request_x86_64") ||
		 !dlsym(RTLD_NEXT, "cpu_loop_exit_x86_64") ||
		 !dlsym(RTLD_NEXT, "helper_rdtsc_x86_64") ||
		 !dlsym(RTLD_NEXT, "helper_rdtscp_x86_64"))
		reason = "libunicorn does not export check_exit_request_x86_64/"
			 "cpu_loop_exit_x86_64/helper_rdtsc(p)_x86_64";
	if (!reason) {
		atomic_store(&state, SS_PROBING);
		reason = probe();
	}
	/* the same library build's AArch64 copy (the x86-64 probe stands for
	 * both: one source, compiled twice) */
	a64_check_exit = (void_ptr_fn)dlsym(RTLD_NEXT, "check_exit_request_aarch64");
	a64_loop_exit = (noreturn_ptr_fn)dlsym(RTLD_NEXT, "cpu_loop_exit_aarch64");
	a64_on = !reason && a64_check_exit && a64_loop_exit;
	atomic_store(&state, reason ? SS_OFF : SS_ON);
done:
	pthread_mutex_unlock(&once);
	if (why)
		*why = reason;
	return atomic_load(&state) == SS_ON;
}

void safe_stop_set_engine(bool aarch64)
{
	tl_aarch64 = aarch64;
}

bool safe_stop_on_engine(bool aarch64)
{
	return safe_stop_on() && (!aarch64 || a64_on);
}

bool safe_stop_on(void)
{
	return atomic_load_explicit(&state, memory_order_relaxed) == SS_ON;
}
