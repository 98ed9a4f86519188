/*
 * test_exec_unit.c - unit tests of the machine: the executable-range table
 * of the fast store path, self-modifying code and JIT cycles on the engine
 * with the fast path on, the guest address space rules (mm.c), and CPUID of
 * the models. Expected values are worked out from the rules cited per row.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/tcg_emit.h"
#include "sim/cpu/tlb_fast.h"
#include "sim/cpu/vcpu.h"
#include "sim/linux/guest.h"

/* ---- executable-range table ------------------------------------------- */

struct xr_op { int line; char op; uint64_t s, e; };
struct xr_probe { uint64_t addr; bool exec; };

static void test_exec_table(void **state)
{
	/* merge/split rules of tlb_fast_exec_add/remove, worked by hand */
	static const struct xr_op ops[] = {
		{ __LINE__, '+', 0x10000, 0x20000 },
		{ __LINE__, '+', 0x30000, 0x40000 },
		{ __LINE__, '+', 0x20000, 0x30000 },   /* bridges: one range 0x10000-0x40000 */
		{ __LINE__, '-', 0x18000, 0x19000 },   /* hole in the middle */
		{ __LINE__, '-', 0x3f000, 0x50000 },   /* trims the end */
		{ __LINE__, '+', 0x60000, 0x61000 },
	};
	static const struct xr_probe probes[] = {
		{ 0x0ffff, false }, { 0x10000, true }, { 0x17fff, true }, { 0x18000, false },
		{ 0x18fff, false }, { 0x19000, true }, { 0x2ffff, true }, { 0x30000, true },
		{ 0x3efff, true }, { 0x3f000, false }, { 0x5ffff, false }, { 0x60000, true },
		{ 0x61000, false },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (ops[i].op == '+')
			assert_int_equal(tlb_fast_exec_add(ops[i].s, ops[i].e), 0);
		else
			tlb_fast_exec_remove(ops[i].s, ops[i].e);
	}
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		if (tlb_fast_is_exec(probes[i].addr) != probes[i].exec)
			fail_msg("probe %#llx: expected %d", (unsigned long long)probes[i].addr,
				 probes[i].exec);
	}
	tlb_fast_exec_remove(0, UINT64_MAX);
	assert_false(tlb_fast_is_exec(0x10000));
}

/* ---- guest machine code ----------------------------------------------- */

struct code { uint8_t *p; size_t n; };

static void emit(struct code *c, size_t n, ...)
{
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		c->p[c->n++] = (uint8_t)va_arg(ap, int);
	va_end(ap);
}

static void emit_u32(struct code *c, uint32_t v) { memcpy(c->p + c->n, &v, 4); c->n += 4; }
static void emit_u64(struct code *c, uint64_t v) { memcpy(c->p + c->n, &v, 8); c->n += 8; }
/* mov rax, imm64 */
static void mov_rax(struct code *c, uint64_t v) { emit(c, 2, 0x48, 0xb8); emit_u64(c, v); }
static void mov_rdi(struct code *c, uint64_t v) { emit(c, 2, 0x48, 0xbf); emit_u64(c, v); }
/* mov esi/edx/eax, imm32 */
static void mov_esi(struct code *c, uint32_t v) { emit(c, 1, 0xbe); emit_u32(c, v); }
static void mov_edx(struct code *c, uint32_t v) { emit(c, 1, 0xba); emit_u32(c, v); }
static void mov_eax(struct code *c, uint32_t v) { emit(c, 1, 0xb8); emit_u32(c, v); }
static void syscall_(struct code *c) { emit(c, 2, 0x0f, 0x05); }
/* exit_group(eax) */
static void exit_with_eax(struct code *c) { emit(c, 2, 0x89, 0xc7); mov_eax(c, 231); syscall_(c); }

struct machine {
	struct guest_process p;
	struct guest_thread *t;
	uint64_t stack;
};

