/*
 * timeline_draw.c - a schedule (trace_json.h's sched_view) drawn as SVG:
 * one row per counter over simulated time, a coloured span per stretch an
 * event held the counter (a colour per group, labelled with the event),
 * rotation ticks, a row of the groups that failed to go on, pinned and
 * exclusive groups marked, and beside it a table of each event's enabled
 * and running time, count, perf's scaled estimate and the true count.
 *
 * What no eye can tell apart is aggregated: runs of spans narrower than
 * MIN_SPAN_PX on a row become one "agg" rectangle coloured by the event
 * that held the counter longest in it, and rotation ticks and failure
 * marks closer than MIN_TICK_PX are thinned (the count stays in titles).
 *
 * SVG structure the tests rely on: <g class="row" data-cpu data-idx
 * data-counter> per counter; in it <rect class="span ..." data-event
 * data-event-id data-start-ns data-end-ns> per residency (or class "agg"
 * with data-residencies); <line class="tick"> per drawn rotation;
 * <g class="table"> with <g class="event-row" data-event> rows.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/cli/timeline.h"

#define LABEL_W 120.0
#define ROW_H 22.0
#define TOP 44.0
#define MIN_SPAN_PX 3.0
#define MIN_TICK_PX 4.0
#define CHAR_W 6.6
#define TABLE_GAP 24.0

static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1b9e77", "#d95f02",
};
#define NR_COLOURS (sizeof(palette) / sizeof(palette[0]))

/* Text with XML's special characters escaped. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* The colour of an event: its group's, groups numbered by first sight. */
static const char *event_colour(const struct sched_view *v, unsigned ev)
{
	unsigned group = 0;

	for (unsigned i = 0; i < v->nr_events; i++) {
		if (v->events[i].id != v->events[i].leader)
			continue;
		if (v->events[i].id == v->events[ev].leader)
			return palette[group % NR_COLOURS];
		group++;
	}
	return palette[ev % NR_COLOURS];
}

struct geometry {
	double plot_w;
	uint64_t end_ns;
};

static double x_of(const struct geometry *g, uint64_t ns)
{
	return LABEL_W + (g->end_ns ? g->plot_w * (double)ns / (double)g->end_ns : 0.0);
}

/* A "nice" axis step (1, 2 or 5 times a power of ten ns) for about n ticks. */
static uint64_t axis_step(uint64_t span, unsigned n)
{
	uint64_t step = 1;

	while (step * 10 * n <= span)
		step *= 10;
	if (step * 5 * n <= span)
		return step * 5;
	if (step * 2 * n <= span)
		return step * 2;
	return step;
}

static void span_rect(FILE *f, const struct sched_view *v, const struct geometry *g,
		      const struct sched_slice *s, double y)
{
	const struct sched_event *e = &v->events[s->ev];
	double x0 = x_of(g, s->start_ns), x1 = x_of(g, s->end_ns);
	int fits;

	fprintf(f, "<rect class=\"span%s%s\" data-event=\"", e->pinned ? " pinned" : "",
		e->exclusive ? " exclusive" : "");
	xml_text(f, e->name);
	fprintf(f, "\" data-event-id=\"%" PRIu64 "\" data-start-ns=\"%" PRIu64
		"\" data-end-ns=\"%" PRIu64 "\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\""
		" fill=\"%s\"><title>", e->id, s->start_ns, s->end_ns, x0, y + 2, x1 - x0, ROW_H - 4,
		event_colour(v, s->ev));
	xml_text(f, e->name);
	fprintf(f, "%s%s: %.3f-%.3f ms</title></rect>\n", e->pinned ? " (pinned)" : "",
		e->exclusive ? " (exclusive)" : "", s->start_ns / 1e6, s->end_ns / 1e6);
	/* the name, cut short with an ellipsis when the span is narrower */
	fits = (int)((x1 - x0 - 6) / CHAR_W);
	if (fits >= 4) {
		char label[sizeof(e->name) + 4];

		if ((size_t)fits >= strlen(e->name))
			snprintf(label, sizeof(label), "%s", e->name);
		else
			snprintf(label, sizeof(label), "%.*s\u2026", fits - 1, e->name);
		fprintf(f, "<text class=\"label\" x=\"%.2f\" y=\"%.1f\">", x0 + 3, y + ROW_H / 2 + 4);
		xml_text(f, label);
		fputs("</text>\n", f);
	}
}

