/*
 * tp_filter.c - tracepoint event filters (PERF_EVENT_IOC_SET_FILTER), the
 * numeric subset of kernel/trace/trace_events_filter.c: predicates
 * "field op value" with ==, !=, <, <=, >, >=, & over a record's integer
 * fields (the common ones included), joined by && and || (&& binds
 * tighter) and grouped by parentheses. A filter is compiled to a postfix
 * program kept in the event, and matched against each record.
 *
 * The errnos are process_preds()'s: -EINVAL for a predicate that does not
 * parse (unknown field, operator, value; a negative value for an unsigned
 * field) and for no predicate at all, -EPERM (its ret = -1) for text after
 * a predicate that is no operator or for a ')' too many, -ENOENT for a
 * '(' left open; a trailing && or || ends the filter (#11 of its loop).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim/core/tracepoints.h"

struct tp_parser {
	const struct tp_event *tp;
	const char *s;
	struct tp_filter *out;
	unsigned depth;
};

static void skip_space(struct tp_parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

static int emit(struct tp_parser *p, struct tp_filter_op_rec rec)
{
	if (p->out->n >= TP_FILTER_MAX_OPS)
		return -EINVAL;
	p->out->ops[p->out->n++] = rec;
	return 0;
}

/* The comparison at p->s (longest match first); -1 if none. */
static int parse_cmp(struct tp_parser *p)
{
	static const struct { const char *text; enum tp_filter_op op; } ops[] = {
		{ "==", TP_OP_EQ }, { "!=", TP_OP_NE }, { "<=", TP_OP_LE }, { ">=", TP_OP_GE },
		{ "<", TP_OP_LT }, { ">", TP_OP_GT }, { "&", TP_OP_BAND },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].text);

		if (!strncmp(p->s, ops[i].text, n) && !(n == 1 && p->s[0] == '&' && p->s[1] == '&')) {
			p->s += n;
			return ops[i].op;
		}
	}
	return -1;
}

/* parse_pred(): field op value, the value as kstrtoull/kstrtoll take it
 * (base 0; a minus sign only for a signed field). */
static int parse_pred(struct tp_parser *p)
{
	char name[64], *end;
	size_t n = 0;
	const struct tp_field *f;
	struct tp_filter_op_rec rec = { 0 };
	int op;

	while (isalnum((unsigned char)*p->s) || *p->s == '_') {
		if (n + 1 >= sizeof(name))
			return -EINVAL;
		name[n++] = *p->s++;
	}
	name[n] = 0;
	f = n ? tp_field_find(p->tp, name) : NULL;
	/* numeric fields only: arrays and __data_loc strings are not */
	if (!f || strchr(f->decl, '[') ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return -EINVAL;
	skip_space(p);
	op = parse_cmp(p);
	if (op < 0)
		return -EINVAL;
	skip_space(p);
	if (!isdigit((unsigned char)*p->s) && !(*p->s == '-' && f->is_signed))
		return -EINVAL;
	errno = 0;
	rec.value = f->is_signed ? (uint64_t)strtoll(p->s, &end, 0) : strtoull(p->s, &end, 0);
	if (errno || end == p->s || isalnum((unsigned char)*end) || *end == '_')
		return -EINVAL;
	p->s = end;
	rec.op = (uint8_t)op;
	rec.size = (uint8_t)f->size;
	rec.is_signed = f->is_signed;
	rec.offset = (uint16_t)f->offset;
	return emit(p, rec);
}

static int parse_or(struct tp_parser *p);

static int parse_factor(struct tp_parser *p)
{
	int err;

	skip_space(p);
	if (*p->s != '(')
		return parse_pred(p);
	if (++p->depth > TP_FILTER_MAX_OPS)
		return -EINVAL;
	p->s++;
	err = parse_or(p);
	if (err)
		return err;
	skip_space(p);
	if (*p->s != ')')
		return *p->s ? -EPERM : -ENOENT;
	p->s++;
	p->depth--;
	return 0;
}

/* operand (op operand)*, left to right; a trailing op ends the filter. */
static int parse_chain(struct tp_parser *p, const char *op_text, enum tp_filter_op op,
		       int (*operand)(struct tp_parser *p))
{
	int err = operand(p);

	for (;;) {
		if (err)
			return err;
		skip_space(p);
		if (strncmp(p->s, op_text, 2))
			return 0;
		p->s += 2;
		skip_space(p);
		if (!*p->s)
			return 0;
		err = operand(p);
		if (!err)
			err = emit(p, (struct tp_filter_op_rec){ .op = (uint8_t)op });
	}
}

static int parse_and(struct tp_parser *p)
{
	return parse_chain(p, "&&", TP_OP_AND, parse_factor);
}

static int parse_or(struct tp_parser *p)
{
	return parse_chain(p, "||", TP_OP_OR, parse_and);
}

int tp_filter_compile(const struct tp_event *tp, const char *str, struct tp_filter *out)
{
	struct tp_parser p = { .tp = tp, .s = str, .out = out };
	int err;

	out->n = 0;
	err = parse_or(&p);
	skip_space(&p);
	if (!err && *p.s)
		err = -EPERM;
	if (err)
		out->n = 0;
	return err;
}

/* The field at rec's offset, widened as its signedness says. */
static uint64_t field_value(const struct tp_filter_op_rec *rec, const unsigned char *record)
{
	switch (rec->size) {
	case 1: { uint8_t v; memcpy(&v, record + rec->offset, 1);
		return rec->is_signed ? (uint64_t)(int64_t)(int8_t)v : v; }
	case 2: { uint16_t v; memcpy(&v, record + rec->offset, 2);
		return rec->is_signed ? (uint64_t)(int64_t)(int16_t)v : v; }
	case 4: { uint32_t v; memcpy(&v, record + rec->offset, 4);
		return rec->is_signed ? (uint64_t)(int64_t)(int32_t)v : v; }
	default: { uint64_t v; memcpy(&v, record + rec->offset, 8); return v; }
	}
}

/* The filter_pred_* comparisons (signed ones for signed fields). */
static bool pred_match(const struct tp_filter_op_rec *rec, const unsigned char *record)
{
	uint64_t v = field_value(rec, record);
	int cmp = rec->is_signed ?
		  ((int64_t)v > (int64_t)rec->value) - ((int64_t)v < (int64_t)rec->value) :
		  (v > rec->value) - (v < rec->value);

	switch (rec->op) {
	case TP_OP_EQ: return cmp == 0;
	case TP_OP_NE: return cmp != 0;
	case TP_OP_LT: return cmp < 0;
	case TP_OP_LE: return cmp <= 0;
	case TP_OP_GT: return cmp > 0;
	case TP_OP_GE: return cmp >= 0;
	default: return (v & rec->value) != 0;     /* TP_OP_BAND */
	}
}

bool tp_filter_match(const struct tp_filter *f, const void *record)
{
	bool stack[TP_FILTER_MAX_OPS];
	unsigned sp = 0;

	if (!f->n)
		return true;
	for (unsigned i = 0; i < f->n; i++) {
		const struct tp_filter_op_rec *rec = &f->ops[i];

		if (rec->op == TP_OP_AND || rec->op == TP_OP_OR) {
			bool b = stack[--sp];

			stack[sp - 1] = rec->op == TP_OP_AND ? stack[sp - 1] && b : stack[sp - 1] || b;
		} else {
			stack[sp++] = pred_match(rec, record);
		}
	}
	return stack[0];
}
