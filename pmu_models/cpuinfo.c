/*
 * cpuinfo.c - /proc/cpuinfo of a modelled CPU, as arch/x86/kernel/cpu/proc.c
 * show_cpuinfo() writes it: identity from the model, the flags from the
 * CPUID bits the CPU answers (arch/x86/include/asm/cpufeatures.h names).
 * The caller supplies the CPUID answers: the emulator decides which
 * feature bits the modelled CPU really has.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "pmu_models/pmu_model.h"

/* /proc/cpuinfo flag names of CPUID bits (arch/x86/include/asm/cpufeatures.h). */
struct flag { uint32_t leaf; int reg; int bit; const char *name; };

static const struct flag flags[] = {
	{ 1, 3, 0, "fpu" }, { 1, 3, 1, "vme" }, { 1, 3, 2, "de" }, { 1, 3, 3, "pse" },
	{ 1, 3, 4, "tsc" }, { 1, 3, 5, "msr" }, { 1, 3, 6, "pae" }, { 1, 3, 7, "mce" },
	{ 1, 3, 8, "cx8" }, { 1, 3, 9, "apic" }, { 1, 3, 11, "sep" }, { 1, 3, 12, "mtrr" },
	{ 1, 3, 13, "pge" }, { 1, 3, 14, "mca" }, { 1, 3, 15, "cmov" }, { 1, 3, 16, "pat" },
	{ 1, 3, 17, "pse36" }, { 1, 3, 19, "clflush" }, { 1, 3, 23, "mmx" },
	{ 1, 3, 24, "fxsr" }, { 1, 3, 25, "sse" }, { 1, 3, 26, "sse2" }, { 1, 3, 27, "ss" },
	{ 1, 3, 28, "ht" },
	{ 0x80000001u, 3, 11, "syscall" }, { 0x80000001u, 3, 20, "nx" },
	{ 0x80000001u, 3, 22, "mmxext" }, { 0x80000001u, 3, 25, "fxsr_opt" },
	{ 0x80000001u, 3, 26, "pdpe1gb" }, { 0x80000001u, 3, 27, "rdtscp" },
	{ 0x80000001u, 3, 29, "lm" },
	{ 0, 0, 0, "constant_tsc" },
	{ 0, 0, 1, "arch_perfmon" },
	{ 1, 2, 0, "pni" }, { 1, 2, 1, "pclmulqdq" }, { 1, 2, 3, "monitor" },
	{ 1, 2, 9, "ssse3" }, { 1, 2, 12, "fma" }, { 1, 2, 13, "cx16" },
	{ 1, 2, 15, "pdcm" }, { 1, 2, 19, "sse4_1" }, { 1, 2, 20, "sse4_2" },
	{ 1, 2, 22, "movbe" }, { 1, 2, 23, "popcnt" }, { 1, 2, 25, "aes" },
	{ 1, 2, 26, "xsave" }, { 1, 2, 28, "avx" }, { 1, 2, 30, "rdrand" },
	{ 1, 2, 31, "hypervisor" },
	{ 0x80000001u, 2, 0, "lahf_lm" }, { 0x80000001u, 2, 5, "abm" },
	{ 0x80000001u, 2, 6, "sse4a" }, { 0x80000001u, 2, 23, "perfctr_core" },
	{ 7, 1, 0, "fsgsbase" }, { 7, 1, 3, "bmi1" }, { 7, 1, 5, "avx2" },
	{ 7, 1, 8, "bmi2" }, { 7, 1, 9, "erms" }, { 7, 1, 18, "rdseed" },
	{ 7, 1, 19, "adx" }, { 7, 1, 20, "smap" }, { 7, 1, 23, "clflushopt" },
	{ 0x80000022u, 0, 0, "perfmon_v2" },
};

size_t pmu_model_cpuinfo(const struct pmu_model *m, unsigned ncpus, pmu_cpuid_fn cpuid,
			 char *buf, size_t len)
{
	uint32_t l0[4], l1[4], b[4];
	char vendor[13] = { 0 }, brand[49] = { 0 };
	size_t off = 0;
	unsigned family, model, stepping;
	double mhz;
	uint32_t max_ext;

	cpuid(m, 0x80000000u, 0, b);
	max_ext = b[0];
	cpuid(m, 0, 0, l0);
	memcpy(vendor, &l0[1], 4);
	memcpy(vendor + 4, &l0[3], 4);
	memcpy(vendor + 8, &l0[2], 4);
	cpuid(m, 1, 0, l1);
	family = (l1[0] >> 8) & 0xf;
	if (family == 0xf)
		family += (l1[0] >> 20) & 0xff;
	model = (l1[0] >> 4) & 0xf;
	if (family == 6 || family >= 0xf)
		model |= ((l1[0] >> 16) & 0xf) << 4;
	stepping = l1[0] & 0xf;
	for (uint32_t i = 0; i < 3; i++) {
		cpuid(m, 0x80000002u + i, 0, b);
		memcpy(brand + 16 * i, b, 16);
	}
	mhz = (m && m->freq_hz ? m->freq_hz : 3000000000ull) / 1e6;

#define OUT(...) do { \
		int _n = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__); \
		if (_n > 0) off += (size_t)_n; \
	} while (0)
	for (unsigned cpu = 0; cpu < ncpus; cpu++) {
		OUT("processor\t: %u\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n"
		    "model name\t: %s\nstepping\t: %u\nmicrocode\t: 0x1\ncpu MHz\t\t: %.3f\n"
		    "cache size\t: 8192 KB\nphysical id\t: 0\nsiblings\t: %u\ncore id\t\t: %u\n"
		    "cpu cores\t: %u\napicid\t\t: %u\ninitial apicid\t: %u\nfpu\t\t: yes\n"
		    "fpu_exception\t: yes\ncpuid level\t: %u\nwp\t\t: yes\nflags\t\t:",
		    cpu, vendor, family, model, brand, stepping, mhz, ncpus, cpu, ncpus,
		    cpu, cpu, l0[0]);
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
			const struct flag *f = &flags[i];
			bool on;

			if (f->leaf == 0) {
				/* Linux synthetic flags */
				if (f->bit == 0)
					on = true;   /* the virtual TSC is constant-rate */
				else {
					uint32_t a[4];

					cpuid(m, 0xa, 0, a);
					on = m && m->arch == PMU_ARCH_X86_INTEL && (a[0] & 0xff) != 0;
				}
			} else {
				uint32_t r[4];

				cpuid(m, f->leaf, 0, r);
				if (f->leaf >= 0x80000000u && f->leaf > max_ext)
					on = false;
				else
					on = (r[f->reg] >> f->bit) & 1;
			}
			if (on)
				OUT(" %s", f->name);
		}
		OUT("\nbugs\t\t:\nbogomips\t: %.2f\nclflush size\t: 64\ncache_alignment\t: 64\n"
		    "address sizes\t: 40 bits physical, 48 bits virtual\npower management:\n\n",
		    mhz * 2);
	}
#undef OUT
	return off;
}
