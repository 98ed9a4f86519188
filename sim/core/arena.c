/*
 * arena.c - heap and shared arenas for the simulated kernel (arena.h).
 *
 * A shared arena's first page holds its header; blocks follow, each with a
 * 16-byte header giving its size (header included) and whether it is free.
 * Invariant: blocks tile [first, end) exactly; no two adjacent blocks are
 * both free (free coalesces with the next and the previous block).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <assert.h>
#include "sim/core/arena.h"
#include "sim/core/fd_place.h"

#define ARENA_MAGIC UINT64_C(0x616e6572614d5550) /* "PUMarena" */
#define PAGE 4096UL

struct block {
	uint64_t size;                  /* bytes including this header */
	uint32_t free;
	uint32_t pad;                   /* 0, or bytes before the header for alignment */
};

struct perf_arena {
	uint64_t magic;
	uint64_t size;                  /* whole mapping, header page included */
	uint64_t used;
	void *base;                     /* the fixed address */
	void *root;
	bool heap;
	pthread_mutex_t lock;           /* PTHREAD_PROCESS_SHARED, robust */
};

static struct perf_arena heap_arena = { .heap = true };
/* This process's fd of the shared arena it created or attached. */
static int local_memfd = -1;

struct perf_arena *perf_arena_heap(void)
{
	return &heap_arena;
}

static struct block *first_block(struct perf_arena *a)
{
	return (struct block *)((char *)a->base + PAGE);
}

static char *arena_end(struct perf_arena *a)
{
	return (char *)a->base + a->size;
}

static void arena_lock(struct perf_arena *a)
{
	if (pthread_mutex_lock(&a->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&a->lock); /* a process died holding it */
}

int perf_arena_create(size_t size, void *addr, struct perf_arena **out)
{
	pthread_mutexattr_t ma;
	struct perf_arena *a;
	struct block *b;
	int fd, err;
	void *p;

	size = (size + PAGE - 1) & ~(PAGE - 1);
	if (size < 4 * PAGE)
		return -EINVAL;
	fd = memfd_create("pmusim-arena", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0) {
		err = -errno;
		goto err_close;
	}
	p = mmap(addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | (addr ? MAP_FIXED_NOREPLACE : 0),
		 fd, 0);
	if (p == MAP_FAILED) {
		err = -errno;
		goto err_close;
	}
	if (addr && p != addr) { /* kernels without MAP_FIXED_NOREPLACE */
		munmap(p, size);
		err = -EEXIST;
		goto err_close;
	}
	a = p;
	a->magic = ARENA_MAGIC;
	a->size = size;
	a->base = p;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&a->lock, &ma);
	pthread_mutexattr_destroy(&ma);
	b = first_block(a);
	b->size = size - PAGE;
	b->free = 1;
	local_memfd = fd;
	*out = a;
	return 0;

err_close:
	close(fd);
	return err;
}

int perf_arena_attach(int memfd, struct perf_arena **out)
{
	struct perf_arena hdr, *a;
	void *p;

	if (pread(memfd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || hdr.magic != ARENA_MAGIC)
		return -EINVAL;
	p = mmap(hdr.base, hdr.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
		 memfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (p != hdr.base) {
		munmap(p, hdr.size);
		return -EEXIST;
	}
	a = p;
	local_memfd = memfd;
	*out = a;
	return 0;
}

void perf_arena_detach(struct perf_arena *a)
{
	if (!a || a->heap)
		return;
	munmap(a->base, a->size);
}

/* Splits b so that its first `need` bytes stay a block. */
static void split(struct block *b, uint64_t need)
{
	if (b->size >= need + sizeof(struct block) + 16) {
		struct block *rest = (struct block *)((char *)b + need);

		rest->size = b->size - need;
		rest->free = 1;
		rest->pad = 0;
		b->size = need;
	}
}

void *perf_arena_alloc(struct perf_arena *a, size_t size, size_t align)
{
	struct block *b;
	void *ret = NULL;

	if (align < 16)
		align = 16;
	assert(!(align & (align - 1)) && align <= PAGE);
	if (a->heap) {
		if (posix_memalign(&ret, align, size ? size : 1))
			return NULL;
		memset(ret, 0, size);
		return ret;
	}
	arena_lock(a);
	for (b = first_block(a); (char *)b < arena_end(a); b = (struct block *)((char *)b + b->size)) {
		uintptr_t start, data;
		uint64_t lead, need;

		if (!b->free)
			continue;
		/* the data goes at the first aligned address after a header */
		start = (uintptr_t)b;
		data = (start + sizeof(struct block) + align - 1) & ~(uintptr_t)(align - 1);
		lead = data - sizeof(struct block) - start;
		if (lead && lead < sizeof(struct block) + 16) {
			data += align;
			lead += align;
		}
		need = (data - start - lead) + ((size + 15) & ~(size_t)15);
		if (b->size < lead + need)
			continue;
		if (lead) { /* leave a free block in front */
			struct block *nb = (struct block *)(start + lead);

			nb->size = b->size - lead;
			nb->free = 1;
			b->size = lead;
			b = nb;
		}
		split(b, need);
		b->free = 0;
		a->used += b->size;
		ret = (char *)b + sizeof(struct block);
		assert((uintptr_t)ret % align == 0);
		memset(ret, 0, size);
		break;
	}
	pthread_mutex_unlock(&a->lock);
	return ret;
}

void perf_arena_free(struct perf_arena *a, void *p)
{
	struct block *b, *prev = NULL, *cur;

	if (!p)
		return;
	if (a->heap) {
		free(p);
		return;
	}
	b = (struct block *)((char *)p - sizeof(struct block));
	arena_lock(a);
	assert(!b->free);
	b->free = 1;
	a->used -= b->size;
	/* coalesce with the next block */
	cur = (struct block *)((char *)b + b->size);
	if ((char *)cur < arena_end(a) && cur->free)
		b->size += cur->size;
	/* and with the previous one (found by walking: frees are rare) */
	for (cur = first_block(a); cur != b; prev = cur, cur = (struct block *)((char *)cur + cur->size))
		;
	if (prev && prev->free)
		prev->size += b->size;
	pthread_mutex_unlock(&a->lock);
}

void *perf_arena_root(const struct perf_arena *a)
{
	return a->root;
}

void perf_arena_set_root(struct perf_arena *a, void *root)
{
	a->root = root;
}

int perf_arena_memfd(const struct perf_arena *a)
{
	return a->heap ? -1 : local_memfd;
}

int perf_arena_memfd_move(const struct perf_arena *a, int lo, int hi)
{
	int fd;

	if (a->heap || local_memfd < 0)
		return -EINVAL;
	fd = fd_place(NULL, local_memfd, lo, hi, true, false);
	if (fd < 0)
		return fd;
	close(local_memfd);
	local_memfd = fd;
	return fd;
}

uint64_t perf_arena_offset(const struct perf_arena *a, const void *p)
{
	return (uint64_t)((const char *)p - (const char *)a->base);
}

size_t perf_arena_used(const struct perf_arena *a)
{
	return a->used;
}

size_t perf_arena_size(const struct perf_arena *a)
{
	return a->heap ? 0 : a->size;
}
