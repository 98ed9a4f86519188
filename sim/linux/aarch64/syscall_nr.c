/*
 * aarch64/syscall_nr.c - the AArch64 syscall numbers (the generic table of
 * include/uapi/asm-generic/unistd.h, which arm64 uses) mapped by name onto
 * the x86-64 numbers the Linux layer's handlers are indexed by. Every
 * generic call has an x86-64 twin of the same name.
 */
#include <sys/syscall.h>
#include "sim/linux/aarch64/aarch64.h"

/* [aarch64 number] = x86-64 number + 1 (0: no such call) */
#define A(nr, name) [nr] = __NR_##name + 1

static const unsigned short to_x86_64[AARCH64_NR_SYSCALLS] = {
	A(0, io_setup), A(1, io_destroy), A(2, io_submit), A(3, io_cancel),
	A(4, io_getevents), A(5, setxattr), A(6, lsetxattr), A(7, fsetxattr),
	A(8, getxattr), A(9, lgetxattr), A(10, fgetxattr), A(11, listxattr),
	A(12, llistxattr), A(13, flistxattr), A(14, removexattr),
	A(15, lremovexattr), A(16, fremovexattr), A(17, getcwd),
	A(18, lookup_dcookie), A(19, eventfd2), A(20, epoll_create1),
	A(21, epoll_ctl), A(22, epoll_pwait), A(23, dup), A(24, dup3), A(25, fcntl),
	A(26, inotify_init1), A(27, inotify_add_watch), A(28, inotify_rm_watch),
	A(29, ioctl), A(30, ioprio_set), A(31, ioprio_get), A(32, flock),
	A(33, mknodat), A(34, mkdirat), A(35, unlinkat), A(36, symlinkat),
	A(37, linkat), A(38, renameat), A(39, umount2), A(40, mount),
	A(41, pivot_root), A(42, nfsservctl), A(43, statfs), A(44, fstatfs),
	A(45, truncate), A(46, ftruncate), A(47, fallocate), A(48, faccessat),
	A(49, chdir), A(50, fchdir), A(51, chroot), A(52, fchmod), A(53, fchmodat),
	A(54, fchownat), A(55, fchown), A(56, openat), A(57, close), A(58, vhangup),
	A(59, pipe2), A(60, quotactl), A(61, getdents64), A(62, lseek), A(63, read),
	A(64, write), A(65, readv), A(66, writev), A(67, pread64), A(68, pwrite64),
	A(69, preadv), A(70, pwritev), A(71, sendfile), A(72, pselect6),
	A(73, ppoll), A(74, signalfd4), A(75, vmsplice), A(76, splice), A(77, tee),
	A(78, readlinkat), A(79, newfstatat), A(80, fstat), A(81, sync),
	A(82, fsync), A(83, fdatasync), A(84, sync_file_range),
	A(85, timerfd_create), A(86, timerfd_settime), A(87, timerfd_gettime),
	A(88, utimensat), A(89, acct), A(90, capget), A(91, capset),
	A(92, personality), A(93, exit), A(94, exit_group), A(95, waitid),
	A(96, set_tid_address), A(97, unshare), A(98, futex), A(99, set_robust_list),
	A(100, get_robust_list), A(101, nanosleep), A(102, getitimer),
	A(103, setitimer), A(104, kexec_load), A(105, init_module),
	A(106, delete_module), A(107, timer_create), A(108, timer_gettime),
	A(109, timer_getoverrun), A(110, timer_settime), A(111, timer_delete),
	A(112, clock_settime), A(113, clock_gettime), A(114, clock_getres),
	A(115, clock_nanosleep), A(116, syslog), A(117, ptrace),
	A(118, sched_setparam), A(119, sched_setscheduler),
	A(120, sched_getscheduler), A(121, sched_getparam),
	A(122, sched_setaffinity), A(123, sched_getaffinity), A(124, sched_yield),
	A(125, sched_get_priority_max), A(126, sched_get_priority_min),
	A(127, sched_rr_get_interval), A(128, restart_syscall), A(129, kill),
	A(130, tkill), A(131, tgkill), A(132, sigaltstack), A(133, rt_sigsuspend),
	A(134, rt_sigaction), A(135, rt_sigprocmask), A(136, rt_sigpending),
	A(137, rt_sigtimedwait), A(138, rt_sigqueueinfo), A(139, rt_sigreturn),
	A(140, setpriority), A(141, getpriority), A(142, reboot), A(143, setregid),
	A(144, setgid), A(145, setreuid), A(146, setuid), A(147, setresuid),
	A(148, getresuid), A(149, setresgid), A(150, getresgid), A(151, setfsuid),
	A(152, setfsgid), A(153, times), A(154, setpgid), A(155, getpgid),
	A(156, getsid), A(157, setsid), A(158, getgroups), A(159, setgroups),
	A(160, uname), A(161, sethostname), A(162, setdomainname), A(163, getrlimit),
	A(164, setrlimit), A(165, getrusage), A(166, umask), A(167, prctl),
	A(168, getcpu), A(169, gettimeofday), A(170, settimeofday), A(171, adjtimex),
	A(172, getpid), A(173, getppid), A(174, getuid), A(175, geteuid),
	A(176, getgid), A(177, getegid), A(178, gettid), A(179, sysinfo),
	A(180, mq_open), A(181, mq_unlink), A(182, mq_timedsend),
	A(183, mq_timedreceive), A(184, mq_notify), A(185, mq_getsetattr),
	A(186, msgget), A(187, msgctl), A(188, msgrcv), A(189, msgsnd),
	A(190, semget), A(191, semctl), A(192, semtimedop), A(193, semop),
	A(194, shmget), A(195, shmctl), A(196, shmat), A(197, shmdt), A(198, socket),
	A(199, socketpair), A(200, bind), A(201, listen), A(202, accept),
	A(203, connect), A(204, getsockname), A(205, getpeername), A(206, sendto),
	A(207, recvfrom), A(208, setsockopt), A(209, getsockopt), A(210, shutdown),
	A(211, sendmsg), A(212, recvmsg), A(213, readahead), A(214, brk),
	A(215, munmap), A(216, mremap), A(217, add_key), A(218, request_key),
	A(219, keyctl), A(220, clone), A(221, execve), A(222, mmap),
	A(223, fadvise64), A(224, swapon), A(225, swapoff), A(226, mprotect),
	A(227, msync), A(228, mlock), A(229, munlock), A(230, mlockall),
	A(231, munlockall), A(232, mincore), A(233, madvise),
	A(234, remap_file_pages), A(235, mbind), A(236, get_mempolicy),
	A(237, set_mempolicy), A(238, migrate_pages), A(239, move_pages),
	A(240, rt_tgsigqueueinfo), A(241, perf_event_open), A(242, accept4),
	A(243, recvmmsg), A(260, wait4), A(261, prlimit64), A(262, fanotify_init),
	A(263, fanotify_mark), A(264, name_to_handle_at), A(265, open_by_handle_at),
	A(266, clock_adjtime), A(267, syncfs), A(268, setns), A(269, sendmmsg),
	A(270, process_vm_readv), A(271, process_vm_writev), A(272, kcmp),
	A(273, finit_module), A(274, sched_setattr), A(275, sched_getattr),
	A(276, renameat2), A(277, seccomp), A(278, getrandom), A(279, memfd_create),
	A(280, bpf), A(281, execveat), A(282, userfaultfd), A(283, membarrier),
	A(284, mlock2), A(285, copy_file_range), A(286, preadv2), A(287, pwritev2),
	A(288, pkey_mprotect), A(289, pkey_alloc), A(290, pkey_free), A(291, statx),
	A(292, io_pgetevents), A(293, rseq), A(294, kexec_file_load),
	A(424, pidfd_send_signal), A(425, io_uring_setup), A(426, io_uring_enter),
	A(427, io_uring_register), A(428, open_tree), A(429, move_mount),
	A(430, fsopen), A(431, fsconfig), A(432, fsmount), A(433, fspick),
	A(434, pidfd_open), A(435, clone3), A(436, close_range), A(437, openat2),
	A(438, pidfd_getfd), A(439, faccessat2), A(440, process_madvise),
	A(441, epoll_pwait2), A(442, mount_setattr), A(443, quotactl_fd),
	A(444, landlock_create_ruleset), A(445, landlock_add_rule),
	A(446, landlock_restrict_self), A(447, memfd_secret),
	A(448, process_mrelease), A(449, futex_waitv),
	A(450, set_mempolicy_home_node),
};

long aarch64_syscall_to_x86_64(unsigned long nr)
{
	if (nr >= AARCH64_NR_SYSCALLS || !to_x86_64[nr])
		return -1;
	return to_x86_64[nr] - 1;
}
