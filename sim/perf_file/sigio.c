/*
 * sigio.c - the signal of a perf file's fasync (perf_event_wakeup ->
 * kill_fasync -> send_sigio_to_task, fs/fcntl.c) as its owner receives it.
 */
#include <poll.h>
#include <string.h>
#include "sim/perf_file/perf_file.h"

/* band_table[] of fs/fcntl.c, indexed by reason - POLL_IN */
static const long band_table[] = {
	POLLIN | POLLRDNORM, POLLOUT | POLLWRNORM | POLLWRBAND,
	POLLIN | POLLRDNORM | POLLMSG, POLLERR, POLLPRI | POLLRDBAND,
	POLLHUP | POLLERR,
};

int perf_fd_sigio_info(int fsig, int fd, int reason, siginfo_t *si)
{
	if (!fsig)
		return perf_fd_sigio_fallback(si);   /* case 0: SEND_SIG_PRIV */
	memset(si, 0, sizeof(*si));
	si->si_signo = fsig;
	si->si_code = reason;
	/* a signal with codes of its own (sig_specific_sicodes) other than
	 * SIGPOLL gets SI_SIGIO instead of the reason */
	if (fsig != SIGPOLL && (fsig == SIGILL || fsig == SIGFPE || fsig == SIGSEGV ||
				fsig == SIGBUS || fsig == SIGTRAP || fsig == SIGCHLD || fsig == SIGSYS))
		si->si_code = SI_SIGIO;
	if (reason >= POLL_IN && reason - POLL_IN < (int)(sizeof(band_table) / sizeof(band_table[0])))
		si->si_band = band_table[reason - POLL_IN];
	else
		si->si_band = ~0L;
	si->si_fd = fd;
	return fsig;
}

int perf_fd_sigio_fallback(siginfo_t *si)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = SIGIO;
	si->si_code = SI_KERNEL;
	return SIGIO;
}
