/*
 * tlb_fast.c - interposition of Unicorn 2.0.1's TLB fill to take guest stores
 * off the notdirty slow path (see tlb_fast.h and docs/machine.md).
 */
#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unicorn/unicorn.h>
#include "sim/cpu/tlb_fast.h"

#define PAGE_MASK_4K (~UINT64_C(0xfff))

/* PAGE_WRITE of QEMU's exec/cpu-all.h */
#define QEMU_PAGE_WRITE 0x0002

typedef void (*tlb_set_page_fn)(void *cpu, uint64_t vaddr, uint64_t paddr,
				uint32_t attrs, int prot, int mmu_idx, uint64_t size);
typedef void (*tlb_set_dirty_fn)(void *cpu, uint64_t vaddr);
typedef void (*tlb_flush_fn)(void *cpu);
typedef bool (*tlb_fill_fn)(void *cpu, uint64_t addr, int size, int access, int mmu_idx,
			    bool probe, uintptr_t retaddr);
typedef bool (*restore_state_fn)(void *cpu, uintptr_t host_pc, bool will_exit);

static tlb_set_page_fn real_set_page;
/* libunicorn's AArch64 copies (tlb_set_page_with_attrs_aarch64...) */
static tlb_set_page_fn a64_set_page;
static tlb_set_dirty_fn a64_set_dirty;
static tlb_flush_fn a64_flush;
static tlb_set_dirty_fn real_set_dirty;
static tlb_flush_fn real_flush;
static tlb_fill_fn real_fill;
typedef void (*tlb_flush_page_fn)(void *cpu, uint64_t addr);
static tlb_flush_page_fn real_flush_page;
static __thread void *tl_last_cpu;     /* CPU of the thread's last fill */
static __thread bool tl_unfill;        /* pmusim's own lookups: not observed */
static restore_state_fn real_restore;

/* The fill observer (tlb_fast.h): per thread, set around a vCPU's runs. */
static __thread tlb_fill_observer tl_obs;
static __thread void *tl_obs_arg;
static __thread bool tl_strip_write;   /* the fill in progress installs no PAGE_WRITE */
static _Atomic bool observing;         /* both interposers are called */
static _Atomic int probing_fill;       /* counts tlb_fill calls during the probe */

/*
 * TLB growth. QEMU 5.0's softmmu TLB starts at 256 entries and is resized
 * only inside tlb_flush() (tlb_mmu_resize_locked doubles it when more than
 * 70% was used). A guest that maps nothing for a long time never flushes, so
 * a working set above 1 MiB thrashes it. When one thread's engine has filled
 * more than its budget, the fill that crosses it flushes (and so grows) the
 * TLB and then installs its own entry again in the new table: every caller
 * of tlb_fill() in QEMU 5.0 looks its entry up again after the fill ("TLB
 * resize via tlb_fill may have moved the entry", cputlb.c). The
 * budget doubles each time, so this happens a few times per run at most.
 * The first budget is small: a doubling needs a flush, and reaching a
 * working set's size from 256 entries takes several (AArch64's 1 KiB
 * target pages need four times the entries of x86-64's 4 KiB ones);
 * bench_compute makes 66,685 fills on AArch64 instead of 493,763 with a
 * first budget of 65536, 13,767 on x86-64 instead of 76,716.
 * Stopping the engine from here instead is not safe: Unicorn 2.0.1 may then
 * re-execute the block that is half done.
 */
#define GROW_FIRST_BUDGET 4096u
#define GROW_MAX_FLUSHES 12u
static __thread uint64_t tl_fills, tl_budget = GROW_FIRST_BUDGET;
static __thread unsigned tl_flushes;
static _Atomic int state = TLB_FAST_UNKNOWN;
static _Atomic uint64_t n_fills, n_dirtied, n_grows;
static _Atomic int probing;            /* counts fills during the probe */

/* Executable ranges: sorted, non-overlapping, merged; under exec_lock. */
struct xrange { uint64_t start, end; };
static pthread_rwlock_t exec_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct xrange *xr;
static size_t nr_xr, cap_xr;

static bool is_exec_locked(uint64_t a)
{
	size_t lo = 0, hi = nr_xr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a < xr[mid].start)
			hi = mid;
		else if (a >= xr[mid].end)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

bool tlb_fast_is_exec(uint64_t addr)
{
	bool r;

	pthread_rwlock_rdlock(&exec_lock);
	r = is_exec_locked(addr);
	pthread_rwlock_unlock(&exec_lock);
	return r;
}

