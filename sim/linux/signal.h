/*
 * signal.h - guest signals: dispositions, masks, pending queues, delivery on
 * the architecture's rt_sigframes (linux_arch.h), rt_sigreturn, default actions, and the guest's
 * death by a signal reproduced by the pmusim process.
 *
 * Model (one guest process per host process, one host thread per guest
 * thread, guest tids are host tids):
 *  - Dispositions are process-wide (signal.c globals). The host disposition
 *    mirrors the guest's: SIG_DFL -> SIG_DFL (the host kernel then does the
 *    default action to pmusim itself: terminate, core, stop, ignore, exactly
 *    what the guest would get), SIG_IGN -> SIG_IGN, a guest handler -> the
 *    pmusim catcher, which queues the host siginfo on the thread and stops
 *    the thread's engine (uc_emu_stop, async-signal-safe).
 *  - Each guest thread's blocked mask is mirrored into its host thread's
 *    mask, so the host kernel picks the receiving thread of a process-
 *    directed signal and keeps blocked signals pending, as it would for the
 *    native program.
 *  - kill/tgkill/tkill/rt_sigqueueinfo pass to the host: the host kernel
 *    fills the siginfo (si_pid, si_uid, si_code) the guest then sees.
 *  - Synchronous faults of the guest (no host fault happens) are delivered
 *    directly from guest_signal_fault() with force_sig_fault() semantics.
 *  - Host syscalls run with the catcher installed without SA_RESTART, so a
 *    host signal interrupts them with EINTR; signal_syscall_restart() turns
 *    that into the kernel's -ERESTART* outcome (restart or -EINTR).
 */
#ifndef PMUSIM_SIGNAL_H
#define PMUSIM_SIGNAL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct guest_thread;
struct guest_process;

#define GUEST_NSIG 64
/* SA_RESTORER: the same bit on x86-64 and arm64 (uapi/asm/signal.h). */
#define K_SA_RESTORER 0x04000000ull

/* The kernel's struct sigaction for x86-64 (include/linux/signal_types.h,
 * rt_sigaction ABI): what the guest passes. */
struct guest_kernel_sigaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

/* Kernel's restart classes of an interrupted syscall (restart_syscall()). */
enum sig_restart {
	SIG_RESTART_SYS = 0,       /* -ERESTARTSYS: restart iff SA_RESTART */
	SIG_RESTART_NOHAND,        /* -ERESTARTNOHAND / RESTART_RESTARTBLOCK: EINTR if a handler ran */
	SIG_RESTART_NEVER,         /* returns -EINTR as is */
};

/*
 * Process start: seeds the guest's dispositions and mask from the host's
 * (SIG_IGN and the blocked mask survive execve, also through pmusim's own
 * re-exec), then installs what the guest state needs. Call once per host
 * process, on the thread that will run the first guest thread.
 */
int signal_process_init(struct guest_process *p);

/* Binds t to the calling host thread (thread-local) and allocates its
 * signal state; called on the host thread that runs t, before it runs. */
int signal_thread_init(struct guest_thread *t);
void signal_thread_fini(struct guest_thread *t);

/* After fork in the child: only t survives. */
void signal_after_fork_child(struct guest_thread *t);

/* The host tid of pmusim's own helper thread in this process (the
 * watchdog), 0 if there is none: a thread the guest's /proc must not show. */
int signal_helper_tid(void);

/*
 * After a syscall handler returned ret for syscall nr: if ret is -EINTR from
 * an interrupted host call, decide per the kernel's restart rules. Returns
 * the value the guest sees in RAX; when the call must be restarted it moves
 * RIP back onto the SYSCALL (RIP must point after it) and returns nr.
 */
long signal_syscall_restart(struct guest_thread *t, unsigned long nr,
			    const uint64_t a[6], long ret);

/* The dispatcher brackets each syscall handler with these (the SYSCALL hook
 * context: RIP there is the SYSCALL's own address, see vcpu_syscall_set_rip). */
