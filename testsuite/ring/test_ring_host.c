/*
 * test_ring_host.c - differential test against the host kernel: the same
 * attr, the same side-band happenings (prctl(PR_SET_NAME) -> COMM, mmap ->
 * MMAP/MMAP2) and the same reader moves on a real perf ring and on a
 * simulated one whose task has the host's pid/tid on CPU 0; the rings must
 * hold the same bytes. Sample sizes of software events are compared for
 * each sample_type the host accepts. Skips when perf_event_open(2) is not
 * available.
 */
#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include "testsuite/ring/ring_test_util.h"

static pid_t host_pid, host_tid;

static int host_open(struct perf_event_attr *a)
{
	int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, 0);

	return fd < 0 ? -errno : fd;
}

static void *host_mmap(int fd, unsigned pages, int prot)
{
	void *p = mmap(NULL, (1 + pages) * PAGE, prot, MAP_SHARED, fd, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

/* A simulated kernel whose task is this process, running on CPU 0. */
static void sim_init(struct rig *rg)
{
	struct perf_core_config cfg = { 0 };
	struct perf_machine m = { .ops = &rig_ops, .ctx = rg };
	struct perf_cred cred = { 0, true };

	memset(rg, 0, sizeof(*rg));
	cfg.model = pmu_model_find("skylake");
	cfg.nr_cpus = 2;
	cfg.paranoid = -1;
	assert_int_equal(perf_core_create(&cfg, &m, &rg->core), 0);
	rg->task = perf_task_create(rg->core, host_pid, host_tid, cred);
	perf_cpu_switch_to(perf_core_cpu(rg->core, 0), rg->task);
}

static int host_setup(void **state)
{
	struct perf_event_attr a = attr_dummy();
	cpu_set_t set;
	int fd;

	(void)state;
	a.exclude_kernel = 1;
	fd = host_open(&a);
	if (fd < 0) {
		print_message("perf_event_open(2) unavailable (%d): skipping\n", fd);
		return 0;
	}
	close(fd);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return 0;
	host_pid = getpid();
	host_tid = (pid_t)syscall(SYS_gettid);
	return 0;
}

#define NEED_HOST() do { if (!host_pid) skip(); } while (0)

/* Both kernels see the same COMM: the host through prctl, the simulated
 * one through perf_event_comm. */
static void both_comm(struct rig *rg, unsigned i)
{
	char name[16];

	snprintf(name, sizeof(name), "c%03u", i % 1000);
	assert_int_equal(prctl(PR_SET_NAME, name, 0, 0, 0), 0);
	memset(rg->task->comm, 0, sizeof(rg->task->comm));
	memcpy(rg->task->comm, name, strlen(name));
	perf_event_comm(rg->core, rg->task, false);
}

/* Records one by one; LOST ids are the only bytes allowed to differ. */
static void compare_records(const uint8_t *hb, size_t hlen, const uint8_t *sb, size_t slen,
			    uint64_t host_id, uint64_t sim_id)
{
	const struct perf_event_header *hr[512], *sr[512];
	unsigned hn = ring_records(hb, hlen, hr, 512), sn = ring_records(sb, slen, sr, 512);

	assert_int_equal(hn, sn);
	assert_int_equal(hlen, slen);
	for (unsigned i = 0; i < hn; i++) {
		assert_int_equal(hr[i]->type, sr[i]->type);
		assert_int_equal(hr[i]->misc, sr[i]->misc);
		assert_int_equal(hr[i]->size, sr[i]->size);
		if (hr[i]->type == PERF_RECORD_LOST) {
			uint64_t hv[2], sv[2];

			memcpy(hv, hr[i] + 1, 16);
			memcpy(sv, sr[i] + 1, 16);
			assert_int_equal(hv[0], host_id);
			assert_int_equal(sv[0], sim_id);
			assert_int_equal(hv[1], sv[1]);
			assert_memory_equal((const uint8_t *)hr[i] + 24, (const uint8_t *)sr[i] + 24,
					    hr[i]->size - 24);
		} else {
			assert_memory_equal(hr[i], sr[i], hr[i]->size);
		}
	}
}

/* A backward ring after a loss: walk the new records up from data_head
 * and give the simulated LOST records the host's id, after checking each
 * side carries its own event's id. */
static void patch_lost_ids(struct perf_event_mmap_page *hup, struct perf_event_mmap_page *sup,
			   uint64_t host_id, uint64_t sim_id)
{
	struct ring_view hv = ring_view(hup), sv = ring_view(sup);
	uint64_t pos = hup->data_head, end = hup->data_tail;

	while (pos != end) {
		struct perf_event_header h;

		ring_copy(&hv, pos, &h, sizeof(h));
		assert_true(h.size >= sizeof(h));
		if (h.type == PERF_RECORD_LOST) {
			uint64_t hid, sid;

			ring_copy(&hv, pos + 8, &hid, 8);
			ring_copy(&sv, pos + 8, &sid, 8);
			assert_int_equal(hid, host_id);
			assert_int_equal(sid, sim_id);
			memcpy((uint8_t *)sup + PAGE + ((pos + 8) & (sv.size - 1)), &hid, 8);
		}
		pos += h.size;
	}
}

struct comm_row {
	int line;
	const char *kfunc;
	unsigned pages;
	bool writable, backward, sample_id_all;
	uint64_t sample_type;
	unsigned before, after;         /* COMMs before and after consuming */
};

static const struct comm_row comm_rows[] = {
	/* fits */
	{ __LINE__, "perf_event_comm_output", 1, true, false, false, 0, 10, 0 },
	{ __LINE__, "perf_event__output_id_sample", 1, true, false, true,
	  PERF_SAMPLE_TID | PERF_SAMPLE_CPU, 10, 0 },
	/* fills: LOST on the next record after consuming */
	{ __LINE__, "__perf_output_begin", 1, true, false, false, 0, 300, 3 },
	{ __LINE__, "__perf_output_begin", 1, true, false, true,
	  PERF_SAMPLE_TID | PERF_SAMPLE_CPU, 300, 3 },
	/* overwrite: whole data area compared */
	{ __LINE__, "__perf_output_begin", 1, false, false, true, PERF_SAMPLE_TID, 700, 0 },
	{ __LINE__, "perf_output_begin_backward", 1, false, true, true, PERF_SAMPLE_TID, 700, 0 },
	{ __LINE__, "perf_output_begin_backward", 2, true, true, false, 0, 600, 2 },
};

static void test_comm_rows(void **state)
{
	(void)state;
	NEED_HOST();
	for (size_t i = 0; i < sizeof(comm_rows) / sizeof(comm_rows[0]); i++) {
		const struct comm_row *row = &comm_rows[i];
		struct perf_event_attr a = attr_dummy();
		int prot = PROT_READ | (row->writable ? PROT_WRITE : 0);
		static uint8_t hb[16384], sb[16384];
		struct perf_event_mmap_page *hup, *sup;
		uint64_t host_id = 0;
		struct rig rg;
		int hfd, sfd;

		print_message("row line %d (%s)\n", row->line, row->kfunc);
		a.sample_type = row->sample_type;
		a.sample_id_all = row->sample_id_all;
		a.write_backward = row->backward;
		a.comm = 1;
		a.exclude_kernel = 1;
		a.sample_period = 0;
		hfd = host_open(&a);
		assert_true(hfd >= 0);
		assert_int_equal(ioctl(hfd, PERF_EVENT_IOC_ID, &host_id), 0);
		hup = host_mmap(hfd, row->pages, prot);
		sim_init(&rg);
		sfd = rig_open(&rg, &a, 0, -1);
		assert_true(sfd >= 0);
		sup = rig_mmap(&rg, sfd, row->pages, prot);

		for (unsigned k = 0; k < row->before; k++)
			both_comm(&rg, k);
		assert_int_equal(hup->data_head, sup->data_head);
		assert_int_equal(hup->data_size, sup->data_size);
		if (!row->writable || row->backward) {
			/* the whole data area, byte for byte */
			assert_memory_equal((uint8_t *)hup + PAGE, (uint8_t *)sup + PAGE,
					    hup->data_size);
		} else {
			size_t hl = ring_drain(hup, hb, sizeof(hb), true);
			size_t sl = ring_drain(sup, sb, sizeof(sb), true);

			compare_records(hb, hl, sb, sl, host_id, ev(&rg, sfd)->id);
		}
		if (row->after) {
			if (row->backward) {
				/* a backward reader frees the ring by moving its tail down
				 * to the head */
				hup->data_tail = hup->data_head;
				sup->data_tail = sup->data_head;
			}
			for (unsigned k = 0; k < row->after; k++)
				both_comm(&rg, 1000 + k);
			assert_int_equal(hup->data_head, sup->data_head);
			if (row->backward) {
				patch_lost_ids(hup, sup, host_id, ev(&rg, sfd)->id);
				assert_memory_equal((uint8_t *)hup + PAGE, (uint8_t *)sup + PAGE,
						    hup->data_size);
			} else {
				size_t hl = ring_drain(hup, hb, sizeof(hb), true);
				size_t sl = ring_drain(sup, sb, sizeof(sb), true);

				compare_records(hb, hl, sb, sl, host_id, ev(&rg, sfd)->id);
			}
		}
		/* poll: both report the same bits */
		{
			struct pollfd p = { .fd = hfd, .events = POLLIN | POLLRDNORM };
			unsigned s = perf_sys_poll(rg.core, sfd);

			assert_true(poll(&p, 1, 0) >= 0);
			assert_int_equal((unsigned)p.revents, s & (POLLIN | POLLRDNORM | POLLHUP));
		}
		munmap(hup, (1 + row->pages) * PAGE);
		close(hfd);
		rig_fini(&rg);
	}
	prctl(PR_SET_NAME, "test_ring_host", 0, 0, 0);
}

/* MMAP2 of a file and MMAP of anonymous memory, as the host writes them. */
static void test_mmap_records(void **state)
{
	struct perf_event_attr a = attr_dummy();
	static uint8_t hb[16384], sb[16384];
	const struct perf_event_header *hr[64], *sr[64];
	struct perf_event_mmap_page *hup, *sup;
	struct perf_mmap_info m;
	unsigned hn, sn, hit = 0;
	struct rig rg;
	struct stat st;
	void *file, *anon;
	int hfd, sfd, bfd;

	(void)state;
	NEED_HOST();
	a.mmap = 1;
	a.mmap2 = 1;
	a.mmap_data = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID;
	a.exclude_kernel = 1;
	a.sample_period = 0;
	hfd = host_open(&a);
	assert_true(hfd >= 0);
	hup = host_mmap(hfd, 4, PROT_READ | PROT_WRITE);
	sim_init(&rg);
	sfd = rig_open(&rg, &a, 0, -1);
	sup = rig_mmap(&rg, sfd, 4, PROT_READ | PROT_WRITE);

	bfd = open("/bin/true", O_RDONLY);
	assert_true(bfd >= 0);
	assert_int_equal(fstat(bfd, &st), 0);
	file = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_PRIVATE, bfd, 4096);
	assert_true(file != MAP_FAILED);
	anon = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(anon != MAP_FAILED);

	hn = ring_records(hb, ring_drain(hup, hb, sizeof(hb), true), hr, 64);
	for (unsigned i = 0; i < hn; i++) {
		const uint64_t *v = (const uint64_t *)((const uint8_t *)(hr[i] + 1) + 8);
		char path[4096];

		if (hr[i]->type != PERF_RECORD_MMAP2)
			continue;
		if (v[0] != (uintptr_t)file && v[0] != (uintptr_t)anon)
			continue;       /* libc's own mappings */
		memset(&m, 0, sizeof(m));
		m.addr = v[0];
		m.len = v[1];
		m.pgoff = v[2];
		if (v[0] == (uintptr_t)file) {
			const uint32_t *mm = (const uint32_t *)(v + 3);

			assert_non_null(realpath("/bin/true", path));
			m.maj = major(st.st_dev);
			m.min = minor(st.st_dev);
			m.ino = st.st_ino;
			memcpy(&m.ino_generation, mm + 4, 8);   /* i_generation: the fs's */
			m.prot = PROT_READ | PROT_EXEC;
			m.flags = MAP_PRIVATE;
			m.filename = path;
			m.exec = true;
			assert_int_equal(mm[0], m.maj);
			assert_int_equal(mm[1], m.min);
		} else {
			m.prot = PROT_READ | PROT_WRITE;
			m.flags = MAP_PRIVATE;
			m.filename = "//anon";
			m.exec = false;
		}
		perf_event_mmap(rg.core, rg.task, &m);
		sn = ring_records(sb, ring_drain(sup, sb, sizeof(sb), true), sr, 64);
		assert_int_equal(sn, 1);
		assert_int_equal(sr[0]->size, hr[i]->size);
		assert_memory_equal(sr[0], hr[i], hr[i]->size);
		hit++;
	}
	assert_int_equal(hit, 2);
	munmap(file, 8192);
	munmap(anon, 3 * PAGE);
	close(bfd);
	munmap(hup, 5 * PAGE);
	close(hfd);
	rig_fini(&rg);
}

/* PERF_RECORD_SAMPLE size for software events: what perf_prepare_sample
 * gives when the PMU fills nothing but user registers. */
struct size_row {
	int line;
	uint64_t sample_type;
	uint64_t read_format;
};

#define RF_ALL (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
		PERF_FORMAT_ID | PERF_FORMAT_LOST)

