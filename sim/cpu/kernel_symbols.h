/*
 * kernel_symbols.h - the simulated kernel's symbols (kernel_symbols.c):
 * the address its modelled kernel work samples at, and the guest's
 * /proc/kallsyms, which names that code.
 */
#ifndef PMUSIM_KERNEL_SYMBOLS_H
#define PMUSIM_KERNEL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* Where a kernel-mode overflow of a syscall's modelled work samples: the
 * host kernel's entry_SYSCALL_64, or 0xffffffff81000000 (_text without
 * KASLR) when the host hides its addresses. */
uint64_t kernel_syscall_ip(void);
/* Where a sample of an idle CPU lands (the timer interrupted the idle
 * task): the host kernel's default_idle, or kernel_syscall_ip()'s address
 * when the host has none or hides it. */
uint64_t kernel_idle_ip(void);

/*
 * The guest's /proc/kallsyms: the host's lines for the simulated kernel's
 * symbols, in the host's order (see kernel_symbols.c). Copies at most cap
 * bytes into buf and returns the full length.
 */
size_t kernel_kallsyms_text(char *buf, size_t cap);

#endif
