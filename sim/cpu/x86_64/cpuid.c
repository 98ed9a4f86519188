/*
 * cpuid.c - CPUID of the modelled CPU (its /proc/cpuinfo is the model's
 * pmu_model_cpuinfo() over these answers).
 *
 * Feature leaves are what the emulated CPU (Unicorn's qemu64 TCG model)
 * really implements, probed once on a scratch engine, so the guest never
 * selects code paths the emulator cannot run. Identity and performance
 * monitoring leaves come from the PMU model: vendor (leaf 0), family/model/
 * stepping (leaf 1 EAX), brand string (0x80000002-4), architectural perfmon
 * (leaf 0xA) for Intel, PerfCtrExtCore (0x80000001 ECX[23]) and PerfMonV2
 * (0x80000022) for AMD, as arch/x86/events/{intel,amd}/core.c read them.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unicorn/unicorn.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/scratch_engine.h"
#include "sim/cpu/vcpu.h"

#define NR_STD 0x20
#define NR_EXT 0x23
#define NR_SUB 4

static uint32_t native_std[NR_STD][NR_SUB][4];
static uint32_t native_ext[NR_EXT][4];
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

#define NR_PROBES (NR_STD * NR_SUB + NR_EXT)
#define PROBE_IN  0x100   /* (leaf, subleaf) pairs, 8 bytes each */
#define PROBE_OUT 0x800   /* EAX, EBX, ECX, EDX for each pair */
#define PROBE_LEN 0x2000

/*
 * One pass over every (leaf, subleaf) pair: RSI walks the pairs, RDI the
 * answers, R8D counts down; the run stops at the HLT. A single
 * uc_emu_start instead of one per leaf: each start costs about 20,000
 * host instructions, the whole probe used to be 3.5M of a 23M `pmusim
 * run` launcher.
 */
static const uint8_t probe_code[] = {
	0x8b, 0x06,                     /* loop: mov eax, [rsi] */
	0x8b, 0x4e, 0x04,               /* mov ecx, [rsi+4] */
	0x0f, 0xa2,                     /* cpuid */
	0x89, 0x07,                     /* mov [rdi], eax */
	0x89, 0x5f, 0x04,               /* mov [rdi+4], ebx */
	0x89, 0x4f, 0x08,               /* mov [rdi+8], ecx */
	0x89, 0x57, 0x0c,               /* mov [rdi+12], edx */
	0x48, 0x83, 0xc6, 0x08,         /* add rsi, 8 */
	0x48, 0x83, 0xc7, 0x10,         /* add rdi, 16 */
	0x41, 0xff, 0xc8,               /* dec r8d */
	0x75, 0xe1,                     /* jnz loop */
	0xf4,                           /* hlt */
};

/* Fills native_std/native_ext from CPUID as the scratch engine runs it; all
 * zero if the engine cannot run the probe. */