/* Returns nonzero when a deliverable signal is already queued: the call is
 * then not run; the dispatcher returns -SIG_ERESTARTNOINTR, which always
 * restarts it after the handler (the kernel would have delivered the
 * signal before the SYSCALL executed). */
int signal_syscall_enter(struct guest_thread *t);
#define SIG_ERESTARTNOINTR 513             /* include/linux/errno.h */
void signal_syscall_exit(struct guest_thread *t);
/* At the end of the SYSCALL hook, RAX written: delivers what is pending. */
void signal_syscall_return(struct guest_thread *t);

/* Around pmusim's re-exec for execve: caught, undelivered signals become
 * host-pending again; after a failed exec they come back. */
void signal_before_exec(struct guest_thread *t);
void signal_exec_failed(struct guest_thread *t);

/* The guest's exit is decided: no signal may change its status any more. */
void signal_exit_begin(void);

/* Kills the pmusim process by sig as the guest would die: the host handler
 * reset to SIG_DFL, the signal unblocked, raised. Never returns. */
__attribute__((noreturn)) void signal_die(int sig);

/*
 * Queues sig with a kernel-made siginfo (si_code >= 0, as send_sigio()
 * builds) to thread tid of process pid (tid 0: the process). Returns 0 or
 * -errno.
 */
long signal_send_kernel_info(pid_t pid, pid_t tid, int sig, const siginfo_t *si);
/* send_sig_perf(): attr.sigtrap's SIGTRAP (TRAP_PERF, addr, the event's
 * type and sig_data) to the calling thread t, taken at its next stop. */
void signal_send_perf(struct guest_thread *t, uint64_t addr, uint32_t type, uint64_t data);

/* Default action class of sig (kernel sig_kernel_*()). */
enum sig_default { SIGDFL_TERM, SIGDFL_CORE, SIGDFL_IGN, SIGDFL_STOP };
enum sig_default signal_default_action(int sig);

/* A host syscall for the guest that may sleep: not run, returning
 * -SIG_ERESTARTNOINTR, when a signal was caught since the syscall began
 * (qemu's safe_syscall). Returns the raw result (negative errno). */
long signal_host_syscall(struct guest_thread *t, long nr, const uint64_t a[6]);

/* The guest registers of t as its architecture's signal frame saves them
 * (PC as the guest sees it; linux_arch.h) and their inverse; used to start
 * a cloned thread. */
struct guest_regs;
void signal_regs_read(struct guest_thread *t, struct guest_regs *r);
void signal_regs_write(struct guest_thread *t, const struct guest_regs *r);

/* The syscalls (syscall table handlers). */
long sys_rt_sigaction(struct guest_thread *t, const uint64_t a[6]);
long sys_rt_sigprocmask(struct guest_thread *t, const uint64_t a[6]);
long sys_rt_sigreturn(struct guest_thread *t, const uint64_t a[6]);
long sys_sigaltstack(struct guest_thread *t, const uint64_t a[6]);
long sys_rt_sigpending(struct guest_thread *t, const uint64_t a[6]);
long sys_rt_sigsuspend(struct guest_thread *t, const uint64_t a[6]);
long sys_rt_sigtimedwait(struct guest_thread *t, const uint64_t a[6]);
long sys_pause(struct guest_thread *t, const uint64_t a[6]);
long sys_kill(struct guest_thread *t, const uint64_t a[6]);
long sys_tgkill(struct guest_thread *t, const uint64_t a[6]);
long sys_tkill(struct guest_thread *t, const uint64_t a[6]);
long sys_rt_sigqueueinfo(struct guest_thread *t, const uint64_t a[6]);
long sys_rt_tgsigqueueinfo(struct guest_thread *t, const uint64_t a[6]);
long sys_setitimer(struct guest_thread *t, const uint64_t a[6]);
long sys_getitimer(struct guest_thread *t, const uint64_t a[6]);
long sys_alarm(struct guest_thread *t, const uint64_t a[6]);
long sys_signalfd4(struct guest_thread *t, const uint64_t a[6]);
long sys_signalfd(struct guest_thread *t, const uint64_t a[6]);

#endif
