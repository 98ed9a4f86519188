/*
 * cmd_models.c - `pmusim models`: the table of PMU models, or one model's
 * details (counters, identity, formats, caps, events and what they count).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/cli/commands.h"

static void models_usage(FILE *out)
{
	fprintf(out,
		"usage: pmusim models [-v] [NAME]\n\n"
		"Without NAME, lists the PMU models (* marks the default).\n"
		"With NAME, shows that model: counters, CPU identity, sysfs format/\n"
		"and caps/, and its events with what each counts in the simulation.\n\n"
		"options:\n"
		"  -v, --verbose  with no NAME, show every model in detail\n"
		"  -h, --help     this text\n");
}

static const char *arch_name(enum pmu_arch arch)
{
	switch (arch) {
	case PMU_ARCH_X86_INTEL:
		return "x86 (Intel)";
	case PMU_ARCH_X86_AMD:
		return "x86 (AMD)";
	case PMU_ARCH_ARM_PMUV3:
		return "arm64 PMUv3";
	}
	return "?";
}

/* "4+3 fixed, 48-bit", "6, 48-bit", "6+cycle, 32-bit" */
static void counters_summary(const struct pmu_model *m, char *buf, size_t len)
{
	if (m->nr_fixed_counters)
		snprintf(buf, len, "%u+%u fixed, %u-bit", m->nr_gp_counters,
			 m->nr_fixed_counters, m->gp_width);
	else if (m->has_cycle_counter)
		snprintf(buf, len, "%u+cycle, %u-bit", m->nr_gp_counters, m->gp_width);
	else
		snprintf(buf, len, "%u, %u-bit", m->nr_gp_counters, m->gp_width);
}

/* A counter mask as index ranges: "0-3,fixed0", "cycle,1-6". */
static void mask_string(const struct pmu_model *m, uint64_t mask, char *buf, size_t len)
{
	size_t n = 0;
	int i = 0;

	buf[0] = '\0';
	if (m->arch == PMU_ARCH_ARM_PMUV3 && (mask & 1)) {
		n += (size_t)snprintf(buf + n, len - n, "cycle");
		i = 1;
	}
	while (i < 64 && n < len) {
		int j;

		if (!(mask & (UINT64_C(1) << i))) {
			i++;
			continue;
		}
		if (m->arch != PMU_ARCH_ARM_PMUV3 && i >= PMU_IDX_FIXED) {
			n += (size_t)snprintf(buf + n, len - n, "%sfixed%d", n ? "," : "",
					      i - PMU_IDX_FIXED);
			i++;
			continue;
		}
		for (j = i; j + 1 < 64 && (mask & (UINT64_C(1) << (j + 1))) &&
		     !(m->arch != PMU_ARCH_ARM_PMUV3 && j + 1 >= PMU_IDX_FIXED); j++)
			;
		if (j > i)
			n += (size_t)snprintf(buf + n, len - n, "%s%d-%d", n ? "," : "", i, j);
		else
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", i);
		i = j + 1;
	}
}

static void print_table(void)
{
	const struct pmu_model *def = pmu_model_default();

	printf("%-9s %-12s %-14s %-5s %-18s %s\n", "NAME", "ARCH", "PMU", "TYPE",
	       "COUNTERS", "SUMMARY");
	for (unsigned i = 0; i < pmu_model_count(); i++) {
		const struct pmu_model *m = pmu_model_at(i);
		char name[32], counters[48];

		snprintf(name, sizeof(name), "%s%s", m->name, m == def ? "*" : "");
		counters_summary(m, counters, sizeof(counters));
		printf("%-9s %-12s %-14s %-5u %-18s %s\n", name, arch_name(m->arch),
		       m->pmu_name, m->pmu_type, counters, m->summary);
	}
	printf("\n* default model. 'pmusim models NAME' shows one model.\n");
}

/* What each PERF_TYPE_HARDWARE config becomes on the model: its event_init
 * run on a plain counting attr (so PMCEID filtering and the like apply). */