static void probe_native(void)
{
	uc_engine *uc;
	uint8_t *mem;
	uint32_t *in, (*out)[4];
	uint64_t code, rsi, rdi, r8 = NR_PROBES;
	unsigned n = 0;
	bool ran;

	_Static_assert(PROBE_IN + NR_PROBES * 8 <= PROBE_OUT, "probe pairs overlap the answers");
	_Static_assert(PROBE_OUT + NR_PROBES * 16 <= PROBE_LEN, "probe answers overrun the page");
	mem = mmap(NULL, PROBE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return;
	memcpy(mem, probe_code, sizeof(probe_code));
	in = (uint32_t *)(mem + PROBE_IN);
	out = (uint32_t (*)[4])(mem + PROBE_OUT);
	for (uint32_t l = 0; l < NR_STD; l++)
		for (uint32_t s = 0; s < NR_SUB; s++, n++) {
			in[2 * n] = l;
			in[2 * n + 1] = s;
		}
	for (uint32_t l = 0; l < NR_EXT; l++, n++) {
		in[2 * n] = 0x80000000u + l;
		in[2 * n + 1] = 0;
	}
	code = (uint64_t)(uintptr_t)mem;
	rsi = code + PROBE_IN;
	rdi = code + PROBE_OUT;
	scratch_engine_begin();
	if (uc_open(UC_ARCH_X86, UC_MODE_64, &uc) != UC_ERR_OK) {
		scratch_engine_end();
		goto out;
	}
	ran = uc_mem_map_ptr(uc, code, PROBE_LEN, UC_PROT_ALL, mem) == UC_ERR_OK &&
	      uc_reg_write(uc, UC_X86_REG_RSI, &rsi) == UC_ERR_OK &&
	      uc_reg_write(uc, UC_X86_REG_RDI, &rdi) == UC_ERR_OK &&
	      uc_reg_write(uc, UC_X86_REG_R8, &r8) == UC_ERR_OK &&
	      uc_emu_start(uc, code, code + sizeof(probe_code) - 1, 0, 0) == UC_ERR_OK;
	uc_close(uc);
	scratch_engine_end();
	if (!ran)
		goto out;
	n = 0;
	for (uint32_t l = 0; l < NR_STD; l++)
		for (uint32_t s = 0; s < NR_SUB; s++, n++)
			memcpy(native_std[l][s], out[n], sizeof(out[n]));
	for (uint32_t l = 0; l < NR_EXT; l++, n++)
		memcpy(native_ext[l], out[n], sizeof(out[n]));
	/*
	 * Unicorn 2.0.1 reports leaf 1 EDX without FPU, TSC, MMX... and
	 * 0x80000001 EDX without SYSCALL/NX although TCG executes them
	 * ungated (x87, MMX, TSC, SYSCALL via EFER.SCE, NX via EFER.NXE);
	 * glibc's baseline ISA check needs them. Add qemu64's basic set.
	 * Feature bits TCG does gate (SSE3+, POPCNT, ...) stay as probed.
	 */
	native_std[1][0][3] |= 0x078bfbffu;
	native_ext[1][3] |= (1u << 11) | (1u << 20);
out:
	munmap(mem, PROBE_LEN);
}

static void put_str4(uint32_t *r, const char *s)
{
	memcpy(r, s, 4);
}

/* CPUID.1:EAX signature from family/model/stepping (Intel SDM Vol. 2A, CPUID). */
static uint32_t signature(unsigned family, unsigned model, unsigned stepping)
{
	uint32_t eax = stepping & 0xf;

	if (family >= 0xf) {
		eax |= 0xfu << 8;
		eax |= ((family - 0xf) & 0xff) << 20;
	} else {
		eax |= (family & 0xf) << 8;
	}
	eax |= (model & 0xf) << 4;
	if (family == 6 || family >= 0xf)
		eax |= ((model >> 4) & 0xf) << 16;
	return eax;
}

static bool is_intel(const struct pmu_model *m)
{
	return m && m->arch == PMU_ARCH_X86_INTEL;
}

static bool is_amd(const struct pmu_model *m)
{
	return m && m->arch == PMU_ARCH_X86_AMD;
}

/* Highest extended leaf we answer for m. */
static uint32_t max_ext(const struct pmu_model *m)
{
	uint32_t nat = native_ext[0][0];

	if (is_amd(m) && m->cpu.perfmon_version >= 2 && nat < 0x80000022u)
		return 0x80000022u;
	return nat;
}

void cpuid_answer(const struct pmu_model *m, uint32_t leaf, uint32_t sub, uint32_t out[4])
{
	pthread_once(&probe_once, probe_native);
	memset(out, 0, 4 * sizeof(uint32_t));

	if (leaf < 0x80000000u) {
		uint32_t maxstd = native_std[0][0][0];

		if (is_intel(m) && m->cpu.perfmon_version && maxstd < 0xa)
			maxstd = 0xa;
		if (leaf > maxstd)   /* Intel: answers as the highest basic leaf */
			leaf = maxstd;
		if (leaf < NR_STD)
			memcpy(out, native_std[leaf][sub < NR_SUB ? sub : 0], 4 * sizeof(uint32_t));
	} else if (leaf <= max_ext(m) && leaf - 0x80000000u < NR_EXT) {
		memcpy(out, native_ext[leaf - 0x80000000u], 4 * sizeof(uint32_t));
	}
	if (!m || (m->arch != PMU_ARCH_X86_INTEL && m->arch != PMU_ARCH_X86_AMD))
		return;

	switch (leaf) {
	case 0:
		if (is_intel(m) && m->cpu.perfmon_version && out[0] < 0xa)
			out[0] = 0xa;
		if (m->cpu.vendor && strlen(m->cpu.vendor) == 12) {
			put_str4(&out[1], m->cpu.vendor);
			put_str4(&out[3], m->cpu.vendor + 4);
			put_str4(&out[2], m->cpu.vendor + 8);
		}
		break;
	case 1:
		out[0] = signature(m->cpu.family, m->cpu.model, m->cpu.stepping);
		break;
	case 0xa:
		/* Architectural perfmon (intel_pmu_init(): cpuid10_eax/edx) */
		if (is_intel(m) && m->cpu.perfmon_version) {
			out[0] = (m->cpu.perfmon_version & 0xff) |
				 (m->nr_gp_counters & 0xff) << 8 |
				 (m->gp_width & 0xff) << 16 |
				 7u << 24;      /* EBX bit vector length */
			out[1] = 0;            /* all 7 architectural events present */
			out[2] = 0;
			out[3] = m->cpu.perfmon_version > 1 ?
				 ((m->nr_fixed_counters & 0x1f) |
				  (m->fixed_width & 0xff) << 5) : 0;
		} else {
			memset(out, 0, 4 * sizeof(uint32_t));
		}
		break;
	case 0x80000000u:
		out[0] = max_ext(m);
		if (is_amd(m) && m->cpu.vendor && strlen(m->cpu.vendor) == 12) {
			put_str4(&out[1], m->cpu.vendor);
			put_str4(&out[3], m->cpu.vendor + 4);
			put_str4(&out[2], m->cpu.vendor + 8);
		} else {
			out[1] = out[2] = out[3] = 0;
		}
		break;
	case 0x80000001u:
		out[0] = signature(m->cpu.family, m->cpu.model, m->cpu.stepping);
		/* PerfCtrExtCore: amd_core_pmu_init() needs it for 6 counters */
		if (is_amd(m) && m->nr_gp_counters >= 6)
			out[2] |= 1u << 23;
		else
			out[2] &= ~(1u << 23);
		break;
	case 0x80000002u:
	case 0x80000003u:
	case 0x80000004u: {
		char brand[48] = { 0 };

		if (m->cpu.brand)
			strncpy(brand, m->cpu.brand, sizeof(brand) - 1);
		memcpy(out, brand + 16 * (leaf - 0x80000002u), 16);
		break;
	}
	case 0x80000022u:
		/* AMD PerfMonV2 (amd_pmu_v2 path of amd_core_pmu_init()) */
		if (is_amd(m) && m->cpu.perfmon_version >= 2) {
			out[0] = 1;                             /* PerfMonV2 */
			out[1] = m->nr_gp_counters & 0xf;       /* NumPerfCtrCore */
			out[2] = 0;
			out[3] = 0;
		}
		break;
	default:
		break;
	}
}
