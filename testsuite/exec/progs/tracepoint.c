/* Tracepoint events on the emulated task itself, checked by arithmetic:
 * N getpid calls give N sys_enter_getpid and N sys_exit_getpid records,
 * each exit record carrying __syscall_nr 39 and getpid()'s value; filters
 * select by field. Ids come from the guest's tracefs. Prints "FAIL ..." and
 * exits 1 on the first mismatch; with argv[1] prints that event's format
 * file instead. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N 1000
#define NS 10
#define TRACEFS "/sys/kernel/tracing/events/"

static int fails;

#define CHECK(cond, ...) do { if (!(cond)) { printf("FAIL %s:%d ", __FILE__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); fails++; } } while (0)

static long tp_id(const char *ev)
{
	char path[256];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS "%s/id", ev);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &id) != 1)
		id = -1;
	if (f)
		fclose(f);
	return id;
}

static int open_tp(long id, uint64_t period, uint64_t sample_type)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = (uint64_t)id;
	a.sample_period = period;
	a.sample_type = sample_type;
	a.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static void getpids(int fd, int n)
{
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (int i = 0; i < n; i++)
		syscall(SYS_getpid);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

static uint64_t count_of(int fd)
{
	uint64_t v = ~0ull;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return ~0ull;
	return v;
}

/* N getpid under filter: the count it lets through (or -errno of the
 * SET_FILTER). */
static long filtered(long id, const char *filter)
{
	int fd = open_tp(id, 0, 0);
	long r;

	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter))
		r = -errno;
	else {
		getpids(fd, N);
		r = (long)count_of(fd);
	}
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	long enter = tp_id("syscalls/sys_enter_getpid"), ex = tp_id("syscalls/sys_exit_getpid");
	char filter[128];
	pid_t me = getpid();
	int fd;

	if (argc > 1) {
		char path[256], buf[8192];
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), TRACEFS "%s/format", argv[1]);
		f = fopen(path, "r");
		if (!f)
			return 1;
		n = fread(buf, 1, sizeof(buf), f);
		fwrite(buf, 1, n, stdout);
		fclose(f);
		return 0;
	}
	CHECK(enter > 0 && ex > 0, "ids %ld %ld", enter, ex);

	/* counting: N enters */
	fd = open_tp(enter, 0, 0);
	CHECK(fd >= 0, "open sys_enter_getpid: %s", strerror(errno));
	getpids(fd, N);
	CHECK(count_of(fd) == N, "sys_enter_getpid counted %llu, want %d",
	      (unsigned long long)count_of(fd), N);
	close(fd);

	/* sampling every exit: NS samples, each raw record the exit's */
	fd = open_tp(ex, 1, PERF_SAMPLE_RAW);
	CHECK(fd >= 0, "open sys_exit_getpid: %s", strerror(errno));
	{
		long pg = sysconf(_SC_PAGESIZE);
		struct perf_event_mmap_page *up = mmap(NULL, (size_t)pg * 9, PROT_READ | PROT_WRITE,
						       MAP_SHARED, fd, 0);
		unsigned char *data;
		uint64_t pos, head;
		int samples = 0;

		CHECK(up != MAP_FAILED, "mmap: %s", strerror(errno));
		if (up == MAP_FAILED)
			return 1;
		getpids(fd, NS);
		data = (unsigned char *)up + pg;
		head = __atomic_load_n(&up->data_head, __ATOMIC_ACQUIRE);
		for (pos = up->data_tail; pos < head;) {
			struct perf_event_header *h = (void *)(data + pos % ((uint64_t)pg * 8));

			if (h->type == PERF_RECORD_SAMPLE) {
				uint32_t size;
				unsigned char *raw = (unsigned char *)(h + 1) + 4;
				uint16_t type;
				int32_t pid, nr;
				int64_t ret;

				memcpy(&size, h + 1, 4);
				memcpy(&type, raw, 2);
				memcpy(&pid, raw + 4, 4);
				memcpy(&nr, raw + 8, 4);
				memcpy(&ret, raw + 16, 8);
				/* struct syscall_trace_exit: 24 bytes, padded so
				 * the u32 size and the record end on 8 bytes */
				CHECK(size == 28, "raw size %u, want 28", size);
				CHECK(type == ex, "common_type %u, want %ld", type, ex);
				CHECK(pid == me, "common_pid %d, want %d", pid, me);
				CHECK(nr == SYS_getpid, "__syscall_nr %d", nr);
				CHECK(ret == me, "ret %lld, want %d", (long long)ret, me);
				samples++;
			}
			pos += h->size;
		}
		CHECK(samples == NS, "%d samples, want %d", samples, NS);
		CHECK(count_of(fd) == NS, "sys_exit_getpid counted %llu, want %d",
		      (unsigned long long)count_of(fd), NS);
		munmap(up, (size_t)pg * 9);
	}
	close(fd);

	/* filters */
	snprintf(filter, sizeof(filter), "common_pid == %d && __syscall_nr == %d", me, SYS_getpid);
	CHECK(filtered(enter, filter) == N, "'%s' let %ld through", filter, filtered(enter, filter));
	snprintf(filter, sizeof(filter), "common_pid != %d", me);
	CHECK(filtered(enter, filter) == 0, "'%s' let %ld through", filter, filtered(enter, filter));
	snprintf(filter, sizeof(filter), "(common_pid < 0 || __syscall_nr >= 39) && __syscall_nr <= 39");
	CHECK(filtered(enter, filter) == N, "'%s' let %ld through", filter, filtered(enter, filter));
	CHECK(filtered(ex, "ret & 0") == 0, "'ret & 0' let some through");
	CHECK(filtered(enter, "nosuch == 1") == -EINVAL, "unknown field: %ld", filtered(enter, "nosuch == 1"));
	CHECK(filtered(enter, "common_pid ==") == -EINVAL, "no value: %ld", filtered(enter, "common_pid =="));
	/* process_preds(): a '(' left open, a ')' too many */
	CHECK(filtered(enter, "(common_pid == 1") == -ENOENT, "open paren: %ld",
	      filtered(enter, "(common_pid == 1"));
	CHECK(filtered(enter, "common_pid == 1)") == -EPERM, "close paren: %ld",
	      filtered(enter, "common_pid == 1)"));
	/* ftrace_profile_set_filter(): the first filter stays */
	fd = open_tp(enter, 0, 0);
	CHECK(ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "common_pid > 0") == 0, "first filter");
	CHECK(ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "common_pid > 0") < 0 && errno == EEXIST,
	      "second filter: %s", strerror(errno));
	close(fd);

	/* an id no tracepoint has */
	errno = 0;
	CHECK(open_tp(0x7fffffff, 0, 0) < 0 && errno == EINVAL, "bad id: %s", strerror(errno));
	if (!fails)
		printf("ok\n");
	return fails != 0;
}