/*
 * The interposed fill: same contract as QEMU's tlb_set_page_with_attrs();
 * afterwards a writable page that holds no code is marked dirty so its TLB
 * entry has no TLB_NOTDIRTY and stores are inline. One body for each
 * guest architecture's copy of the TLB code in libunicorn (fn, set_dirty,
 * flush: that architecture's).
 */
static void set_page_fast(tlb_set_page_fn fn, tlb_set_dirty_fn set_dirty, tlb_flush_fn flush,
			  void *cpu, uint64_t vaddr, uint64_t paddr, uint32_t attrs, int prot,
			  int mmu_idx, uint64_t size)
{
	if (tl_strip_write)
		prot &= ~QEMU_PAGE_WRITE;
	fn(cpu, vaddr, paddr, attrs, prot, mmu_idx, size);
	if (atomic_load_explicit(&probing, memory_order_relaxed))
		atomic_fetch_add(&probing, 1);
	if (atomic_load_explicit(&state, memory_order_relaxed) != TLB_FAST_ON ||
	    !set_dirty || !flush)
		return;
	atomic_fetch_add_explicit(&n_fills, 1, memory_order_relaxed);
	if (++tl_fills > tl_budget && tl_flushes < GROW_MAX_FLUSHES) {
		tl_fills = 0;
		tl_budget *= 2;
		tl_flushes++;
		flush(cpu);   /* resizes */
		fn(cpu, vaddr, paddr, attrs, prot, mmu_idx, size);
		atomic_fetch_add_explicit(&n_grows, 1, memory_order_relaxed);
	}
	if (!(prot & QEMU_PAGE_WRITE))
		return;
	/* the 4 KiB guest page (the executable-range table's unit); the
	 * engine's own page may be smaller (AArch64: 1 KiB) and is the one
	 * marked, tlb_set_dirty() masks vaddr to it */
	if (tlb_fast_is_exec(vaddr & PAGE_MASK_4K))
		return;
	set_dirty(cpu, vaddr);
	atomic_fetch_add_explicit(&n_dirtied, 1, memory_order_relaxed);
}

/* First call before init (another engine): resolved lazily. */
static void *resolve_or_abort(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn)
		abort();
	return fn;
}

void tlb_set_page_with_attrs_x86_64(void *cpu, uint64_t vaddr, uint64_t paddr,
				    uint32_t attrs, int prot, int mmu_idx, uint64_t size);
void tlb_set_page_with_attrs_x86_64(void *cpu, uint64_t vaddr, uint64_t paddr,
				    uint32_t attrs, int prot, int mmu_idx, uint64_t size)
{
	if (!real_set_page)
		real_set_page = (tlb_set_page_fn)resolve_or_abort("tlb_set_page_with_attrs_x86_64");
	set_page_fast(real_set_page, real_set_dirty, real_flush, cpu, vaddr, paddr, attrs, prot,
		      mmu_idx, size);
}

/* The same for AArch64 engines (their stores take the same slow path). */
void tlb_set_page_with_attrs_aarch64(void *cpu, uint64_t vaddr, uint64_t paddr,
				     uint32_t attrs, int prot, int mmu_idx, uint64_t size);
void tlb_set_page_with_attrs_aarch64(void *cpu, uint64_t vaddr, uint64_t paddr,
				     uint32_t attrs, int prot, int mmu_idx, uint64_t size)
{
	if (!a64_set_page)
		a64_set_page = (tlb_set_page_fn)resolve_or_abort("tlb_set_page_with_attrs_aarch64");
	set_page_fast(a64_set_page, a64_set_dirty, a64_flush, cpu, vaddr, paddr, attrs, prot,
		      mmu_idx, size);
}

/*
 * The interposed x86_cpu_tlb_fill() (cc->tlb_fill, reached through the
 * library's GOT): every TLB miss of a load, store or code fetch passes here
 * with its access type and the host return address of the access, before
 * the entry is made. The thread's observer sees it first and may ask for
 * an entry without write permission, so that a later store misses again.
 */
bool x86_cpu_tlb_fill_x86_64(void *cpu, uint64_t addr, int size, int access, int mmu_idx,
			     bool probe, uintptr_t retaddr);
