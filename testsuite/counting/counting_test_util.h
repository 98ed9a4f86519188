/*
 * counting_test_util.h - what the tests of testsuite/counting share: running
 * a shell command for its output, and reading "key=value" lines the guest
 * programs print. Include after <cmocka.h>.
 */
#ifndef PMUSIM_COUNTING_TEST_UTIL_H
#define PMUSIM_COUNTING_TEST_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The perf the tests run under pmusim (Debian's linux-perf). */
#define PERF "/usr/bin/perf"

/* The arguments meson passes, PMUSIM and PROGDIR, into *pmusim and
 * *progdir; false, with the usage on stderr, when there are not two. */
static __attribute__((unused)) bool counting_args(int argc, char **argv, const char **pmusim,
						  const char **progdir)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PMUSIM PROGDIR\n", argv[0]);
		return false;
	}
	*pmusim = argv[1];
	*progdir = argv[2];
	return true;
}

/* Runs a shell command; returns its stdout (malloc'd) and sets *status. */
static char *vrun(int *status, const char *fmt, va_list ap)
{
	char cmd[4096];
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap);
	FILE *p;

	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	p = popen(cmd, "r");
	assert_non_null(p);
	for (;;) {
		size_t n;

		if (len + 4096 > cap)
			out = realloc(out, cap *= 2);
		n = fread(out + len, 1, cap - len - 1, p);
		if (!n)
			break;
		len += n;
	}
	out[len] = 0;
	*status = pclose(p);
	return out;
}

static __attribute__((unused)) char *run(int *status, const char *fmt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, fmt);
	out = vrun(status, fmt, ap);
	va_end(ap);
	return out;
}

/* The value of "key=..." in out (a number; base 0), or fails. */
static __attribute__((unused)) unsigned long long val(const char *out, const char *key)
{
	char pat[128];
	const char *p;

	snprintf(pat, sizeof(pat), "%s=", key);
	for (p = out; (p = strstr(p, pat)); p++)
		if (p == out || p[-1] == '\n')
			return strtoull(p + strlen(pat), NULL, 0);
	fail_msg("no %s in:\n%s", key, out);
	return 0;
}

/* The counts of `perf stat -x,` output out (its lines "COUNT,..."), the
 * first nv into v, strtok'ing out; how many it found. */
static __attribute__((unused)) int perf_csv_counts(char *out, unsigned long long *v, int nv)
{
	char *save, *line;
	int seen = 0;

	for (line = strtok_r(out, "\n", &save); line && seen < nv; line = strtok_r(NULL, "\n", &save)) {
		char *end;
		unsigned long long x = strtoull(line, &end, 10);

		if (end != line && *end == ',')
			v[seen++] = x;
	}
	return seen;
}

/* The first nv counts of the `perf stat -x,` the shell command fmt runs,
 * into v; fails unless it exits 0 and prints nv counts (prog names the
 * run in the message). */
static __attribute__((unused)) void perf_stat_counts(const char *prog, unsigned long long *v,
						     int nv, const char *fmt, ...)
{
	int st, seen;
	va_list ap;
	char *o;

	va_start(ap, fmt);
	o = vrun(&st, fmt, ap);
	va_end(ap);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("%s: status %d\n%s", prog, st, o);
	seen = perf_csv_counts(o, v, nv);
	if (seen != nv)
		fail_msg("%s: %d counts of %d", prog, seen, nv);
	free(o);
}

/* Fails unless a count of prog equals its by-hand value. */
static __attribute__((unused)) void expect_count(const char *prog, const char *what,
						 unsigned long long got, unsigned long long want)
{
	if (got != want)
		fail_msg("%s: %s %llu, by hand %llu", prog, what, got, want);
}

/* The value perf stat prints for metric m in out ("#     0.24 m" or
 * "#     52.6 %  m"), or fails. */
static __attribute__((unused)) double perf_metric_value(const char *out, const char *m)
{
	const char *p = strstr(out, m), *hash;
	double x;

	if (!p)
		fail_msg("no %s\n%s", m, out);
	for (hash = p; hash > out && *hash != '#'; hash--)
		;
	if (sscanf(hash, "# %lf", &x) != 1)
		fail_msg("%s unreadable\n%s", m, out);
	return x;
}

#endif
