/*
 * cmd_timeline.c - `pmusim timeline TRACE -o FILE.svg|FILE.html`: draws a
 * schedule trace written by --trace-out (timeline_draw.c does the drawing).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "sim/cli/commands.h"
#include "sim/cli/timeline.h"

static void timeline_usage(FILE *out)
{
	fprintf(out,
		"usage: pmusim timeline TRACE -o FILE.svg|FILE.html [--width PX]\n\n"
		"Draws a schedule trace (pmusim sched/run/exec --trace-out) as counters\n"
		"over simulated time, with a table of each event's times and counts.\n"
		"The .html file is one self-contained page.\n"
		"  -o, --output FILE   .svg or .html\n"
		"  -w, --width PX      width of the time axis (default 900)\n"
		"  -h, --help\n");
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int cmd_timeline(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "width", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	struct sched_view v;
	char err[512];
	long width = 900;
	bool html;
	FILE *f;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'w':
			if (!cli_parse_long(optarg, 100, 100000, &width))
				return cli_usage_error("--width: '%s' is not a number in 100..100000", optarg);
			break;
		case 'h':
			timeline_usage(stdout);
			return 0;
		default:
			return cli_usage_error("timeline: unknown option '%s' (see pmusim timeline --help)",
					       argv[optind - 1]);
		}
	}
	if (optind + 1 != argc || !out)
		return cli_usage_error("timeline: usage: pmusim timeline TRACE -o FILE.svg|FILE.html");
	html = ends_with(out, ".html") || ends_with(out, ".htm");
	if (!html && !ends_with(out, ".svg"))
		return cli_usage_error("timeline: -o wants a .svg or .html file, not '%s'", out);
	if (sched_view_load(argv[optind], &v, err, sizeof(err))) {
		fprintf(stderr, "pmusim: %s\n", err);
		return 1;
	}
	f = fopen(out, "w");
	if (!f) {
		perror(out);
		sched_view_free(&v);
		return 1;
	}
	if (html)
		timeline_html(f, &v, (double)width);
	else
		timeline_svg(f, &v, (double)width);
	sched_view_free(&v);
	if (fclose(f)) {
		perror(out);
		return 1;
	}
	return 0;
}
