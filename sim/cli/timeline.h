/*
 * timeline.h - drawing a schedule (sched_view) as an SVG picture or a
 * self-contained HTML page (timeline_draw.c).
 */
#ifndef PMUSIM_TIMELINE_H
#define PMUSIM_TIMELINE_H

#include <stdio.h>
#include "sim/cli/trace_json.h"

/* The picture, plot_w pixels of simulated time wide. */
void timeline_svg(FILE *f, const struct sched_view *v, double plot_w);
/* The same in one HTML file with no outside references; its script sets
 * body[data-ready=1] when it ran without an exception, else data-error. */
void timeline_html(FILE *f, const struct sched_view *v, double plot_w);

#endif