bool x86_cpu_tlb_fill_x86_64(void *cpu, uint64_t addr, int size, int access, int mmu_idx,
			     bool probe, uintptr_t retaddr)
{
	tlb_fill_fn fn = real_fill;
	bool r;

	if (!fn) {
		fn = (tlb_fill_fn)dlsym(RTLD_NEXT, "x86_cpu_tlb_fill_x86_64");
		if (!fn)
			abort();
		real_fill = fn;
	}
	if (atomic_load_explicit(&probing_fill, memory_order_relaxed))
		atomic_fetch_add(&probing_fill, 1);
	tl_last_cpu = cpu;
	tl_strip_write = false;
	if (tl_obs && !tl_unfill && atomic_load_explicit(&observing, memory_order_relaxed))
		tl_strip_write = !tl_obs(tl_obs_arg, cpu, addr, access, retaddr);
	/* a failing fill leaves through a longjmp: the flag is reset above */
	r = fn(cpu, addr, size, access, mmu_idx, probe, retaddr);
	tl_strip_write = false;
	return r;
}

void tlb_fast_observe(tlb_fill_observer fn, void *arg)
{
	tl_obs = fn;
	tl_obs_arg = arg;
}

bool tlb_fast_observing(void)
{
	return atomic_load(&observing);
}

void tlb_fast_flush(void *qemu_cpu)
{
	if (qemu_cpu && real_flush)
		real_flush(qemu_cpu);
}

void *tlb_fast_unfill_begin(void)
{
	tl_last_cpu = NULL;
	tl_unfill = true;
	return NULL;
}

void *tlb_fast_unfill_end(uint64_t start, uint64_t end)
{
	void *cpu = tl_last_cpu;

	tl_unfill = false;
	if (!cpu || !real_flush_page)
		return cpu;
	for (uint64_t a = start & PAGE_MASK_4K; a < end; a += 0x1000)
		real_flush_page(cpu, a);
	return cpu;
}

bool tlb_fast_restore_pc(void *qemu_cpu, uintptr_t retaddr)
{
	if (!qemu_cpu || !retaddr || !real_restore)
		return false;
	return real_restore(qemu_cpu, retaddr, false);
}

/* Runs a store loop on a throw-away engine; true if our fill was called. */
static bool probe_interposition(bool *fill_seen)
{
	/* mov [rdi], rax; hlt */
	static const uint8_t code[] = { 0x48, 0x89, 0x07, 0xf4 };
	uc_engine *uc = NULL;
	uint8_t *mem;
	uint64_t rdi;
	bool ok = false;

	*fill_seen = false;
	mem = mmap(NULL, 0x2000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return false;
	memcpy(mem, code, sizeof(code));
	if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK)
		goto out;
	if (uc_mem_map_ptr(uc, (uint64_t)mem, 0x2000, UC_PROT_ALL, mem) != UC_ERR_OK)
		goto out;
	rdi = (uint64_t)mem + 0x1000;
	uc_reg_write(uc, UC_X86_REG_RDI, &rdi);
	atomic_store(&probing, 1);
	atomic_store(&probing_fill, 1);
	uc_emu_start(uc, (uint64_t)mem, (uint64_t)mem + 3, 0, 0);
	ok = atomic_load(&probing) > 1;
	*fill_seen = atomic_load(&probing_fill) > 1;
	atomic_store(&probing, 0);
	atomic_store(&probing_fill, 0);
out:
	if (uc)
		uc_close(uc);
	munmap(mem, 0x2000);
	return ok;
}

bool tlb_fast_init(bool disable, const char **why)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	unsigned maj, min;
	unsigned v;
	bool fill_seen = false;
	const char *reason = NULL;

	pthread_mutex_lock(&once);
	if (atomic_load(&state) != TLB_FAST_UNKNOWN)
		goto done;
	v = uc_version(&maj, &min);
	/* UC_MAKE_VERSION: major<<24 | minor<<16 | patch<<8 | extra */
	if (((v >> 8) & 0xffffff) != 0x020001) {
		reason = "libunicorn is not 2.0.1 (internal TLB layout unknown)";
		goto off;
	}
	real_set_page = (tlb_set_page_fn)dlsym(RTLD_NEXT, "tlb_set_page_with_attrs_x86_64");
	real_set_dirty = (tlb_set_dirty_fn)dlsym(RTLD_NEXT, "tlb_set_dirty_x86_64");
	real_flush = (tlb_flush_fn)dlsym(RTLD_NEXT, "tlb_flush_x86_64");
	real_fill = (tlb_fill_fn)dlsym(RTLD_NEXT, "x86_cpu_tlb_fill_x86_64");
	real_restore = (restore_state_fn)dlsym(RTLD_NEXT, "cpu_restore_state_x86_64");
	real_flush_page = (tlb_flush_page_fn)dlsym(RTLD_NEXT, "tlb_flush_page_x86_64");
	/* AArch64 engines: the same library build, its other copy; without
	 * them their stores keep the stock path */
	a64_set_page = (tlb_set_page_fn)dlsym(RTLD_NEXT, "tlb_set_page_with_attrs_aarch64");
	a64_set_dirty = (tlb_set_dirty_fn)dlsym(RTLD_NEXT, "tlb_set_dirty_aarch64");
	a64_flush = (tlb_flush_fn)dlsym(RTLD_NEXT, "tlb_flush_aarch64");
	if (!real_set_page || !real_set_dirty || !real_flush) {
		reason = "libunicorn does not export tlb_set_page_with_attrs_x86_64/"
			 "tlb_set_dirty_x86_64/tlb_flush_x86_64";
		goto off;
	}
	if (!probe_interposition(&fill_seen)) {
		reason = "libunicorn does not call the interposed TLB fill "
			 "(binary not linked with -rdynamic?)";
		goto off;
	}
	/* page faults need the access type too: the interposed tlb_fill */
	atomic_store(&observing, fill_seen && real_fill && real_restore && real_flush_page);
	if (disable) {
		reason = "disabled by option";
		goto off;
	}
	atomic_store(&state, TLB_FAST_ON);
	goto done;