static const struct size_row size_rows[] = {
	{ __LINE__, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD, 0 },
	{ __LINE__, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
	  PERF_SAMPLE_CPU | PERF_SAMPLE_ADDR, 0 },
	{ __LINE__, PERF_SAMPLE_READ, RF_ALL },
	{ __LINE__, PERF_SAMPLE_READ, RF_ALL | PERF_FORMAT_GROUP },
	{ __LINE__, PERF_SAMPLE_RAW, 0 },
	{ __LINE__, PERF_SAMPLE_REGS_USER, 0 },
	{ __LINE__, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION, 0 },
	{ __LINE__, PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_PHYS_ADDR, 0 },
	{ __LINE__, PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE, 0 },
	/* a 64-byte user stack dump: size, data, dyn_size */
	{ __LINE__, PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER, 0 },
};

static void test_sample_sizes(void **state)
{
	(void)state;
	NEED_HOST();
	for (size_t i = 0; i < sizeof(size_rows) / sizeof(size_rows[0]); i++) {
		const struct size_row *row = &size_rows[i];
		struct perf_event_attr a;
		static uint8_t hb[65536], sb[4096];
		const struct perf_event_header *hr[1024], *sr[4];
		struct perf_event_mmap_page *hup, *sup;
		struct perf_sample_data d;
		struct rig rg;
		unsigned hn;
		int hfd, sfd;

		print_message("row line %d (perf_prepare_sample)\n", row->line);
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_TASK_CLOCK;
		a.sample_period = 200000;
		a.sample_type = row->sample_type;
		a.read_format = row->read_format;
		a.sample_regs_user = (1ull << 0) | (1ull << 8);
		a.sample_stack_user = 64;
		a.exclude_kernel = 1;
		hfd = host_open(&a);
		if (hfd < 0) {
			print_message("  host refuses it (%d)\n", hfd);
			continue;
		}
		hup = host_mmap(hfd, 16, PROT_READ | PROT_WRITE);
		for (volatile unsigned long spin = 0;
		     __atomic_load_n(&hup->data_head, __ATOMIC_ACQUIRE) == 0 && spin < 2000000000ul;
		     spin++)
			;
		ioctl(hfd, PERF_EVENT_IOC_DISABLE, 0);
		hn = ring_records(hb, ring_drain(hup, hb, sizeof(hb), true), hr, 1024);
		assert_true(hn >= 1);

		sim_init(&rg);
		sfd = rig_open(&rg, &a, 0, -1);
		assert_true(sfd >= 0);
		sup = rig_mmap(&rg, sfd, 1, PROT_READ | PROT_WRITE);
		memset(&d, 0, sizeof(d));
		d.regs_user.abi = PERF_SAMPLE_REGS_ABI_64;
		d.cpumode = PERF_RECORD_MISC_USER;
		assert_int_equal(perf_event_output_sample(ev(&rg, sfd), &d), 0);
		assert_int_equal(ring_records(sb, ring_drain(sup, sb, sizeof(sb), true), sr, 4), 1);
		assert_int_equal(hr[0]->type, PERF_RECORD_SAMPLE);
		assert_int_equal(sr[0]->size, hr[0]->size);
		if (row->sample_type == (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					 PERF_SAMPLE_PERIOD)) {
			/* pid/tid (offset 16) and period (offset 32) agree */
			assert_memory_equal((const uint8_t *)sr[0] + 16, (const uint8_t *)hr[0] + 16, 8);
			assert_memory_equal((const uint8_t *)sr[0] + 32, (const uint8_t *)hr[0] + 32, 8);
		}
		munmap(hup, 17 * PAGE);
		close(hfd);
		rig_fini(&rg);
	}
}