/* Spans of a run too narrow to see, as one rectangle. */
struct aggregate {
	uint64_t start, end;
	unsigned n;
	uint64_t *held;                 /* ns per event */
};

static void agg_flush(FILE *f, const struct sched_view *v, const struct geometry *g,
		      struct aggregate *a, double y)
{
	unsigned best = 0;
	double x0, x1;

	if (!a->n)
		return;
	for (unsigned i = 1; i < v->nr_events; i++)
		if (a->held[i] > a->held[best])
			best = i;
	x0 = x_of(g, a->start);
	x1 = x_of(g, a->end);
	fprintf(f, "<rect class=\"agg\" data-residencies=\"%u\" data-start-ns=\"%" PRIu64
		"\" data-end-ns=\"%" PRIu64 "\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\""
		" fill=\"%s\" fill-opacity=\"0.55\"><title>%u residencies %.3f-%.3f ms:",
		a->n, a->start, a->end, x0, y + 2, x1 - x0 > 1 ? x1 - x0 : 1, ROW_H - 4,
		event_colour(v, best), a->n, a->start / 1e6, a->end / 1e6);
	for (unsigned i = 0; i < v->nr_events; i++) {
		if (!a->held[i])
			continue;
		fputc(' ', f);
		xml_text(f, v->events[i].name);
		fprintf(f, " %.0f%%", 100.0 * (double)a->held[i] / (double)(a->end - a->start));
	}
	fputs("</title></rect>\n", f);
	memset(a->held, 0, v->nr_events * sizeof(*a->held));
	a->n = 0;
}

static void draw_row(FILE *f, const struct sched_view *v, const struct geometry *g,
		     const struct sched_counter *c, double y, struct aggregate *a)
{
	fprintf(f, "<g class=\"row\" data-cpu=\"%u\" data-idx=\"%d\" data-counter=\"%s\">\n"
		"<rect class=\"lane\" x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\"/>\n"
		"<text class=\"rowname\" x=\"4\" y=\"%.1f\">cpu%u %s</text>\n",
		c->cpu, c->idx, c->name, LABEL_W, y, g->plot_w, ROW_H, y + ROW_H / 2 + 4,
		c->cpu, c->name);
	for (size_t i = 0; i < v->nr_slices; i++) {
		const struct sched_slice *s = &v->slices[i];
		double w = x_of(g, s->end_ns) - x_of(g, s->start_ns);

		if (s->cpu != c->cpu || s->idx != c->idx || s->end_ns == s->start_ns)
			continue;
		if (w >= MIN_SPAN_PX) {
			agg_flush(f, v, g, a, y);
			span_rect(f, v, g, s, y);
			continue;
		}
		if (a->n && x_of(g, s->start_ns) - x_of(g, a->end) > 1.0)
			agg_flush(f, v, g, a, y); /* a visible gap */
		if (!a->n)
			a->start = s->start_ns;
		a->end = s->end_ns;
		a->held[s->ev] += s->end_ns - s->start_ns;
		a->n++;
		if (x_of(g, a->end) - x_of(g, a->start) >= 2 * MIN_SPAN_PX)
			agg_flush(f, v, g, a, y);
	}
	agg_flush(f, v, g, a, y);
	fputs("</g>\n", f);
}

/* Rotation ticks across the rows and failure marks in their own row,
 * thinned to one per MIN_TICK_PX. */
