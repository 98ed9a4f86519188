/*
 * arena.h - the memory one simulated kernel lives in. A heap arena is
 * private malloc'd memory (tests, the synthetic machine). A shared arena is
 * one memfd mapped MAP_SHARED at the same fixed address in every pmusim
 * process of a session, so the core's pointers hold everywhere; native
 * clients map pieces of it (ring buffers) by offset.
 *
 * Allocation is first-fit over a block list with coalescing, under a
 * process-shared lock. Every allocation is zeroed and 16-byte aligned;
 * page-aligned ones serve ring buffers.
 */
#ifndef PMUSIM_ARENA_H
#define PMUSIM_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct perf_arena;

/* A private arena backed by malloc (no size limit, nothing to map). */
struct perf_arena *perf_arena_heap(void);

/* Creates a shared arena of size bytes at addr (MAP_FIXED_NOREPLACE).
 * Returns 0 and *out, or -errno (-EEXIST when addr is taken). */
int perf_arena_create(size_t size, void *addr, struct perf_arena **out);
/* Maps an existing shared arena (its memfd, inherited or received) at the
 * address it was created at. Returns 0 or -errno (-EINVAL: not an arena). */
int perf_arena_attach(int memfd, struct perf_arena **out);
/* Unmaps this process's view (the creator's also closes nothing else). */
void perf_arena_detach(struct perf_arena *arena);

/* Zeroed memory of size bytes, aligned to align (a power of two, at most a
 * page); NULL when the arena is full. */
void *perf_arena_alloc(struct perf_arena *arena, size_t size, size_t align);
void perf_arena_free(struct perf_arena *arena, void *p);

/* The object the arena's user hangs everything on (the struct perf_core). */
void *perf_arena_root(const struct perf_arena *arena);
void perf_arena_set_root(struct perf_arena *arena, void *root);

/* For mapping a page-aligned allocation elsewhere: the memfd (-1 for a
 * heap arena) and the offset of p in it. */
int perf_arena_memfd(const struct perf_arena *arena);
/* Moves this process's fd of the shared arena to the highest free number
 * in [lo, hi) (above the soft RLIMIT_NOFILE if need be: fd_place.h),
 * without close-on-exec (an exec'd pmusim attaches to it), and closes the
 * old one: the number a program would see as its next fd stays free.
 * Returns the new fd or -errno (-EPERM: the hard limit is below hi). */
int perf_arena_memfd_move(const struct perf_arena *arena, int lo, int hi);
uint64_t perf_arena_offset(const struct perf_arena *arena, const void *p);

/* Bytes in use and the arena's size (0 for a heap arena). */
size_t perf_arena_used(const struct perf_arena *arena);
size_t perf_arena_size(const struct perf_arena *arena);

#endif
