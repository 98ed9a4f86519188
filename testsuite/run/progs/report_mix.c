/*
 * report_mix.c - the workload of the perf report vs callgrind test
 * (report_vs_callgrind.sh): several functions of different weights doing
 * loops, calls, loads and stores, ~30M user instructions in all. Built
 * -O1 -fno-inline so each function keeps its own symbol. No libc in the
 * hot paths (a libc routine chosen by IFUNC could differ between the host
 * CPU under callgrind and the modelled CPU), one printf at the end so the
 * work is not optimised away.
 */
#include <stdio.h>
#include <stdint.h>

#define N 4096

static uint32_t a[N], b[N];
static uint64_t m1[24][24], m2[24][24], m3[24][24];

/* stores: a[] from a linear congruential generator */
static void fill(uint32_t seed)
{
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		a[i] = seed >> 8;
	}
}

/* loads: the sum of a[] */
static uint64_t sum(void)
{
	uint64_t s = 0;

	for (int i = 0; i < N; i++)
		s += a[i];
	return s;
}

/* loads and stores: b[] = a[] mixed with its neighbour */
static void mix(void)
{
	for (int i = 1; i < N; i++)
		b[i] = (a[i] ^ (b[i - 1] << 3)) + (a[i] >> 5);
}

/* a leaf called from matmul: the dot product of a row and a column */
static uint64_t dot(int r, int c)
{
	uint64_t s = 0;

	for (int k = 0; k < 24; k++)
		s += m1[r][k] * m2[k][c];
	return s;
}

/* calls: m3 = m1 * m2, one dot() per element */
static void matmul(void)
{
	for (int r = 0; r < 24; r++)
		for (int c = 0; c < 24; c++)
			m3[r][c] = dot(r, c);
}

/* calls: naive recursion */
static unsigned fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* data-dependent branches: insertion sort of the first n words of b[] */
static void isort(int n)
{
	for (int i = 1; i < n; i++) {
		uint32_t v = b[i];
		int j = i - 1;

		while (j >= 0 && b[j] > v) {
			b[j + 1] = b[j];
			j--;
		}
		b[j + 1] = v;
	}
}

int main(void)
{
	uint64_t acc = 0;

	for (int r = 0; r < 24; r++)
		for (int c = 0; c < 24; c++) {
			m1[r][c] = (uint64_t)(r * 24 + c);
			m2[r][c] = (uint64_t)(c * 7 + r + 1);
		}
	for (unsigned it = 0; it < 97; it++) {
		fill(it * 2654435761u);
		acc += sum();
		mix();
		if (it % 3 == 0)
			matmul();
		acc += m3[it % 24][(it * 5) % 24];
	}
	acc += fib(27);
	for (unsigned it = 0; it < 5; it++) {
		fill(it + 17);
		mix();
		isort(700);
		acc += b[it];
	}
	printf("%llu\n", (unsigned long long)acc);
	return 0;
}
