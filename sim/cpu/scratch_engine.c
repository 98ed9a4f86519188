/*
 * scratch_engine.c - transparent huge pages off while start-up probes run
 * throw-away engines.
 *
 * Unicorn 2.0.1 maps each engine's 1 GiB code buffer with
 * MADV_HUGEPAGE, so the first translated block of an engine faults in a
 * whole 2 MiB page the kernel zeroes (do_huge_pmd_anonymous_page ->
 * folio_zero_user). A probe engine translates one or two blocks and is
 * closed: on this VM that zeroing took up to 15 ms of a `pmusim run --
 * perf stat -- /bin/true` whenever huge pages were free. PR_SET_THP_DISABLE
 * makes the kernel give the process small pages at fault time
 * (vma_thp_disabled() reads MMF_DISABLE_THP); the probes set it for their
 * window and put back the process's own setting, which children and
 * execve inherit, before anything else runs. The engines that run the
 * guest are created after the window and keep their huge pages.
 */
#include <pthread.h>
#include <sys/prctl.h>
#include "sim/cpu/scratch_engine.h"

static pthread_mutex_t window_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned depth;
static int saved = -1;   /* PR_GET_THP_DISABLE before the window; -1: unknown */

void scratch_engine_begin(void)
{
	pthread_mutex_lock(&window_lock);
	if (depth++ == 0) {
		saved = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
		if (saved == 0 && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
			saved = -1;   /* left as it was */
	}
	pthread_mutex_unlock(&window_lock);
}

void scratch_engine_end(void)
{
	pthread_mutex_lock(&window_lock);
	if (depth && --depth == 0) {
		if (saved == 0)
			prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
		saved = -1;
	}
	pthread_mutex_unlock(&window_lock);
}