static void draw_marks(FILE *f, const struct sched_view *v, const struct geometry *g,
		       double rows_bottom, unsigned cpu, double fail_y)
{
	double last_tick = -1e9, last_fail = -1e9;
	unsigned ticks = 0, drawn = 0, fails = 0;

	fprintf(f, "<g class=\"fail-row\" data-cpu=\"%u\">\n"
		"<text class=\"rowname\" x=\"4\" y=\"%.1f\">cpu%u not on</text>\n",
		cpu, fail_y + ROW_H / 2 + 4, cpu);
	for (size_t i = 0; i < v->nr_marks; i++) {
		const struct sched_mark *m = &v->marks[i];
		double x = x_of(g, m->t_ns);

		if (m->cpu != cpu)
			continue;
		if (m->kind == MARK_ROTATE) {
			ticks++;
			if (x - last_tick < MIN_TICK_PX)
				continue;
			last_tick = x;
			drawn++;
			fprintf(f, "<line class=\"tick\" data-t-ns=\"%" PRIu64 "\" x1=\"%.2f\" y1=\"%.1f\""
				" x2=\"%.2f\" y2=\"%.1f\"><title>rotation at %.3f ms</title></line>\n",
				m->t_ns, x, TOP - 6, x, rows_bottom, m->t_ns / 1e6);
			continue;
		}
		fails++;
		if (x - last_fail < MIN_TICK_PX)
			continue;
		last_fail = x;
		fprintf(f, "<path class=\"fail %s\" d=\"M%.2f %.1f l-4 8 h8 z\"><title>%.3f ms: ",
			m->kind == MARK_ERROR ? "error" : "not-on", x, fail_y + 6, m->t_ns / 1e6);
		xml_text(f, m->ev >= 0 ? v->events[m->ev].name : "?");
		fputs(m->kind == MARK_ERROR ? " in error (" : " not on (", f);
		xml_text(f, m->reason);
		fputs(")</title></path>\n", f);
	}
	fprintf(f, "</g>\n<text class=\"note\" x=\"%.1f\" y=\"%.1f\">cpu%u: %u rotations%s, "
		"%u failures to go on</text>\n", LABEL_W, fail_y + ROW_H + 14 + 14 * cpu, cpu,
		ticks, drawn < ticks ? " (ticks thinned)" : "", fails);
}

static void draw_table(FILE *f, const struct sched_view *v, double x, double y)
{
	static const char *const head[] = { "event", "enabled ms", "running ms", "run %",
					    "count", "scaled", "true", "error" };
	static const double col[] = { 0, 170, 250, 330, 380, 480, 580, 680 };

	fprintf(f, "<g class=\"table\" transform=\"translate(%.1f,%.1f)\">\n", x, y);
	for (unsigned i = 0; i < 8; i++)
		fprintf(f, "<text class=\"th\" x=\"%.0f\" y=\"0\">%s</text>\n", col[i], head[i]);
	for (unsigned i = 0; i < v->nr_events; i++) {
		const struct sched_event *e = &v->events[i];
		double ty = 18.0 * (i + 1);
		double scaled = e->running_ns ? (double)e->count * e->enabled_ns / e->running_ns : 0;

		fprintf(f, "<g class=\"event-row\" data-event=\"");
		xml_text(f, e->name);
		fprintf(f, "\"><rect x=\"-14\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"0\" y=\"%.1f\">", ty - 9, event_colour(v, i), ty);
		xml_text(f, e->name);
		fprintf(f, "%s%s</text>", e->pinned ? " [pinned]" : "", e->exclusive ? " [excl]" : "");
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">%.3f</text><text x=\"%.0f\" y=\"%.1f\">%.3f</text>"
			"<text x=\"%.0f\" y=\"%.1f\">%.1f</text>", col[1], ty, e->enabled_ns / 1e6,
			col[2], ty, e->running_ns / 1e6, col[3], ty,
			e->enabled_ns ? 100.0 * e->running_ns / e->enabled_ns : 0.0);
		if (!e->counted) {
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">(no final read)</text></g>\n", col[4], ty);
			continue;
		}
		if (!e->running_ns) {
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">&lt;not counted&gt;</text></g>\n", col[4], ty);
			continue;
		}
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">%" PRIu64 "</text><text x=\"%.0f\" y=\"%.1f\">%.0f</text>",
			col[4], ty, e->count, col[5], ty, scaled);
		if (e->has_true)
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">%" PRIu64 "</text>"
				"<text x=\"%.0f\" y=\"%.1f\">%+.2f%%</text>", col[6], ty, e->true_count,
				col[7], ty, e->true_count ? 100.0 * (scaled - e->true_count) / e->true_count : 0.0);
		fputs("</g>\n", f);
	}
	fputs("</g>\n", f);
}