/* The fields of the mmap page that do not depend on the host's PMU. */
static void test_user_page_static(void **state)
{
	struct perf_event_attr a = attr_dummy();
	struct perf_event_mmap_page *hup, *sup;
	struct rig rg;
	int hfd, sfd;

	(void)state;
	NEED_HOST();
	a.exclude_kernel = 1;
	hfd = host_open(&a);
	hup = host_mmap(hfd, 2, PROT_READ);
	sim_init(&rg);
	sfd = rig_open(&rg, &a, 0, -1);
	sup = rig_mmap(&rg, sfd, 2, PROT_READ);
	assert_int_equal(sup->version, hup->version);
	assert_int_equal(sup->compat_version, hup->compat_version);
	assert_int_equal(sup->size, hup->size);
	assert_int_equal(sup->data_offset, hup->data_offset);
	assert_int_equal(sup->data_size, hup->data_size);
	assert_int_equal(sup->cap_bit0, hup->cap_bit0);
	assert_int_equal(sup->cap_bit0_is_deprecated, hup->cap_bit0_is_deprecated);
	assert_int_equal(sup->cap_user_rdpmc, hup->cap_user_rdpmc);
	assert_int_equal(sup->index, hup->index);
	assert_int_equal(sup->lock % 2, hup->lock % 2);
	munmap(hup, 3 * PAGE);
	close(hfd);
	rig_fini(&rg);
}