static void print_generic(const struct pmu_model *m)
{
	static const char *const names[PERF_COUNT_HW_MAX] = {
		"cpu-cycles", "instructions", "cache-references", "cache-misses",
		"branch-instructions", "branch-misses", "bus-cycles",
		"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
	};

	printf("\ngeneric events (PERF_TYPE_HARDWARE)\n");
	for (unsigned i = 0; i < PERF_COUNT_HW_MAX; i++) {
		struct perf_event_attr attr;
		struct pmu_event_config out;
		int ret;

		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_HARDWARE;
		attr.size = sizeof(attr);
		attr.config = i;
		ret = m->ops->event_init(m, m->nr_gp_counters, &attr, &out);
		if (ret)
			printf("  %-24s %s\n", names[i], strerrorname_np(-ret));
		else
			printf("  %-24s 0x%-10" PRIx64 " %s\n", names[i], out.config,
			       out.source == SIM_SRC_NONE ? "(not driven)" :
			       sim_source_name(out.source));
	}
}


/* One table of the model's events: the kernel's events/ attributes, or the
 * vendor event-list names the model also knows. */
static void print_events(const struct pmu_model *m, bool vendor_list, const char *title)
{
	unsigned n = 0;
	char buf[128];

	for (unsigned i = 0; i < m->nr_events; i++)
		n += m->events[i].vendor_list == vendor_list;
	if (!n)
		return;
	printf("\n%s (%u)\n", title, n);
	printf("  %-46s %-12s %-16s %-14s %s\n", "NAME", "ENCODING", "COUNTS", "COUNTERS",
	       "DESCRIPTION");
	for (unsigned i = 0; i < m->nr_events; i++) {
		const struct pmu_event_desc *e = &m->events[i];
		uint64_t mask = e->counter_mask ? e->counter_mask :
				m->ops->constraint(m, m->nr_gp_counters, e->config);

		if (e->vendor_list != vendor_list)
			continue;
		mask_string(m, mask, buf, sizeof(buf));
		printf("  %-46s 0x%-10" PRIx64 " %-16s %-14s %s\n", e->name, e->config,
		       e->source == SIM_SRC_NONE ? "(not driven)" : sim_source_name(e->source),
		       buf, e->desc);
	}
}
/* The model's PMUs beside its core PMU: each event and what it counts
 * (docs/models.md, "The PMUs beside cpu"). */
static void print_side_pmus(const struct pmu_model *m)
{
	static const char *const kinds[] = {
		[PMU_SIDE_MSR] = "msr.c: per task or per CPU",
		[PMU_SIDE_CSTATE_CORE] = "cstate.c: per core, CPU-wide only",
		[PMU_SIDE_CSTATE_PKG] = "cstate.c: per package, CPU-wide only",
		[PMU_SIDE_UNCORE] = "uncore.c: per package on CPU 0, CPU-wide only",
	};
	static const char *const times[] = {
		[PMU_TIME_NONE] = "0 (never in the model)",
		[PMU_TIME_TSC] = "TSC ticks",
		[PMU_TIME_BUSY] = "TSC ticks a task runs (C0)",
		[PMU_TIME_CORE_IDLE] = "TSC ticks the CPU runs nothing (core C6)",
		[PMU_TIME_PKG_IDLE] = "TSC ticks no CPU runs anything (package C6)",
	};

	if (!m->nr_side_pmus)
		return;
	printf("\nPMUs beside %s (dynamic types, in this order)\n", m->pmu_name);
	for (unsigned i = 0; i < m->nr_side_pmus; i++) {
		const struct pmu_side_pmu *p = &m->side_pmus[i];

		printf("  %s (%s)\n", p->name, kinds[p->kind]);
		for (unsigned e = 0; e < p->nr_events; e++) {
			const struct pmu_side_event *ev = &p->events[e];

			if (p->kind == PMU_SIDE_UNCORE)
				printf("    %-32s 0x%-10" PRIx64 " %s\n", ev->perf_name,
				       ev->config, sim_source_name(ev->source));
			else
				printf("    %-16s 0x%-10" PRIx64 " %s\n", ev->name, ev->config,
				       times[ev->time]);
		}
	}
}

