/*
 * touched.c - the present pages of a guest address space (touched.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim/linux/touched.h"

#define CHUNK_SHIFT 21
#define PAGE_SHIFT 12

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

/* The chunk of key, or NULL. */
static struct touched_chunk *find(const struct touched_pages *tp, uint64_t key)
{
	if (!tp->cap)
		return NULL;
	for (size_t i = slot_of(key, tp->cap);; i = (i + 1) & (tp->cap - 1)) {
		struct touched_chunk *c = &tp->t[i];

		if (c->key == key)
			return c;
		if (!c->key)
			return NULL;
	}
}

static int grow(struct touched_pages *tp)
{
	size_t nc = tp->cap ? tp->cap * 2 : 64;
	struct touched_chunk *n = calloc(nc, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < tp->cap; i++) {
		size_t j;

		if (!tp->t[i].key)
			continue;
		for (j = slot_of(tp->t[i].key, nc); n[j].key; j = (j + 1) & (nc - 1))
			;
		n[j] = tp->t[i];
	}
	free(tp->t);
	tp->t = n;
	tp->cap = nc;
	return 0;
}

/* The chunk of key, created empty if missing; NULL without memory.
 * Chunks are never removed (their bits are cleared): the table only grows
 * with the address space's footprint. */
static struct touched_chunk *get(struct touched_pages *tp, uint64_t key)
{
	struct touched_chunk *c = find(tp, key);
	size_t i;

	if (c)
		return c;
	if ((tp->nr + 1) * 4 > tp->cap * 3 && grow(tp))
		return NULL;
	for (i = slot_of(key, tp->cap); tp->t[i].key; i = (i + 1) & (tp->cap - 1))
		;
	tp->t[i].key = key;
	tp->nr++;
	return &tp->t[i];
}

unsigned touched_get(const struct touched_pages *tp, uint64_t addr)
{
	const struct touched_chunk *c = find(tp, (addr >> CHUNK_SHIFT) + 1);
	unsigned pg = (addr >> PAGE_SHIFT) & 511, f = 0;

	if (!c)
		return 0;
	if ((c->bits[0][pg >> 6] >> (pg & 63)) & 1)
		f |= TOUCHED_P;
	if ((c->bits[1][pg >> 6] >> (pg & 63)) & 1)
		f |= TOUCHED_W;
	return f;
}

/* Adds (set) or removes the flags of [s,e) in chunk c. */
static void chunk_range(struct touched_chunk *c, uint64_t s, uint64_t e, unsigned flags, bool set)
{
	uint64_t base = (c->key - 1) << CHUNK_SHIFT;
	uint64_t lo = s > base ? s : base;
	uint64_t hi = e < base + (1ull << CHUNK_SHIFT) ? e : base + (1ull << CHUNK_SHIFT);

	for (uint64_t a = lo; a < hi; a += 1ull << PAGE_SHIFT) {
		unsigned pg = (a >> PAGE_SHIFT) & 511;
		uint64_t m = 1ull << (pg & 63);

		for (unsigned b = 0; b < 2; b++) {
			if (!(flags & (1u << b)))
				continue;
			if (set)
				c->bits[b][pg >> 6] |= m;
			else
				c->bits[b][pg >> 6] &= ~m;
		}
	}
}

int touched_set_range(struct touched_pages *tp, uint64_t s, uint64_t e, unsigned flags)
{
	for (uint64_t k = (s >> CHUNK_SHIFT) + 1; s < e && k <= ((e - 1) >> CHUNK_SHIFT) + 1; k++) {
		struct touched_chunk *c = get(tp, k);

		if (!c)
			return -ENOMEM;
		chunk_range(c, s, e, flags, true);
	}
	return 0;
}

int touched_set(struct touched_pages *tp, uint64_t addr, unsigned flags)
{
	addr &= ~((1ull << PAGE_SHIFT) - 1);
	return touched_set_range(tp, addr, addr + (1ull << PAGE_SHIFT), flags);
}

void touched_clear_range(struct touched_pages *tp, uint64_t s, uint64_t e, unsigned flags)
{
	uint64_t k0 = (s >> CHUNK_SHIFT) + 1, k1;

	if (s >= e || !tp->nr)
		return;
	k1 = ((e - 1) >> CHUNK_SHIFT) + 1;
	if (k1 - k0 >= tp->cap) {
		/* a range wider than the table: walk the table instead */
		for (size_t i = 0; i < tp->cap; i++)
			if (tp->t[i].key >= k0 && tp->t[i].key <= k1)
				chunk_range(&tp->t[i], s, e, flags, false);
		return;
	}
	for (uint64_t k = k0; k <= k1; k++) {
		struct touched_chunk *c = find(tp, k);

		if (c)
			chunk_range(c, s, e, flags, false);
	}
}

void touched_free(struct touched_pages *tp)
{
	free(tp->t);
	memset(tp, 0, sizeof(*tp));
}