/* mmap and SET_OUTPUT errnos side by side. */
struct errno_row {
	int line;
	const char *kfunc;
	unsigned len_pages;
	int prot, flags;
	off_t pgoff;
	bool inherit;
};

static const struct errno_row errno_rows[] = {
	{ __LINE__, "perf_mmap_rb", 2, PROT_READ | PROT_WRITE, MAP_SHARED, 0, false },
	{ __LINE__, "perf_mmap_rb", 1, PROT_READ, MAP_SHARED, 0, false },
	{ __LINE__, "perf_mmap_rb", 4, PROT_READ, MAP_SHARED, 0, false },
	{ __LINE__, "perf_mmap_rb", 6, PROT_READ, MAP_SHARED, 0, false },
	{ __LINE__, "perf_mmap", 2, PROT_READ, MAP_PRIVATE, 0, false },
	{ __LINE__, "perf_mmap", 2, PROT_READ, MAP_SHARED, 0, true },
	{ __LINE__, "perf_mmap_aux", 2, PROT_READ, MAP_SHARED, 3, false },
};

static void test_errno_rows(void **state)
{
	(void)state;
	NEED_HOST();
	for (size_t i = 0; i < sizeof(errno_rows) / sizeof(errno_rows[0]); i++) {
		const struct errno_row *row = &errno_rows[i];
		struct perf_event_attr a = attr_dummy();
		size_t len = row->len_pages * PAGE;
		void *p, *area = NULL;
		int herr = 0, serr, memfd;
		struct rig rg;
		int hfd, sfd;

		print_message("row line %d (%s)\n", row->line, row->kfunc);
		a.exclude_kernel = 1;
		a.inherit = row->inherit;
		hfd = host_open(&a);
		assert_true(hfd >= 0);
		p = mmap(NULL, len, row->prot, row->flags, hfd, row->pgoff * PAGE);
		if (p == MAP_FAILED)
			herr = -errno;
		else
			munmap(p, len);
		sim_init(&rg);
		sfd = rig_open(&rg, &a, 0, -1);
		serr = perf_sys_mmap(rg.core, rg.task, sfd, len, row->prot, row->flags,
				     (uint64_t)row->pgoff, &area, &memfd);
		assert_int_equal(serr, herr);
		close(hfd);
		rig_fini(&rg);
	}
}

