/*
 * callers.c - the workload of the callchain test: main calls two leaf
 * functions, each with its own frame (built -O0 with frame pointers: gcc
 * -O1 leaves a leaf without one even then), so the kernel's frame-pointer walk (perf_callchain_user)
 * finds main as their caller.
 */
__attribute__((noinline)) long work_a(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	return s;
}

__attribute__((noinline)) long work_b(long n)
{
	long s = 1;

	for (long i = 0; i < n; i++)
		s += i * 3 + (s >> 5);
	return s;
}

int main(void)
{
	return (int)((work_a(3000000) + work_b(3000000)) & 1);
}