void timeline_svg(FILE *f, const struct sched_view *v, double plot_w)
{
	struct geometry g = { .plot_w = plot_w, .end_ns = v->end_ns ? v->end_ns : 1 };
	struct aggregate a = { .held = calloc(v->nr_events + 1, sizeof(uint64_t)) };
	double rows_bottom = TOP + ROW_H * v->nr_counters;
	double fail_y = rows_bottom + 4;
	double height = fail_y + ROW_H * v->nr_cpus + 20 + 14 * v->nr_cpus + 40;
	double table_x = LABEL_W + plot_w + TABLE_GAP + 14;
	double table_h = 18.0 * (v->nr_events + 2) + TOP;
	uint64_t step = axis_step(g.end_ns, 8);

	if (table_h > height)
		height = table_h;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"pmusim-timeline\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" "
		"font-size=\"11\">\n<style>.lane{fill:#f4f4f4;stroke:#ddd}.label{fill:#fff;"
		"pointer-events:none}.rowname,.note{fill:#333}.tick{stroke:#555;stroke-width:0.6;"
		"stroke-dasharray:2 2}.pinned{stroke:#000;stroke-width:2}.exclusive{stroke:#000;"
		"stroke-width:1.5;stroke-dasharray:4 2}.fail.not-on{fill:#c00}.fail.error{fill:#000}"
		".th{font-weight:bold}.axis{stroke:#999}</style>\n",
		table_x + 760, height, table_x + 760, height);
	fprintf(f, "<text x=\"4\" y=\"14\" font-weight=\"bold\">%s: %zu counters, mux interval "
		"%.3f ms, %.3f ms simulated</text>\n", v->model, v->nr_counters / (v->nr_cpus ? v->nr_cpus : 1),
		v->mux_ns / 1e6, v->end_ns / 1e6);
	fputs("<g class=\"axis\">\n", f);
	for (uint64_t t = 0; t <= g.end_ns; t += step)
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>"
			"<text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%g ms</text>\n",
			x_of(&g, t), TOP - 10, x_of(&g, t), TOP - 2, x_of(&g, t), TOP - 14, t / 1e6);
	fputs("</g>\n", f);
	for (size_t i = 0; a.held && i < v->nr_counters; i++)
		draw_row(f, v, &g, &v->counters[i], TOP + ROW_H * i, &a);
	for (unsigned c = 0; c < v->nr_cpus; c++)
		draw_marks(f, v, &g, rows_bottom, c, fail_y + ROW_H * c);
	fprintf(f, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\">thick border: pinned group; dashed: "
		"exclusive group; triangles: a group that could not go on (hover for why); "
		"translucent: spans too short to draw, aggregated</text>\n",
		LABEL_W, height - 8);
	draw_table(f, v, table_x, TOP);
	fputs("</svg>\n", f);
	free(a.held);
}

void timeline_html(FILE *f, const struct sched_view *v, double plot_w)
{
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>pmusim timeline</title>\n"
	      "<style>body{font-family:sans-serif;margin:12px}#detail{min-height:1.4em;"
	      "color:#333}</style>\n</head><body>\n<div id=\"detail\">hover a span, a tick or a "
	      "triangle</div>\n", f);
	timeline_svg(f, v, plot_w);
	/* the page marks itself ready only when its script ran without an
	 * exception (what the screenshot test checks) */
	fputs("<script>\n(function () {\n"
	      "  try {\n"
	      "    var detail = document.getElementById('detail');\n"
	      "    var svg = document.querySelector('svg.pmusim-timeline');\n"
	      "    var rows = svg.querySelectorAll('g.row');\n"
	      "    svg.addEventListener('mouseover', function (ev) {\n"
	      "      var t = ev.target.querySelector && ev.target.querySelector('title');\n"
	      "      if (t) detail.textContent = t.textContent;\n"
	      "    });\n"
	      "    document.body.setAttribute('data-rows', String(rows.length));\n"
	      "    document.body.setAttribute('data-ready', '1');\n"
	      "  } catch (e) {\n"
	      "    document.body.setAttribute('data-error', String(e));\n"
	      "  }\n"
	      "})();\n</script>\n</body></html>\n", f);
}