static void test_set_output_errnos(void **state)
{
	struct perf_event_attr a = attr_dummy();
	void *hp, *area = NULL;
	struct rig rg;
	int h1, h2, h3, s1, s2, s3, memfd;

	(void)state;
	NEED_HOST();
	a.exclude_kernel = 1;
	h1 = host_open(&a);
	h2 = host_open(&a);
	a.write_backward = 1;
	h3 = host_open(&a);
	a.write_backward = 0;
	sim_init(&rg);
	s1 = rig_open(&rg, &a, 0, -1);
	s2 = rig_open(&rg, &a, 0, -1);
	a.write_backward = 1;
	s3 = rig_open(&rg, &a, 0, -1);

#define BOTH(hcall, scall) do { \
		int hr_ = (hcall) < 0 ? -errno : 0; \
		long sr_ = (scall); \
		assert_int_equal(sr_, hr_); \
	} while (0)
#define SOUT(fd, out) perf_sys_ioctl(rg.core, rg.task, &perf_uaccess_direct, fd, \
				     PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)(long)(out))

	BOTH(ioctl(h2, PERF_EVENT_IOC_SET_OUTPUT, h1), SOUT(s2, s1));    /* no ring */
	hp = host_mmap(h1, 1, PROT_READ | PROT_WRITE);
	rig_mmap(&rg, s1, 1, PROT_READ | PROT_WRITE);
	BOTH(ioctl(h1, PERF_EVENT_IOC_SET_OUTPUT, h1), SOUT(s1, s1));    /* self */
	BOTH(ioctl(h3, PERF_EVENT_IOC_SET_OUTPUT, h1), SOUT(s3, s1));    /* backward */
	BOTH(ioctl(h2, PERF_EVENT_IOC_SET_OUTPUT, h1), SOUT(s2, s1));    /* ok */
	BOTH(ioctl(h1, PERF_EVENT_IOC_SET_OUTPUT, h2), SOUT(s1, s2));    /* mmapped */
	{
		void *p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, h2, 0);
		int herr = p == MAP_FAILED ? -errno : 0;

		if (p != MAP_FAILED)
			munmap(p, 2 * PAGE);
		assert_int_equal(perf_sys_mmap(rg.core, rg.task, s2, 2 * PAGE, PROT_READ, MAP_SHARED,
					       0, &area, &memfd), herr);
	}
	BOTH(ioctl(h2, PERF_EVENT_IOC_SET_OUTPUT, -1L), SOUT(s2, -1L));  /* detach */
	munmap(hp, 2 * PAGE);
	close(h1);
	close(h2);
	close(h3);
	rig_fini(&rg);
}


