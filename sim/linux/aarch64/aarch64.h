/*
 * aarch64.h - the pieces of the AArch64 Linux ABI (sim/linux/aarch64/)
 * that its ops table (linux.c) names across files.
 */
#ifndef PMUSIM_LINUX_AARCH64_H
#define PMUSIM_LINUX_AARCH64_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "sim/linux/guest.h"

struct guest_thread;
struct guest_regs;
struct guest_fault_info;
struct guest_frame_stack;
struct guest_kernel_sigaction;
struct sig_altstack;

/* The registers a frame saves (struct guest_regs' bytes). */
struct aarch64_regs {
	uint64_t x[31], sp, pc, pstate;
	uint64_t fault_address, esr;
	_Alignas(16) uint8_t v[32][16];
	uint64_t fpsr, fpcr;
};

/* syscalls.c: the rows that convert arm64 layouts */
extern const struct guest_syscall_entry aarch64_syscall_overrides[GUEST_NR_SYSCALLS];

/* syscall_nr.c: the generic table's numbers, onto x86-64's (-1: none) */
#define AARCH64_NR_SYSCALLS 452
long aarch64_syscall_to_x86_64(unsigned long nr);

/* linux.c: the ESR of the fault fi describes (its x86 trap terms) */
uint64_t aarch64_esr_of(const struct guest_fault_info *fi);

/* signal.c */
void aarch64_regs_read(struct guest_thread *t, struct guest_regs *r, bool in_syscall,
		       const struct guest_fault_info *fi);
void aarch64_regs_write(struct guest_thread *t, const struct guest_regs *r, bool in_syscall);
void aarch64_regs_clone_child(struct guest_regs *r, uint64_t newsp);
int aarch64_setup_frame(struct guest_thread *t, const siginfo_t *info,
			const struct guest_kernel_sigaction *ka, uint64_t oldmask,
			const struct sig_altstack *as, bool in_syscall,
			const struct guest_fault_info *fi);
int aarch64_sigreturn(struct guest_thread *t, bool in_syscall, uint64_t *mask,
		      bool *mask_read, struct guest_frame_stack *ss, long *ret);

#endif