off:
	atomic_store(&state, TLB_FAST_OFF);
done:
	pthread_mutex_unlock(&once);
	if (why)
		*why = reason ? reason : (atomic_load(&state) == TLB_FAST_ON ? NULL : "off");
	return atomic_load(&state) == TLB_FAST_ON;
}

bool tlb_fast_on(void)
{
	return atomic_load(&state) == TLB_FAST_ON;
}

/* Inserts [start,end), merging neighbours. Invariant: xr sorted, disjoint,
 * no two ranges touching. */
int tlb_fast_exec_add(uint64_t start, uint64_t end)
{
	size_t i, j;

	assert(start < end);
	pthread_rwlock_wrlock(&exec_lock);
	if (nr_xr + 1 > cap_xr) {
		size_t nc = cap_xr ? cap_xr * 2 : 32;
		struct xrange *n = realloc(xr, nc * sizeof(*n));

		if (!n) {
			pthread_rwlock_unlock(&exec_lock);
			return -ENOMEM;
		}
		xr = n;
		cap_xr = nc;
	}
	/* first range that ends at or after start */
	for (i = 0; i < nr_xr && xr[i].end < start; i++)
		;
	/* ranges i..j-1 overlap or touch [start,end) */
	for (j = i; j < nr_xr && xr[j].start <= end; j++) {
		if (xr[j].start < start)
			start = xr[j].start;
		if (xr[j].end > end)
			end = xr[j].end;
	}
	if (j == i) {
		memmove(&xr[i + 1], &xr[i], (nr_xr - i) * sizeof(*xr));
		nr_xr++;
	} else if (j > i + 1) {
		memmove(&xr[i + 1], &xr[j], (nr_xr - j) * sizeof(*xr));
		nr_xr -= j - i - 1;
	}
	xr[i].start = start;
	xr[i].end = end;
	pthread_rwlock_unlock(&exec_lock);
	return 0;
}

void tlb_fast_exec_remove(uint64_t start, uint64_t end)
{
	size_t i;

	pthread_rwlock_wrlock(&exec_lock);
	for (i = 0; i < nr_xr; ) {
		struct xrange *r = &xr[i];

		if (r->end <= start || r->start >= end) {
			i++;
			continue;
		}
		if (r->start < start && r->end > end) {
			/* split in two */
			if (nr_xr + 1 > cap_xr) {
				size_t nc = cap_xr * 2;
				struct xrange *n = realloc(xr, nc * sizeof(*n));

				if (!n) {   /* keep it whole: stays conservative */
					i++;
					continue;
				}
				xr = n;
				cap_xr = nc;
				r = &xr[i];
			}
			memmove(&xr[i + 1], &xr[i], (nr_xr - i) * sizeof(*xr));
			nr_xr++;
			xr[i].end = start;
			xr[i + 1].start = end;
			break;
		}
		if (r->start < start) {
			r->end = start;
			i++;
		} else if (r->end > end) {
			r->start = end;
			i++;
		} else {
			memmove(&xr[i], &xr[i + 1], (nr_xr - i - 1) * sizeof(*xr));
			nr_xr--;
		}
	}
	pthread_rwlock_unlock(&exec_lock);
}

void tlb_fast_get_stats(struct tlb_fast_stats *s)
{
	s->fills = atomic_load(&n_fills);
	s->dirtied = atomic_load(&n_dirtied);
	s->grows = atomic_load(&n_grows);
}