/* FORK and EXIT of a child process with an inherited CPU-bound event; the
 * time fields are the only bytes allowed to differ. */
static void test_fork_exit_records(void **state)
{
	struct perf_event_attr a = attr_dummy();
	static uint8_t hb[16384], sb[16384];
	const struct perf_event_header *hr[64], *sr[64];
	struct perf_event_mmap_page *hup, *sup;
	struct perf_task *child;
	unsigned hn, sn, k = 0;
	struct rig rg;
	int hfd, sfd, status;
	pid_t pid;

	(void)state;
	NEED_HOST();
	a.task = 1;
	a.inherit = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	a.exclude_kernel = 1;
	a.sample_period = 0;
	hfd = (int)syscall(SYS_perf_event_open, &a, 0, 0, -1, 0);     /* cpu 0 */
	assert_true(hfd >= 0);
	hup = host_mmap(hfd, 4, PROT_READ | PROT_WRITE);
	pid = fork();
	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	hn = ring_records(hb, ring_drain(hup, hb, sizeof(hb), true), hr, 64);

	sim_init(&rg);
	sfd = rig_open(&rg, &a, 0, 0);
	assert_true(sfd >= 0);
	sup = rig_mmap(&rg, sfd, 4, PROT_READ | PROT_WRITE);
	assert_int_equal(perf_task_fork(rg.core, rg.task, pid, pid, &child), 0);
	perf_cpu_switch_to(perf_core_cpu(rg.core, 0), child);
	perf_task_exit(rg.core, child);
	sn = ring_records(sb, ring_drain(sup, sb, sizeof(sb), true), sr, 64);

	/* the host's records of this child only (the sim knows no others) */
	for (unsigned i = 0; i < hn; i++) {
		uint32_t f[4];

		if (hr[i]->type != PERF_RECORD_FORK && hr[i]->type != PERF_RECORD_EXIT)
			continue;
		memcpy(f, hr[i] + 1, 16);
		if (f[0] != (uint32_t)pid)
			continue;
		assert_true(k < sn);
		assert_int_equal(sr[k]->type, hr[i]->type);
		assert_int_equal(sr[k]->misc, hr[i]->misc);
		assert_int_equal(sr[k]->size, hr[i]->size);
		/* {pid, ppid, tid, ptid} then time, then the trailer */
		assert_memory_equal(sr[k] + 1, hr[i] + 1, 16);
		assert_memory_equal((const uint8_t *)sr[k] + 32, (const uint8_t *)hr[i] + 32,
				    hr[i]->size - 32);
		k++;
	}
	assert_int_equal(k, 2);
	assert_int_equal(sn, 2);
	munmap(hup, 5 * PAGE);
	close(hfd);
	rig_fini(&rg);
}

