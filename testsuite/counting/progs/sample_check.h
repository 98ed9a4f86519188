/*
 * sample_check.h - what the sample-checking guest programs (exact_regs.c,
 * kernel_samples.c) share: a record copied out of the ring, and a check
 * that counts and prints mismatches.
 */
#ifndef COUNTING_SAMPLE_CHECK_H
#define COUNTING_SAMPLE_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

/* The record at offset off of the ring's data area (data_size bytes,
 * wrapping), copied into rec (at most cap bytes); returns its header. */
static __attribute__((unused)) struct perf_event_header
ring_record(const char *data, size_t data_size, uint64_t off, char *rec, size_t cap)
{
	struct perf_event_header h;

	for (size_t k = 0; k < sizeof(h); k++)
		((char *)&h)[k] = data[(off + k) % data_size];
	for (size_t k = 0; k < h.size && k < cap; k++)
		rec[k] = data[(off + k) % data_size];
	return h;
}

static int bad;

/* A field of sample s: a mismatch counts in bad (the first 20 printed). */
static __attribute__((unused)) void check(const char *what, unsigned s, uint64_t got,
					  uint64_t want)
{
	if (got == want)
		return;
	if (bad++ < 20)
		printf("sample %u: %s 0x%llx, expected 0x%llx\n", s, what,
		       (unsigned long long)got, (unsigned long long)want);
}

#endif
