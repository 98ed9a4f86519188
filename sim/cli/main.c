/*
 * main.c - the pmusim command line: global options and dispatch to the
 * subcommands of commands.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "sim/cli/commands.h"

static const struct pmusim_command commands[] = {
	{ "models", "list the PMU models (NAME: one model in full)", cmd_models },
	{ "exec", "run an x86-64 Linux program on the emulated machine", cmd_exec },
	{ "run", "run a native command (perf) against a simulated kernel", cmd_run },
	{ "sched", "multiplex events on a model with a synthetic steady workload", cmd_sched },
	{ "timeline", "draw a schedule trace (--trace-out) as SVG or HTML", cmd_timeline },
	{ "explain", "say in words why each event got its share of the counters", cmd_explain },
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

bool cli_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("pmusim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static void usage(FILE *out)
{
	fprintf(out, "usage: pmusim [--help] [--version] COMMAND [ARGS...]\n\n"
		     "A userspace PMU simulator: Linux perf_event semantics on "
		     "modelled PMUs.\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'pmusim COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	/* '+': stop at the first non-option, the subcommand. */
	while ((c = getopt_long(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("pmusim %s\n", PMUSIM_VERSION);
			return 0;
		default:
			return cli_usage_error("unknown option '%s' (see pmusim --help)",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		if (strcmp(argv[optind], commands[i].name) == 0) {
			int sub = optind;

			optind = 0; /* glibc: reinitialise getopt for the subcommand */
			return commands[i].run(argc - sub, argv + sub);
		}
	}
	return cli_usage_error("unknown command '%s' (see pmusim --help)", argv[optind]);
}