/* SWITCH out (blocked, so no PREEMPT) and in for a task's event. */
static void test_switch_records(void **state)
{
	struct perf_event_attr a = attr_dummy();
	static uint8_t hb[16384], sb[16384];
	const struct perf_event_header *hr[256], *sr[8];
	struct perf_event_mmap_page *hup, *sup;
	struct perf_cpu *cpu0;
	unsigned hn, sn, first = ~0u;
	struct rig rg;
	int hfd, sfd;

	(void)state;
	NEED_HOST();
	a.context_switch = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	a.exclude_kernel = 1;
	a.sample_period = 0;
	hfd = host_open(&a);
	assert_true(hfd >= 0);
	hup = host_mmap(hfd, 4, PROT_READ | PROT_WRITE);
	usleep(2000);
	hn = ring_records(hb, ring_drain(hup, hb, sizeof(hb), true), hr, 256);
	for (unsigned i = 0; i + 1 < hn; i++)
		if (hr[i]->type == PERF_RECORD_SWITCH && hr[i]->misc == PERF_RECORD_MISC_SWITCH_OUT &&
		    hr[i + 1]->type == PERF_RECORD_SWITCH && hr[i + 1]->misc == 0) {
			first = i;
			break;
		}
	assert_true(first != ~0u);

	sim_init(&rg);
	cpu0 = perf_core_cpu(rg.core, 0);
	sfd = rig_open(&rg, &a, 0, -1);
	sup = rig_mmap(&rg, sfd, 4, PROT_READ | PROT_WRITE);
	rg.task->runnable = false;
	perf_event_switch(cpu0, rg.task, NULL);
	perf_event_switch(cpu0, NULL, rg.task);
	sn = ring_records(sb, ring_drain(sup, sb, sizeof(sb), true), sr, 8);
	assert_int_equal(sn, 2);
	assert_int_equal(sr[0]->size, hr[first]->size);
	assert_memory_equal(sr[0], hr[first], hr[first]->size);
	assert_memory_equal(sr[1], hr[first + 1], hr[first + 1]->size);
	munmap(hup, 5 * PAGE);
	close(hfd);
	rig_fini(&rg);
}


/* After every record, poll(2) of the host fd and perf_sys_poll agree:
 * watermark crossings (ring_buffer_init, __perf_output_begin) and no
 * wakeup_events counting for side-band records (perf_output_sample). */
struct poll_row {
	int line;
	const char *kfunc;
	bool watermark;
	unsigned wakeup;
	unsigned records;
	bool wakes;                     /* some record crosses the watermark */
};

static const struct poll_row poll_rows[] = {
	{ __LINE__, "ring_buffer_init", false, 0, 400, true },
	{ __LINE__, "__perf_output_begin", true, 100, 60, true },
	{ __LINE__, "ring_buffer_init", true, 1000000, 400, true },
	/* 60 * 24 bytes stay under 2048: COMM does not count as an event */
	{ __LINE__, "perf_output_sample", false, 1, 60, false },
};

