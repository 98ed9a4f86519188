/*
 * kernel_symbols.c - the simulated kernel's symbols: the code its modelled
 * kernel work stands for, at the host kernel's addresses.
 *
 * The guest's kernel is the simulated one: the only kernel code its
 * samples can land in is the modelled syscall path (pmu_machine.c's
 * kernel paths, sampled at entry_SYSCALL_64) and the idle loop (a CPU-wide
 * cpu-clock sample on an idle CPU, at default_idle). Its /proc/kallsyms lists
 * that code and the marks perf places the kernel map by
 * (machine__get_running_kernel_start(): _text or _stext, then _etext), at
 * the host's addresses, so that a perf.data recorded in the guest
 * resolves the same against the host's kernel. Serving the host's 122k
 * symbols instead made emulated perf parse 5.4 MB several times at start
 * (docs/machine-counting.md, perf test 109).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/cpu/kernel_symbols.h"

/* The simulated kernel's symbols, as named in the host's kallsyms. */
static const char *const kernel_symbol_names[] = {
	"_text",            /* perf's reference symbol (ref_reloc_sym) */
	"_stext",           /* its fallback */
	"entry_SYSCALL_64", /* the modelled syscall entry and exit work */
	"default_idle",     /* the idle loop (x86 default_idle()) */
	"_etext",           /* the end of the kernel map */
};
#define NR_KERNEL_SYMBOLS (sizeof(kernel_symbol_names) / sizeof(kernel_symbol_names[0]))
#define KALLSYMS_LINE_MAX 160

/* Built once (pthread_once): the lines found, in the host's order. */
static struct {
	char text[NR_KERNEL_SYMBOLS * KALLSYMS_LINE_MAX];
	size_t len;
	uint64_t syscall_ip, idle_ip;
} symbols;
static pthread_once_t symbols_once = PTHREAD_ONCE_INIT;

/* The index in kernel_symbol_names of a line's name (a line of the core
 * kernel: "ADDR TYPE NAME", no module), or -1. *addr is its address. The
 * name is compared first: the host has some 120k lines to pass over. */
static int kernel_symbol_of(const char *line, uint64_t *addr)
{
	const char *sp = strchr(line, ' '), *name = sp ? strchr(sp + 1, ' ') : NULL;
	size_t len;

	if (!name)
		return -1;
	name++;
	len = strcspn(name, "\t\n");
	if (name[len] == '\t')          /* a module's symbol */
		return -1;
	for (size_t i = 0; i < NR_KERNEL_SYMBOLS; i++)
		if (strlen(kernel_symbol_names[i]) == len &&
		    !memcmp(name, kernel_symbol_names[i], len)) {
			*addr = strtoull(line, NULL, 16);
			return (int)i;
		}
	return -1;
}

/* Reads the host's kallsyms up to the last of the simulated kernel's
 * symbols (all of it when one is missing: an empty file if unreadable). */
static void build_symbols(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char *line = NULL;
	size_t cap = 0, found = 0;
	bool seen[NR_KERNEL_SYMBOLS] = { 0 };

	symbols.syscall_ip = 0;
	while (f && found < NR_KERNEL_SYMBOLS && getline(&line, &cap, f) > 0) {
		uint64_t addr;
		int i = kernel_symbol_of(line, &addr);
		size_t n = strlen(line);

		if (i < 0 || seen[i] || n >= KALLSYMS_LINE_MAX)
			continue;
		seen[i] = true;
		found++;
		memcpy(symbols.text + symbols.len, line, n);
		symbols.len += n;
		if (!strcmp(kernel_symbol_names[i], "entry_SYSCALL_64"))
			symbols.syscall_ip = addr;
		if (!strcmp(kernel_symbol_names[i], "default_idle"))
			symbols.idle_ip = addr;
	}
	free(line);
	if (f)
		fclose(f);
	/* kptr_restrict: the addresses read as 0 */
	if (!symbols.syscall_ip)
		symbols.syscall_ip = 0xffffffff81000000ull;
	if (!symbols.idle_ip)
		symbols.idle_ip = symbols.syscall_ip;
}

uint64_t kernel_syscall_ip(void)
{
	pthread_once(&symbols_once, build_symbols);
	return symbols.syscall_ip;
}

uint64_t kernel_idle_ip(void)
{
	pthread_once(&symbols_once, build_symbols);
	return symbols.idle_ip;
}

size_t kernel_kallsyms_text(char *buf, size_t cap)
{
	pthread_once(&symbols_once, build_symbols);
	memcpy(buf, symbols.text, symbols.len < cap ? symbols.len : cap);
	return symbols.len;
}
