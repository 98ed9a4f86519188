/*
 * tp_catalog.c - the tracepoint catalogue (tracepoints.h): lookups over the
 * generated table tp_catalog.inc and the format files tracefs shows.
 */
#include <stdio.h>
#include <string.h>
#include "sim/core/tracepoints.h"

#include "sim/core/tp_catalog.inc"

#define TP_COUNT (sizeof(tp_catalog) / sizeof(tp_catalog[0]))

/* struct trace_entry (include/linux/trace_events.h) */
const struct tp_field tp_common_fields[] = {
	{ "unsigned short common_type", "common_type", 0, 2, false },
	{ "unsigned char common_flags", "common_flags", 2, 1, false },
	{ "unsigned char common_preempt_count", "common_preempt_count", 3, 1, false },
	{ "int common_pid", "common_pid", 4, 4, true },
	{ 0 },
};

unsigned tp_count(void)
{
	return TP_COUNT;
}

const struct tp_event *tp_at(unsigned i)
{
	return i < TP_COUNT ? &tp_catalog[i] : NULL;
}

/* The table is in id order (the generator sorts it). */
const struct tp_event *tp_find_id(uint32_t id)
{
	size_t lo = 0, hi = TP_COUNT;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (tp_catalog[mid].id == id)
			return &tp_catalog[mid];
		if (tp_catalog[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct tp_event *tp_find_name(const char *system, const char *name)
{
	for (size_t i = 0; i < TP_COUNT; i++)
		if (!strcmp(tp_catalog[i].system, system) && !strcmp(tp_catalog[i].name, name))
			return &tp_catalog[i];
	return NULL;
}

/* Syscall number -> catalogue index + 1 (0: none), per direction; built
 * once per process (the same table everywhere, so a racing build writes
 * the same values). */
#define TP_MAX_SYSCALL 512
static uint16_t tp_sys_index[2][TP_MAX_SYSCALL];
static bool tp_sys_index_built;

const struct tp_event *tp_find_syscall(long nr, bool exit)
{
	unsigned i;

	if (nr < 0 || nr >= TP_MAX_SYSCALL)
		return NULL;
	if (!__atomic_load_n(&tp_sys_index_built, __ATOMIC_ACQUIRE)) {
		for (i = 0; i < TP_COUNT; i++) {
			const struct tp_event *tp = &tp_catalog[i];

			if (tp->syscall_nr >= 0 && tp->syscall_nr < TP_MAX_SYSCALL)
				tp_sys_index[!strncmp(tp->name, "sys_exit_", 9)][tp->syscall_nr] = (uint16_t)(i + 1);
		}
		__atomic_store_n(&tp_sys_index_built, true, __ATOMIC_RELEASE);
	}
	i = tp_sys_index[exit][nr];
	return i ? &tp_catalog[i - 1] : NULL;
}

const struct tp_field *tp_field_find(const struct tp_event *tp, const char *name)
{
	for (const struct tp_field *f = tp_common_fields; f->decl; f++)
		if (!strcmp(f->name, name))
			return f;
	for (const struct tp_field *f = tp->fields; f->decl; f++)
		if (!strcmp(f->name, name))
			return f;
	return NULL;
}

/* Appends printf output at *pos within len, counting past the end. */
#define TP_PUT(...) (pos += (size_t)snprintf(buf + (pos < len ? pos : len), \
					      pos < len ? len - pos : 0, __VA_ARGS__))

/* f_show(): "name:", "ID:", "format:", the common fields, a blank line,
 * the event's fields, a blank line, then "print fmt: ". */
size_t tp_format(const struct tp_event *tp, char *buf, size_t len)
{
	size_t pos = 0;
	const struct tp_field *f;

	if (len)
		buf[0] = 0;
	TP_PUT("name: %s\nID: %u\nformat:\n", tp->name, tp->id);
	for (f = tp_common_fields; f->decl; f++)
		TP_PUT("\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
		       f->decl, f->offset, f->size, f->is_signed);
	TP_PUT("\n");
	for (f = tp->fields; f->decl; f++)
		TP_PUT("\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
		       f->decl, f->offset, f->size, f->is_signed);
	TP_PUT("\nprint fmt: %s\n", tp->print_fmt);
	return pos;
}