static void print_model(const struct pmu_model *m)
{
	const struct pmu_cpu_identity *id = &m->cpu;

	printf("%s: %s%s\n", m->name, m->summary,
	       m == pmu_model_default() ? " (default)" : "");
	printf("  %-18s %s\n", "arch", arch_name(m->arch));
	printf("  %-18s %s (type %u)\n", "PMU", m->pmu_name, m->pmu_type);
	if (m->arch == PMU_ARCH_ARM_PMUV3) {
		printf("  %-18s %u event counters, %u-bit (idx 1-%u)\n", "counters",
		       m->nr_gp_counters, m->gp_width, m->nr_gp_counters);
		if (m->has_cycle_counter)
			printf("  %-18s PMCCNTR_EL0, 64-bit (idx 0), CPU_CYCLES only\n", "");
		printf("  %-18s %s\n", "64-bit events", m->chain_for_64bit ?
		       "config1:0 chains an even/odd counter pair" :
		       "config1:0 on one 64-bit counter");
		printf("  %-18s %s\n", "CPU", id->vendor);
		printf("  %-18s 0x%08" PRIx32 "\n", "MIDR", id->midr);
		printf("  %-18s %u\n", "PMUVer", id->perfmon_version);
	} else {
		printf("  %-18s %u general, %u-bit (idx 0-%u)\n", "counters",
		       m->nr_gp_counters, m->gp_width, m->nr_gp_counters - 1);
		if (m->nr_fixed_counters)
			printf("  %-18s %u fixed, %u-bit (idx %u-%u)\n", "",
			       m->nr_fixed_counters, m->fixed_width, PMU_IDX_FIXED,
			       PMU_IDX_FIXED + m->nr_fixed_counters - 1);
		printf("  %-18s %s family 0x%x model 0x%x stepping %u\n", "CPU", id->vendor,
		       id->family, id->model, id->stepping);
		if (id->perfmon_version)
			printf("  %-18s %u\n", "perfmon version", id->perfmon_version);
	}
	printf("  %-18s %s\n", "model name", id->brand);
	printf("  %-18s %s\n", "LIBPFM_FORCE_PMU", id->pfm_name);
	printf("  %-18s %s\n", "PERF_CPUID", id->perf_cpuid);
	printf("  %-18s %.3f GHz core, %.3f GHz reference\n", "clocks",
	       (double)m->freq_hz / 1e9, (double)m->tsc_hz / 1e9);
	printf("  %-18s %u ms\n", "mux interval", m->mux_interval_ms);
	printf("  %-18s %u\n", "max precise_ip", m->max_precise);
	printf("  %-18s 0x%" PRIx64 "\n", "raw config mask", m->raw_config_mask);

	printf("\nformat/\n");
	for (unsigned i = 0; i < m->nr_formats; i++)
		printf("  %-18s %s\n", m->formats[i].name, m->formats[i].spec);
	printf("\ncaps/\n");
	for (unsigned i = 0; i < m->nr_caps; i++)
		printf("  %-18s %s\n", m->caps[i].name, m->caps[i].value);

	print_generic(m);

	print_events(m, false, "events/");
	print_events(m, true, "vendor event list (no events/ file: perf's pmu-events name them)");
	print_side_pmus(m);
}

static int known_list(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < pmu_model_count() && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
				      pmu_model_at(i)->name);
	return 0;
}

int cmd_models(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const struct pmu_model *m;
	bool verbose = false;
	char known[256];
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hv", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			models_usage(stdout);
			return 0;
		case 'v':
			verbose = true;
			break;
		default:
			return cli_usage_error("models: unknown option '%s' (see pmusim models --help)",
					       argv[optind - 1]);
		}
	}
	if (optind < argc - 1)
		return cli_usage_error("models: too many arguments (see pmusim models --help)");

	if (optind == argc) {
		if (!verbose) {
			print_table();
			return 0;
		}
		for (unsigned i = 0; i < pmu_model_count(); i++) {
			if (i)
				printf("\n");
			print_model(pmu_model_at(i));
		}
		return 0;
	}

	m = pmu_model_find(argv[optind]);
	if (!m) {
		known_list(known, sizeof(known));
		return cli_usage_error("unknown model '%s' (known: %s)", argv[optind], known);
	}
	print_model(m);
	return 0;
}