static void test_poll_sequence(void **state)
{
	(void)state;
	NEED_HOST();
	for (size_t i = 0; i < sizeof(poll_rows) / sizeof(poll_rows[0]); i++) {
		const struct poll_row *row = &poll_rows[i];
		struct perf_event_attr a = attr_dummy();
		struct perf_event_mmap_page *hup;
		struct rig rg;
		int hfd, sfd;

		print_message("row line %d (%s)\n", row->line, row->kfunc);
		a.comm = 1;
		a.exclude_kernel = 1;
		a.sample_period = 0;
		a.watermark = row->watermark;
		a.wakeup_events = row->wakeup;
		hfd = host_open(&a);
		assert_true(hfd >= 0);
		hup = host_mmap(hfd, 1, PROT_READ);
		sim_init(&rg);
		sfd = rig_open(&rg, &a, 0, -1);
		rig_mmap(&rg, sfd, 1, PROT_READ);
		unsigned seen = 0;

		for (unsigned k = 0; k < row->records; k++) {
			struct pollfd p = { .fd = hfd, .events = POLLIN | POLLRDNORM };

			both_comm(&rg, k);
			assert_true(poll(&p, 1, 0) >= 0);
			assert_int_equal((unsigned)p.revents, perf_sys_poll(rg.core, sfd));
			seen += p.revents != 0;
		}
		assert_int_equal(seen > 0, row->wakes);
		munmap(hup, 2 * PAGE);
		close(hfd);
		rig_fini(&rg);
	}
	prctl(PR_SET_NAME, "test_ring_host", 0, 0, 0);
}


/* Two events sharing a ring (SET_OUTPUT) both take a COMM: the order in
 * the ring is perf_iterate_ctx's walk of ctx->event_list. */
static void test_iterate_order(void **state)
{
	struct perf_event_attr a = attr_dummy();
	static uint8_t hb[4096], sb[4096];
	const struct perf_event_header *hr[8], *sr[8];
	uint64_t hid[3], sid[3];
	void *hup, *sup;
	struct rig rg;
	int h[3], s[3];

	(void)state;
	NEED_HOST();
	a.comm = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_IDENTIFIER;
	a.exclude_kernel = 1;
	a.sample_period = 0;
	sim_init(&rg);
	for (int i = 0; i < 3; i++) {
		h[i] = host_open(&a);
		assert_true(h[i] >= 0);
		assert_int_equal(ioctl(h[i], PERF_EVENT_IOC_ID, &hid[i]), 0);
		s[i] = rig_open(&rg, &a, 0, -1);
		sid[i] = ev(&rg, s[i])->id;
	}
	hup = host_mmap(h[1], 1, PROT_READ | PROT_WRITE);
	sup = rig_mmap(&rg, s[1], 1, PROT_READ | PROT_WRITE);
	assert_int_equal(ioctl(h[0], PERF_EVENT_IOC_SET_OUTPUT, h[1]), 0);
	assert_int_equal(ioctl(h[2], PERF_EVENT_IOC_SET_OUTPUT, h[1]), 0);
	assert_int_equal(perf_sys_ioctl(rg.core, rg.task, &perf_uaccess_direct, s[0],
					PERF_EVENT_IOC_SET_OUTPUT, s[1]), 0);
	assert_int_equal(perf_sys_ioctl(rg.core, rg.task, &perf_uaccess_direct, s[2],
					PERF_EVENT_IOC_SET_OUTPUT, s[1]), 0);
	both_comm(&rg, 7);
	assert_int_equal(ring_records(hb, ring_drain(hup, hb, sizeof(hb), true), hr, 8), 3);
	assert_int_equal(ring_records(sb, ring_drain(sup, sb, sizeof(sb), true), sr, 8), 3);
	for (int k = 0; k < 3; k++) {
		uint64_t hi = parse_id_trailer(hr[k], a.sample_type).identifier;
		uint64_t si = parse_id_trailer(sr[k], a.sample_type).identifier;
		int hk = -1, sk = -1;

		for (int i = 0; i < 3; i++) {
			if (hid[i] == hi)
				hk = i;
			if (sid[i] == si)
				sk = i;
		}
		print_message("  record %d: host event %d, sim event %d\n", k, hk, sk);
		assert_true(hk >= 0);
		assert_int_equal(sk, hk);
	}
	munmap(hup, 2 * PAGE);
	for (int i = 0; i < 3; i++)
		close(h[i]);
	rig_fini(&rg);
	prctl(PR_SET_NAME, "test_ring_host", 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm_rows),
		cmocka_unit_test(test_mmap_records),
		cmocka_unit_test(test_sample_sizes),
		cmocka_unit_test(test_user_page_static),
		cmocka_unit_test(test_errno_rows),
		cmocka_unit_test(test_set_output_errnos),
		cmocka_unit_test(test_fork_exit_records),
		cmocka_unit_test(test_switch_records),
		cmocka_unit_test(test_poll_sequence),
		cmocka_unit_test(test_iterate_order),
	};

	return cmocka_run_group_tests(tests, host_setup, NULL);
}
