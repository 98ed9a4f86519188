/*
 * bench_compute.c - the compute benchmark of scripts/bench: a mix of an
 * integer hash table (random loads and stores), an in-place merge sort
 * (sequential loads and stores) and a small matrix multiply, with a
 * checksum printed so every run can be compared. Size: argv[1] rounds
 * (default 6, about 1 s natively on the project's machines).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TABLE (1u << 18)
#define NSORT (1u << 18)
#define MAT 96

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t hash_round(uint32_t *keys, uint32_t *vals)
{
	uint64_t sum = 0;

	memset(keys, 0, TABLE * sizeof(*keys));
	for (unsigned i = 0; i < TABLE / 2; i++) {
		uint32_t k = (uint32_t)next() | 1;
		uint32_t h = (k * 2654435761u) & (TABLE - 1);

		while (keys[h] && keys[h] != k)
			h = (h + 1) & (TABLE - 1);
		keys[h] = k;
		vals[h] += i;
	}
	for (unsigned i = 0; i < TABLE; i++)
		sum += (uint64_t)keys[i] * vals[i];
	return sum;
}

static void merge_sort(uint32_t *a, uint32_t *tmp, unsigned n)
{
	for (unsigned w = 1; w < n; w *= 2) {
		for (unsigned lo = 0; lo < n; lo += 2 * w) {
			unsigned mid = lo + w < n ? lo + w : n;
			unsigned hi = lo + 2 * w < n ? lo + 2 * w : n;
			unsigned i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
		}
		memcpy(a, tmp, n * sizeof(*a));
	}
}

static uint64_t sort_round(uint32_t *a, uint32_t *tmp)
{
	uint64_t sum = 0;

	for (unsigned i = 0; i < NSORT; i++)
		a[i] = (uint32_t)next();
	merge_sort(a, tmp, NSORT);
	for (unsigned i = 0; i < NSORT; i += 97)
		sum += a[i] ^ i;
	return sum;
}

static uint64_t mat_round(double *x, double *y, double *z)
{
	double s = 0;

	for (unsigned i = 0; i < MAT * MAT; i++) {
		x[i] = (double)(next() % 1000) / 7.0;
		y[i] = (double)(next() % 1000) / 11.0;
	}
	for (unsigned i = 0; i < MAT; i++)
		for (unsigned j = 0; j < MAT; j++) {
			double acc = 0;

			for (unsigned k = 0; k < MAT; k++)
				acc += x[i * MAT + k] * y[k * MAT + j];
			z[i * MAT + j] = acc;
		}
	for (unsigned i = 0; i < MAT * MAT; i++)
		s += z[i];
	return (uint64_t)s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 6;
	uint32_t *keys = calloc(TABLE, sizeof(*keys));
	uint32_t *vals = calloc(TABLE, sizeof(*vals));
	uint32_t *a = malloc(NSORT * sizeof(*a));
	uint32_t *tmp = malloc(NSORT * sizeof(*tmp));
	double *x = malloc(MAT * MAT * sizeof(*x));
	double *y = malloc(MAT * MAT * sizeof(*y));
	double *z = malloc(MAT * MAT * sizeof(*z));
	uint64_t sum = 0;

	if (!keys || !vals || !a || !tmp || !x || !y || !z)
		return 1;
	for (int r = 0; r < rounds; r++) {
		sum += hash_round(keys, vals);
		sum += sort_round(a, tmp);
		sum += mat_round(x, y, z);
	}
	printf("checksum %016llx\n", (unsigned long long)sum);
	free(keys); free(vals); free(a); free(tmp); free(x); free(y); free(z);
	return 0;
}