static void machine_up(struct machine *m)
{
	long r;

	assert_true(tlb_fast_init(false, NULL));
	guest_process_init(&m->p, pmu_model_find("skylake"), NULL);
	m->t = guest_thread_new(&m->p);
	assert_non_null(m->t);
	r = guest_mmap(&m->p.mm, 0, 65536, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(r > 0);
	m->stack = (uint64_t)r + 65536 - 64;
}

static int machine_run(struct machine *m, uint64_t entry)
{
	m->t->state = GUEST_RUNNING;
	vcpu_set_reg(m->t->cpu, UC_X86_REG_RSP, m->stack);
	vcpu_set_reg(m->t->cpu, UC_X86_REG_RIP, entry);
	assert_int_equal(guest_thread_run(m->t), GUEST_EXIT_GROUP);
	return m->t->exit_code;
}

static void machine_down(struct machine *m)
{
	guest_mm_remove_engine(&m->p.mm, m->t->cpu);
	vcpu_free(m->t->cpu);
	free(m->t);
	guest_process_destroy(&m->p);
}

/* A page the guest stored to while it was RW (its TLB entry filled without
 * TLB_NOTDIRTY) becomes RWX by the guest's mprotect; the guest runs code
 * there, patches it with a store, runs it again: the patch must be seen
 * (tlb_fast.h: a protect toggle flushes the stale TLB entry). */
static void test_rw_then_rwx_patch(void **state)
{
	struct machine m;
	long code, page;
	struct code c;

	(void)state;
	machine_up(&m);
	code = guest_mmap(&m.p.mm, 0, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	page = guest_mmap(&m.p.mm, 0, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(code > 0 && page > 0);
	/* page: mov eax, 1; ret */
	memcpy((void *)page, "\xb8\x01\x00\x00\x00\xc3", 6);
	c = (struct code){ (uint8_t *)code, 0 };
	mov_rax(&c, (uint64_t)page);
	emit(&c, 3, 0xc6, 0x00, 0xb8);               /* mov byte [rax], 0xb8 (same byte) */
	mov_rdi(&c, (uint64_t)page);
	mov_esi(&c, 4096);
	mov_edx(&c, PROT_READ | PROT_WRITE | PROT_EXEC);
	mov_eax(&c, 10);                              /* mprotect */
	syscall_(&c);
	mov_rax(&c, (uint64_t)page);
	emit(&c, 2, 0xff, 0xd0);                      /* call rax -> 1 */
	mov_rax(&c, (uint64_t)page);
	emit(&c, 4, 0xc6, 0x40, 0x01, 0x02);          /* mov byte [rax+1], 2 */
	emit(&c, 2, 0xff, 0xd0);                      /* call rax -> 2 */
	exit_with_eax(&c);
	assert_int_equal(guest_mprotect(&m.p.mm, (uint64_t)code, 4096, PROT_READ | PROT_EXEC), 0);
	assert_int_equal(machine_run(&m, (uint64_t)code), 2);
	machine_down(&m);
}

/* Code that patches the immediate of its own next instruction. */
static void test_self_modifying(void **state)
{
	struct machine m;
	long page;
	struct code c;

	(void)state;
	machine_up(&m);
	page = guest_mmap(&m.p.mm, 0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(page > 0);
	c = (struct code){ (uint8_t *)page, 0 };
	emit(&c, 7, 0xc6, 0x05, 0x01, 0x00, 0x00, 0x00, 0x2a); /* mov byte [rip+1], 42 */
	mov_eax(&c, 5);                                          /* imm patched to 42 */
	exit_with_eax(&c);
	assert_int_equal(machine_run(&m, (uint64_t)page), 42);
	/* run again after the host rewrote it (a JIT through another view) */
	c.n = 0;
	mov_eax(&c, 77);
	exit_with_eax(&c);
	vcpu_forget_code(m.t->cpu, (uint64_t)page, (uint64_t)page + 4096);
	assert_int_equal(machine_run(&m, (uint64_t)page), 77);
	machine_down(&m);
}

/* JIT cycle through guest_mprotect: RW write, RX run, RW rewrite, RX run,
 * then munmap and map again at the same address with new code. */
static void test_jit_cycle(void **state)
{
	struct machine m;
	long page;
	struct code c;
	static const struct { int line; uint32_t value; bool remap; } rows[] = {
		{ __LINE__, 111, false }, { __LINE__, 222, false },
		{ __LINE__, 333, true }, { __LINE__, 44, false },
	};

	(void)state;
	machine_up(&m);
	page = guest_mmap(&m.p.mm, 0, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(page > 0);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (rows[i].remap) {
			assert_int_equal(guest_munmap(&m.p.mm, (uint64_t)page, 4096), 0);
			assert_int_equal(guest_mmap(&m.p.mm, (uint64_t)page, 4096,
						    PROT_READ | PROT_WRITE,
						    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), page);
		} else if (i) {
			assert_int_equal(guest_mprotect(&m.p.mm, (uint64_t)page, 4096,
							PROT_READ | PROT_WRITE), 0);
		}
		c = (struct code){ (uint8_t *)page, 0 };
		mov_eax(&c, rows[i].value);
		exit_with_eax(&c);
		assert_int_equal(guest_mprotect(&m.p.mm, (uint64_t)page, 4096,
						PROT_READ | PROT_EXEC), 0);
		if (machine_run(&m, (uint64_t)page) != (int)(rows[i].value & 0xff))
			fail_msg("row at line %d: stale code ran", rows[i].line);
	}
	machine_down(&m);
}

/* The interposed translator (tcg_emit.c) runs code emitted into blocks:
 * its probe counts block starts and both exits of a Jcc loop by hand
 * (10 blocks, 9 taken, 1 not) and calls back at each block. */
static void test_tcg_emit_probe(void **state)
{
	(void)state;
	if (!tcg_emit_available())
		fail_msg("tcg_emit probe: %s", tcg_emit_unavailable_reason());
}

/* The same for libunicorn's AArch64 copy of the translator (a B.NE loop). */
static void test_tcg_emit_probe_aarch64(void **state)
{
	(void)state;
	if (!tcg_emit_available_aarch64())
		fail_msg("tcg_emit AArch64 probe: %s", tcg_emit_unavailable_reason_aarch64());
}

/* Stores on a data page take the fast path: the fill is marked dirty. */
static void test_fast_path_used(void **state)
{
	struct machine m;
	struct tlb_fast_stats before, after;
	long code, data;
	struct code c;

	(void)state;
	machine_up(&m);
	code = guest_mmap(&m.p.mm, 0, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	data = guest_mmap(&m.p.mm, 0, 1 << 20, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c = (struct code){ (uint8_t *)code, 0 };
	/* for (rcx = 0; rcx < 1 MiB; rcx += 64) data[rcx] = cl; exit(data[4096]) */
	mov_rdi(&c, (uint64_t)data);
	emit(&c, 2, 0x31, 0xc9);                         /* xor ecx, ecx */
	emit(&c, 3, 0x88, 0x0c, 0x0f);                   /* mov [rdi+rcx], cl */
	emit(&c, 4, 0x48, 0x83, 0xc1, 0x40);             /* add rcx, 64 */
	emit(&c, 3, 0x48, 0x81, 0xf9); emit_u32(&c, 1 << 20); /* cmp rcx, 1 MiB */
	emit(&c, 2, 0x72, (uint8_t)-16);                 /* jb back to the store */
	emit(&c, 7, 0x0f, 0xb6, 0x87, 0x00, 0x10, 0x00, 0x00); /* movzx eax, byte [rdi+4096] */
	exit_with_eax(&c);
	guest_mprotect(&m.p.mm, (uint64_t)code, 4096, PROT_READ | PROT_EXEC);
	tlb_fast_get_stats(&before);
	/* 4096 / 64 = 64 stores in the first page: rcx = 4096 stores cl = 0 */
	assert_int_equal(machine_run(&m, (uint64_t)code), 0);
	tlb_fast_get_stats(&after);
	/* 256 data pages written: each filled once and marked dirty */
	assert_true(after.dirtied - before.dirtied >= 256);
	assert_int_equal(((uint8_t *)data)[64 * 3], 64 * 3 & 0xff);
	assert_int_equal(m.t->cpu->mem_writes + m.t->cpu->mem_reads, 0);
	/* the memory dispatch point on demand: 1 MiB / 64 = 16384 stores and
	 * the one movzx load; off again: nothing more */
	assert_int_equal(vcpu_want_mem(m.t->cpu), 0);
	assert_int_equal(machine_run(&m, (uint64_t)code), 0);
	assert_int_equal(m.t->cpu->mem_writes, 16384);
	assert_int_equal(m.t->cpu->mem_reads, 1);
	vcpu_unwant_mem(m.t->cpu);
	assert_int_equal(machine_run(&m, (uint64_t)code), 0);
	assert_int_equal(m.t->cpu->mem_writes, 16384);
	machine_down(&m);
}

/*
 * RDTSC returns the virtual TSC: with block accounting, instructions are
 * counted at block entry (vcpu.h); without, only the coarse +25 per read.
 * Code: block 1 = rdtsc shl or mov mov dec jnz (7), the loop block dec jnz
 * (2) runs 999 more times, block 3 = rdtsc ... syscall (10): between the two
 * reads 999 * 2 + 10 = 2008 instructions at CPI 1, + 25 coarse cycles.
 */
static void test_rdtsc_virtual(void **state)
{
	static const struct { int line; bool blocks; uint64_t cycles; } rows[] = {
		{ __LINE__, false, 25 },
		{ __LINE__, true, 2008 + 25 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct machine m;
		long code, data;
		struct code c;
		uint64_t want;

		machine_up(&m);
		code = guest_mmap(&m.p.mm, 0, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		data = guest_mmap(&m.p.mm, 0, 4096, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		c = (struct code){ (uint8_t *)code, 0 };
		emit(&c, 2, 0x0f, 0x31);                   /* rdtsc */
		emit(&c, 4, 0x48, 0xc1, 0xe2, 0x20);       /* shl rdx, 32 */
		emit(&c, 3, 0x48, 0x09, 0xd0);             /* or rax, rdx */
		emit(&c, 3, 0x49, 0x89, 0xc0);             /* mov r8, rax */
		emit(&c, 1, 0xb9); emit_u32(&c, 1000);     /* mov ecx, 1000 */
		emit(&c, 2, 0xff, 0xc9);                   /* dec ecx */
		emit(&c, 2, 0x75, 0xfc);                   /* jnz dec */
		emit(&c, 2, 0x0f, 0x31);                   /* rdtsc */
		emit(&c, 4, 0x48, 0xc1, 0xe2, 0x20);       /* shl rdx, 32 */
		emit(&c, 3, 0x48, 0x09, 0xd0);             /* or rax, rdx */
		emit(&c, 3, 0x4c, 0x29, 0xc0);             /* sub rax, r8 */
		mov_rdi(&c, (uint64_t)data);
		emit(&c, 3, 0x48, 0x89, 0x07);             /* mov [rdi], rax */
		mov_eax(&c, 0);
		exit_with_eax(&c);
		guest_mprotect(&m.p.mm, (uint64_t)code, 4096, PROT_READ | PROT_EXEC);
		if (rows[i].blocks)
			vcpu_want_blocks(m.t->cpu);
		assert_int_equal(machine_run(&m, (uint64_t)code), 0);
		want = rows[i].cycles * m.t->cpu->clk.tsc_hz / m.t->cpu->clk.freq_hz;
		if (*(uint64_t *)data != want)
			fail_msg("line %d: TSC delta %llu, expected %llu", rows[i].line,
				 (unsigned long long)*(uint64_t *)data, (unsigned long long)want);
		machine_down(&m);
	}
}

/* Unknown syscalls: -ENOSYS and one warning per number (syscall_table.c);
 * rseq: -ENOSYS silently (glibc then runs without it). */
static void test_unknown_syscall(void **state)
{
	static const struct { int line; unsigned long nr; bool warns; } rows[] = {
		{ __LINE__, 246, true },    /* kexec_load: not for a guest */
		{ __LINE__, 335, true },    /* unassigned on x86-64 */
		{ __LINE__, 334, false },   /* rseq */
		{ __LINE__, 600, false },   /* beyond the table: warns, no bit */
	};
	struct machine m;
	uint64_t a[6] = { 0 };

	(void)state;
	machine_up(&m);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long nr = rows[i].nr;

		if (guest_syscall(m.t, nr, a) != -ENOSYS)
			fail_msg("line %d: syscall %lu did not give ENOSYS", rows[i].line, nr);
		if (nr < GUEST_NR_SYSCALLS &&
		    !!(m.p.warned[nr / 64] & (1ull << (nr % 64))) != rows[i].warns)
			fail_msg("line %d: warned bit of %lu wrong", rows[i].line, nr);
	}
	assert_string_equal(guest_syscall_name(246), "kexec_load");
	assert_null(guest_syscall_name(335));
	machine_down(&m);
}

/* pmusim's own fds (guest_fd_reserve) are out of the guest's reach: it
 * cannot close them, fcntl them or dup onto them (EBADF, as for an fd that
 * is not open); a close_range over one closes the guest's fds around it
 * and leaves it open. Numbers below 1024, so any soft limit works. */
static void test_fd_rules(void **state)
{
	struct machine m;
	uint64_t a[6] = { 0 };
	int own, below, above;

	(void)state;
	machine_up(&m);
	own = fcntl(0, F_DUPFD_CLOEXEC, 500);
	assert_true(own >= 500);
	guest_fd_reserve(&m.p, own, true);
	a[0] = (uint64_t)own;
	assert_int_equal(guest_syscall(m.t, __NR_close, a), -EBADF);
	a[1] = F_GETFD;
	assert_int_equal(guest_syscall(m.t, __NR_fcntl, a), -EBADF);
	a[0] = 0; a[1] = (uint64_t)own;
	assert_int_equal(guest_syscall(m.t, __NR_dup2, a), -EBADF);
	below = dup2(0, own - 1);
	above = dup2(0, own + 1);
	assert_int_equal(below, own - 1);
	assert_int_equal(above, own + 1);
	a[0] = (uint64_t)below; a[1] = (uint64_t)above; a[2] = 0;
	assert_int_equal(guest_syscall(m.t, __NR_close_range, a), 0);
	assert_int_equal(fcntl(below, F_GETFD), -1);
	assert_int_equal(fcntl(above, F_GETFD), -1);
	assert_true(fcntl(own, F_GETFD) >= 0);
	/* once the guest's again, it is an fd like any */
	guest_fd_reserve(&m.p, own, false);
	a[0] = (uint64_t)own;
	assert_int_equal(guest_syscall(m.t, __NR_close, a), 0);
	machine_down(&m);
}

/* ---- address space rules (mm.c) ---------------------------------------- */

static int pmusim_own_data[4096 / sizeof(int)] __attribute__((aligned(4096)));

static void test_mm_rules(void **state)
{
	struct guest_mm mm;
	uint64_t own = (uint64_t)(uintptr_t)pmusim_own_data;
	long a, b;

	(void)state;
	guest_mm_init(&mm);
	pmusim_own_data[0] = 1234;
	/* MAP_FIXED over pmusim's memory: -ENOMEM, memory untouched */
	assert_int_equal(guest_mmap(&mm, own, 4096, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), -ENOMEM);
	assert_int_equal(pmusim_own_data[0], 1234);
	/* munmap of a range the guest does not own: 0 (do_munmap of nothing),
	 * pmusim's page stays */
	assert_int_equal(guest_munmap(&mm, own, 4096), 0);
	assert_int_equal(pmusim_own_data[0], 1234);
	/* mprotect needs the whole range mapped (do_mprotect_pkey: -ENOMEM) */
	assert_int_equal(guest_mprotect(&mm, own, 4096, PROT_READ), -ENOMEM);
	/* misaligned MAP_FIXED: -EINVAL; zero length: -EINVAL */
	assert_int_equal(guest_mmap(&mm, own + 1, 4096, PROT_READ,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), -EINVAL);
	assert_int_equal(guest_mmap(&mm, 0, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
			 -EINVAL);
	/* a failed MAP_FIXED (bad fd) leaves the range free for the guest */
	a = guest_mmap(&mm, 0, 2 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_int_equal(guest_munmap(&mm, (uint64_t)a, 2 * 4096), 0);
	assert_int_equal(guest_mmap(&mm, (uint64_t)a, 4096, PROT_READ, MAP_PRIVATE | MAP_FIXED,
				    -1, 0), -EBADF);
	assert_int_equal(guest_mmap(&mm, (uint64_t)a, 4096, PROT_READ,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), a);
	assert_int_equal(guest_munmap(&mm, (uint64_t)a, 4096), 0);
	/* a guest mapping can be replaced with MAP_FIXED and split by munmap */
	a = guest_mmap(&mm, 0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(a > 0);
	b = guest_mmap(&mm, (uint64_t)a + 4096, 4096, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	assert_int_equal(b, a + 4096);
	assert_true(guest_mm_access_ok(&mm, (uint64_t)a, 4096, PROT_WRITE));
	assert_false(guest_mm_access_ok(&mm, (uint64_t)a + 4096, 4096, PROT_WRITE));
	assert_int_equal(guest_munmap(&mm, (uint64_t)a + 4096, 4096), 0);
	assert_false(guest_mm_access_ok(&mm, (uint64_t)a, 3 * 4096, PROT_READ));
	assert_true(guest_mm_access_ok(&mm, (uint64_t)a + 8192, 4096, PROT_READ));
	/* mremap moving a mapping keeps its contents */
	((char *)a)[8192] = 'x';
	b = guest_mremap(&mm, (uint64_t)a + 8192, 4096, 8 * 4096, MREMAP_MAYMOVE, 0);
	assert_true(b > 0);
	assert_int_equal(((char *)b)[0], 'x');
	assert_true(guest_mm_access_ok(&mm, (uint64_t)b, 8 * 4096, PROT_WRITE));
	/* brk: below the start returns the current break; growth maps zeroed
	 * pages; shrinking unmaps them (mm/mmap.c brk()) */
	a = guest_mmap(&mm, 0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	guest_mm_set_brk(&mm, (uint64_t)a + (64 << 20));
	{
		uint64_t start = mm.brk_start;

		assert_int_equal(guest_brk(&mm, 0), (long)start);
		assert_int_equal(guest_brk(&mm, start + 10000), (long)(start + 10000));
		assert_true(guest_mm_access_ok(&mm, start, 12288, PROT_WRITE));
		assert_int_equal(((char *)start)[9999], 0);
		assert_int_equal(guest_brk(&mm, start + 100), (long)(start + 100));
		assert_false(guest_mm_access_ok(&mm, start + 4096, 4096, PROT_READ));
		/* MAP_FIXED into the unused heap reservation is the guest's */
		assert_int_equal(guest_mmap(&mm, start + (1 << 20), 4096, PROT_READ,
					    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0),
				 (long)(start + (1 << 20)));
		/* and the heap cannot grow over it any more (do_brk_flags) */
		assert_int_equal(guest_brk(&mm, start + (2 << 20)), (long)(start + 100));
	}
	guest_mm_destroy(&mm);
}

/* ---- CPUID of the models -------------------------------------------------- */

struct cpuid_row {
	int line;
	const char *model;
	uint32_t leaf;
	int reg;                   /* 0 eax .. 3 edx */
	uint32_t mask, value;
	const char *why;
};

static void test_cpuid_rows(void **state)
{
	static const struct cpuid_row rows[] = {
		/* "Genu" "ineI" "ntel" in EBX, EDX, ECX */
		{ __LINE__, "skylake", 0, 1, ~0u, 0x756e6547, "vendor EBX" },
		{ __LINE__, "skylake", 0, 3, ~0u, 0x49656e69, "vendor EDX" },
		{ __LINE__, "skylake", 0, 2, ~0u, 0x6c65746e, "vendor ECX" },
		/* family 6 model 0x5e stepping 3: ext model 5, model e (SDM CPUID.01H) */
		{ __LINE__, "skylake", 1, 0, ~0u, 0x000506e3, "signature" },
		/* intel_pmu_init(): version 4, 4 GP of 48 bits, EBX length 7 */
		{ __LINE__, "skylake", 0xa, 0, ~0u, 0x07300404, "perfmon EAX" },
		{ __LINE__, "skylake", 0xa, 1, ~0u, 0, "all arch events present" },
		/* 3 fixed counters of 48 bits: 3 | 48 << 5 */
		{ __LINE__, "skylake", 0xa, 3, 0x1fff, 0x603, "fixed counters" },
		{ __LINE__, "skylake", 0x80000002u, 0, ~0u, 0x65746e49, "brand 'Inte'" },
		/* "Auth" "enti" "cAMD" */
		{ __LINE__, "zen", 0, 1, ~0u, 0x68747541, "vendor EBX" },
		{ __LINE__, "zen", 0, 3, ~0u, 0x69746e65, "vendor EDX" },
		{ __LINE__, "zen", 0, 2, ~0u, 0x444d4163, "vendor ECX" },
		/* family 0x17 = 0xf + 8 in ext family, model 1, stepping 1 */
		{ __LINE__, "zen", 1, 0, ~0u, 0x00800f11, "signature" },
		/* amd_core_pmu_init(): PerfCtrExtCore for 6 counters */
		{ __LINE__, "zen", 0x80000001u, 2, 1u << 23, 1u << 23, "perfctr_core" },
		{ __LINE__, "zen", 0x80000000u, 1, ~0u, 0x68747541, "ext vendor EBX" },
		{ __LINE__, "zen", 0xa, 0, ~0u, 0, "no Intel perfmon leaf" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct pmu_model *m = pmu_model_find(rows[i].model);
		uint32_t out[4];

		if (!m)
			fail_msg("line %d: model %s missing", rows[i].line, rows[i].model);
		cpuid_answer(m, rows[i].leaf, 0, out);
		if ((out[rows[i].reg] & rows[i].mask) != rows[i].value)
			fail_msg("line %d: %s leaf %#x reg %d: %#x, expected %#x (%s)",
				 rows[i].line, rows[i].model, rows[i].leaf, rows[i].reg,
				 out[rows[i].reg] & rows[i].mask, rows[i].value, rows[i].why);
	}
}

static void test_cpuinfo_agrees(void **state)
{
	const struct pmu_model *m = pmu_model_find("skylake");
	char buf[16384];
	size_t n;

	(void)state;
	n = pmu_model_cpuinfo(m, 2, cpuid_answer, buf, sizeof(buf));
	assert_true(n > 0 && n < sizeof(buf));
	assert_non_null(strstr(buf, "vendor_id\t: GenuineIntel\n"));
	assert_non_null(strstr(buf, "cpu family\t: 6\n"));
	assert_non_null(strstr(buf, "model\t\t: 94\n"));
	assert_non_null(strstr(buf, "stepping\t: 3\n"));
	assert_non_null(strstr(buf, "model name\t: Intel(R) Core(TM) pmusim-skylake CPU @ 3.00GHz\n"));
	assert_non_null(strstr(buf, " arch_perfmon"));
	assert_non_null(strstr(buf, "processor\t: 1\n"));
	n = pmu_model_cpuinfo(pmu_model_find("zen"), 1, cpuid_answer, buf, sizeof(buf));
	assert_non_null(strstr(buf, "cpu family\t: 23\n"));
	assert_non_null(strstr(buf, " perfctr_core"));
	assert_null(strstr(buf, " arch_perfmon"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_table),
		cmocka_unit_test(test_self_modifying),
		cmocka_unit_test(test_rw_then_rwx_patch),
		cmocka_unit_test(test_jit_cycle),
		cmocka_unit_test(test_fast_path_used),
		cmocka_unit_test(test_tcg_emit_probe),
		cmocka_unit_test(test_tcg_emit_probe_aarch64),
		cmocka_unit_test(test_rdtsc_virtual),
		cmocka_unit_test(test_unknown_syscall),
		cmocka_unit_test(test_fd_rules),
		cmocka_unit_test(test_mm_rules),
		cmocka_unit_test(test_cpuid_rows),
		cmocka_unit_test(test_cpuinfo_agrees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
