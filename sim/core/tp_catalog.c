/*
 * tp_catalog.c - the tracepoint catalogue (tracepoints.h): lookups over the
 * generated table tp_catalog.inc and the format files tracefs shows.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/*
 * The ids in force. perf resolves a tracepoint's name through the host's
 * tracefs and opens the id it reads there, so on a kernel other than the
 * catalogue's the core must answer that kernel's numbers: each event takes
 * the id of the host's events/<system>/<name>/id where it can be read, the
 * catalogue's otherwise (an account that may not read tracefs cannot
 * resolve names there either). Built once per process; a racing build
 * writes the same values.
 */
static uint32_t tp_live_id[TP_COUNT];
static uint16_t tp_by_live_id[TP_COUNT];   /* catalogue indexes by live id */
static bool tp_live_built;

/* The id file's number, or 0 when it cannot be read (raw syscalls: this
 * may run in the shim's signal handler). */
static uint32_t host_id(const char *root, const struct tp_event *tp)
{
	char path[512], text[16];
	long n = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, tp->system, tp->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = 0;
	return (uint32_t)strtoul(text, NULL, 10);
}

void tp_ids_load(const char *root)
{
	for (unsigned i = 0; i < TP_COUNT; i++) {
		uint32_t id = root ? host_id(root, &tp_catalog[i]) : 0;

		tp_live_id[i] = id ? id : tp_catalog[i].id;
	}
	/* insertion sort: the catalogue is in its own id order, which a
	 * host's numbering mostly keeps */
	for (unsigned i = 0; i < TP_COUNT; i++) {
		unsigned j = i;

		while (j > 0 && tp_live_id[tp_by_live_id[j - 1]] > tp_live_id[i]) {
			tp_by_live_id[j] = tp_by_live_id[j - 1];
			j--;
		}
		tp_by_live_id[j] = (uint16_t)i;
	}
	__atomic_store_n(&tp_live_built, true, __ATOMIC_RELEASE);
}

static void tp_ids_ready(void)
{
	if (__atomic_load_n(&tp_live_built, __ATOMIC_ACQUIRE))
		return;
	tp_ids_load(access("/sys/kernel/tracing/events", R_OK) == 0 ? "/sys/kernel/tracing"
		    : "/sys/kernel/debug/tracing");
}

uint32_t tp_id(const struct tp_event *tp)
{
	tp_ids_ready();
	return tp_live_id[tp - tp_catalog];
}

const struct tp_event *tp_find_id(uint32_t id)
{
	size_t lo = 0, hi = TP_COUNT;

	tp_ids_ready();
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint32_t at = tp_live_id[tp_by_live_id[mid]];

		if (at == id)
			return &tp_catalog[tp_by_live_id[mid]];
		if (at < id)
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
	TP_PUT("name: %s\nID: %u\nformat:\n", tp->name, tp_id(tp));
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
