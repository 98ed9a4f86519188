/*
 * event_spec.h - perf-style event lists for the pmusim CLI: "cycles,
 * {branches,branch-misses}:u, L1-dcache-load-misses, r01c2,
 * inst_retired.any:D" into perf_event_attrs with group structure.
 */
#ifndef PMUSIM_EVENT_SPEC_H
#define PMUSIM_EVENT_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct pmu_model;

#define EVENT_SPEC_MAX 64

struct event_spec {
	char name[64];                  /* as written, without modifiers */
	struct perf_event_attr attr;
	int group;                      /* index of its group leader's spec */
};

struct event_spec_list {
	struct event_spec ev[EVENT_SPEC_MAX];
	unsigned n;
};

/* Parses list for model into out, appending. Returns 0, or -1 with a
 * one-line reason naming the bad token in err. */
int event_spec_parse(const char *list, const struct pmu_model *model,
		     struct event_spec_list *out, char *err, size_t errlen);

/* The name perf would print for type/config: a generic or cache name, the
 * model's event name, else rNNN (the inverse of the parser). */
void event_spec_name(const struct pmu_model *model, uint32_t type, uint64_t config,
		     char *buf, size_t len);

#endif
