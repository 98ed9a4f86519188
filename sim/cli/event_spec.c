/*
 * event_spec.c - the perf event-list syntax the CLI accepts: perf's
 * generic hardware, cache and software names, the model's named events,
 * rNNN raw codes, {...} groups and the :u :k :D (pinned) :e (exclusive)
 * modifiers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/event_spec.h"

struct named_config {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* perf's tools/perf/util/parse-events.c event_symbols_hw / _sw */
static const struct named_config symbols[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

/* perf's evsel__hw_cache / _op / _result names */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX] = {
	"L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch", "node",
};
static const struct {
	const char *suffix;
	unsigned op, result;
} cache_ops[] = {
	{ "loads", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "load-misses", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "stores", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "store-misses", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_MISS },
};

/* Resolves one event name (no modifiers) into type/config. */
static bool resolve_name(const char *name, const struct pmu_model *model,
			 uint32_t *type, __u64 *config)
{
	size_t i, j;

	for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		if (!strcmp(name, symbols[i].name)) {
			*type = symbols[i].type;
			*config = symbols[i].config;
			return true;
		}
	}
	for (i = 0; i < PERF_COUNT_HW_CACHE_MAX; i++) {
		size_t len = strlen(cache_names[i]);

		if (strncmp(name, cache_names[i], len) || name[len] != '-')
			continue;
		for (j = 0; j < sizeof(cache_ops) / sizeof(cache_ops[0]); j++) {
			if (!strcmp(name + len + 1, cache_ops[j].suffix)) {
				*type = PERF_TYPE_HW_CACHE;
				*config = i | (cache_ops[j].op << 8) | (cache_ops[j].result << 16);
				return true;
			}
		}
	}
	if (name[0] == 'r' && name[1]) {
		char *end;
		unsigned long long v = strtoull(name + 1, &end, 16);

		if (!*end) {
			*type = PERF_TYPE_RAW;
			*config = v;
			return true;
		}
	}
	for (i = 0; model && i < model->nr_events; i++) {
		if (!strcmp(name, model->events[i].name)) {
			*type = model->pmu_type;
			*config = model->events[i].config;
			return true;
		}
	}
	return false;
}

void event_spec_name(const struct pmu_model *model, uint32_t type, uint64_t config,
		     char *buf, size_t len)
{
	size_t i, j;

	for (i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		if (symbols[i].type == type && symbols[i].config == config) {
			snprintf(buf, len, "%s", symbols[i].name);
			return;
		}
	}
	if (type == PERF_TYPE_HW_CACHE && (config & 0xff) < PERF_COUNT_HW_CACHE_MAX) {
		for (j = 0; j < sizeof(cache_ops) / sizeof(cache_ops[0]); j++) {
			if (((config >> 8) & 0xff) == cache_ops[j].op &&
			    ((config >> 16) & 0xff) == cache_ops[j].result) {
				snprintf(buf, len, "%s-%s", cache_names[config & 0xff],
					 cache_ops[j].suffix);
				return;
			}
		}
	}
	if (model && (type == model->pmu_type || type == PERF_TYPE_RAW)) {
		for (i = 0; i < model->nr_events; i++) {
			if (model->events[i].config == config) {
				snprintf(buf, len, "%s", model->events[i].name);
				return;
			}
		}
	}
	if (type == PERF_TYPE_RAW)
		snprintf(buf, len, "r%llx", (unsigned long long)config);
	else
		snprintf(buf, len, "type%u/config=%#llx", type, (unsigned long long)config);
}

/* Applies ":ukDe" modifiers. */
static bool apply_modifiers(const char *mods, struct perf_event_attr *attr)
{
	bool u = false, k = false;

	for (; *mods; mods++) {
		switch (*mods) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'D': attr->pinned = 1; break;
		case 'e': attr->exclusive = 1; break;
		default: return false;
		}
	}
	if (u || k) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
	}
	return true;
}

/* Adds one "name[:mods]" token. */
static int add_token(const char *tok, const char *group_mods, int group,
		     const struct pmu_model *model, struct event_spec_list *out,
		     char *err, size_t errlen)
{
	struct event_spec *e;
	char name[64];
	const char *colon = strchr(tok, ':');
	size_t len = colon ? (size_t)(colon - tok) : strlen(tok);

	if (!len || len >= sizeof(name)) {
		snprintf(err, errlen, "bad event '%s'", tok);
		return -1;
	}
	if (out->n == EVENT_SPEC_MAX) {
		snprintf(err, errlen, "too many events (at most %d)", EVENT_SPEC_MAX);
		return -1;
	}
	memcpy(name, tok, len);
	name[len] = 0;
	e = &out->ev[out->n];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->attr.size = sizeof(e->attr);
	if (!resolve_name(name, model, &e->attr.type, &e->attr.config)) {
		snprintf(err, errlen, "unknown event '%s'", name);
		return -1;
	}
	if ((colon && !apply_modifiers(colon + 1, &e->attr)) ||
	    (group_mods && !apply_modifiers(group_mods, &e->attr))) {
		snprintf(err, errlen, "bad modifier in '%s'", tok);
		return -1;
	}
	e->group = group < 0 ? (int)out->n : group;
	if (e->group != (int)out->n)
		e->attr.pinned = e->attr.exclusive = 0; /* only leaders */
	out->n++;
	return 0;
}

/* Copies the next top-level item of *p (an event or a whole {...}:mods
 * group) into item and advances *p past its comma. */
static bool next_item(const char **p, char *item, size_t len)
{
	const char *s = *p;
	size_t n = 0;
	int depth = 0;

	while (*s == ',')
		s++;
	if (!*s)
		return false;
	while (*s && (depth || *s != ',')) {
		if (*s == '{')
			depth++;
		else if (*s == '}')
			depth--;
		if (n + 1 < len)
			item[n++] = *s;
		s++;
	}
	item[n] = 0;
	*p = s;
	return true;
}

int event_spec_parse(const char *list, const struct pmu_model *model,
		     struct event_spec_list *out, char *err, size_t errlen)
{
	const char *p = list;
	char item[1024];

	while (next_item(&p, item, sizeof(item))) {
		char *close, *mods = NULL, *tok, *save = NULL;
		int leader = -1;

		if (item[0] != '{') {
			if (add_token(item, NULL, -1, model, out, err, errlen))
				return -1;
			continue;
		}
		close = strrchr(item, '}');
		if (!close) {
			snprintf(err, errlen, "unclosed group '%s'", item);
			return -1;
		}
		*close = 0;
		if (close[1] == ':')
			mods = close + 2;
		else if (close[1]) {
			snprintf(err, errlen, "bad text after group: '%s'", close + 1);
			return -1;
		}
		for (tok = strtok_r(item + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (add_token(tok, mods, leader, model, out, err, errlen))
				return -1;
			if (leader < 0)
				leader = (int)out->n - 1;
		}
		if (leader < 0) {
			snprintf(err, errlen, "empty group");
			return -1;
		}
	}
	if (!out->n) {
		snprintf(err, errlen, "no events given");
		return -1;
	}
	return 0;
}
