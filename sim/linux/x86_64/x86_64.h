/*
 * x86_64.h - the pieces of the x86-64 Linux ABI (sim/linux/x86_64/) that
 * its ops table (linux.c) names across files.
 */
#ifndef PMUSIM_LINUX_X86_64_H
#define PMUSIM_LINUX_X86_64_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct guest_thread;
struct guest_regs;
struct guest_fault_info;
struct guest_frame_stack;
struct guest_kernel_sigaction;
struct sig_altstack;

/* signal.c */
void x86_64_regs_read(struct guest_thread *t, struct guest_regs *r, bool in_syscall,
		      const struct guest_fault_info *fi);
void x86_64_regs_write(struct guest_thread *t, const struct guest_regs *r, bool in_syscall);
void x86_64_regs_clone_child(struct guest_regs *r, uint64_t newsp);
int x86_64_setup_frame(struct guest_thread *t, const siginfo_t *info,
		       const struct guest_kernel_sigaction *ka, uint64_t oldmask,
		       const struct sig_altstack *as, bool in_syscall,
		       const struct guest_fault_info *fi);
int x86_64_sigreturn(struct guest_thread *t, bool in_syscall, uint64_t *mask,
		     bool *mask_read, struct guest_frame_stack *ss, long *ret);

#endif
