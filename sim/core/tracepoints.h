/*
 * tracepoints.h - the simulated kernel's tracepoints: the catalogue (the
 * events/<system>/<name>/{id,format} files of tracefs, generated from a
 * host's by scripts/gen-tracepoints into tp_catalog.inc), the records a
 * machine fires (trace_sys_enter, trace_sched_switch...), and the event
 * filters of PERF_EVENT_IOC_SET_FILTER (kernel/trace/trace_events_filter.c).
 * The PMU that counts them is pmu_tp.c.
 */
#ifndef PMUSIM_TRACEPOINTS_H
#define PMUSIM_TRACEPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One field of a tracepoint's record, as its format file prints it. */
struct tp_field {
	const char *decl;       /* "unsigned int fd", "char prev_comm[16]" */
	const char *name;
	unsigned offset, size;
	bool is_signed;
};

/* One tracepoint (struct trace_event_call). */
struct tp_event {
	uint32_t id;            /* the events/.../id file, PERF_TYPE_TRACEPOINT config */
	const char *system, *name;
	int syscall_nr;         /* syscalls: the x86-64 number, else -1 */
	unsigned entry_size;    /* sizeof the fixed record (dynamic strings follow) */
	const struct tp_field *fields;  /* after the common ones; ends with a NULL decl */
	const char *print_fmt;
};

/* The four common fields every record starts with (struct trace_entry). */
extern const struct tp_field tp_common_fields[];

/* The event's id in force (PERF_TYPE_TRACEPOINT config, common_type, the
 * tracefs id file): the host's tracefs id where readable, else the
 * catalogue's; tp_find_id looks those up. */
uint32_t tp_id(const struct tp_event *tp);
const struct tp_event *tp_find_id(uint32_t id);
/* Takes the ids from the tracefs at root (NULL: the catalogue's); done
 * once by the first lookup, or first by a test. */
void tp_ids_load(const char *root);
const struct tp_event *tp_find_name(const char *system, const char *name);
/* The syscalls:sys_enter_<nr> (exit false) or sys_exit_<nr> event. */
const struct tp_event *tp_find_syscall(long nr, bool exit);
/* The catalogue in id order: tp_at(0 .. tp_count()-1). */
unsigned tp_count(void);
const struct tp_event *tp_at(unsigned i);
/* A field of tp by name, the common ones included; NULL if none. */
const struct tp_field *tp_field_find(const struct tp_event *tp, const char *name);
/* The events/<system>/<name>/format file (print_fmt_show / f_show of
 * kernel/trace/trace_events.c) into buf; returns its length (as
 * snprintf: may exceed len). */
size_t tp_format(const struct tp_event *tp, char *buf, size_t len);

/* ---- filters (PERF_EVENT_IOC_SET_FILTER) ---- */

#define TP_FILTER_MAX_OPS 32

enum tp_filter_op {
	TP_OP_EQ, TP_OP_NE, TP_OP_LT, TP_OP_LE, TP_OP_GT, TP_OP_GE, TP_OP_BAND,
	TP_OP_AND, TP_OP_OR,    /* postfix: combine the top two results */
};

struct tp_filter_op_rec {
	uint8_t op;             /* enum tp_filter_op */
	uint8_t size;           /* field size (1, 2, 4, 8) */
	bool is_signed;
	uint16_t offset;
	uint64_t value;
};

/* A compiled filter: a postfix program over the record, n 0: none. */
struct tp_filter {
	unsigned n;
	struct tp_filter_op_rec ops[TP_FILTER_MAX_OPS];
};

/* create_filter(): compiles str for tp into *out; 0, or the errno the
 * kernel's parser gives a filter it rejects (tp_filter.c). */
int tp_filter_compile(const struct tp_event *tp, const char *str, struct tp_filter *out);
/* filter_match_preds(): whether record passes f (an empty f passes all). */
bool tp_filter_match(const struct tp_filter *f, const void *record);

#endif
