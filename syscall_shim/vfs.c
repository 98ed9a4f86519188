/*
 * vfs.c - the virtual sysfs/procfs of a session (vfs.h). Files are written
 * to a tmpfs scratch directory and bind-mounted over the host's in a
 * private mount namespace, so only the session's processes see them.
 * Contents follow the kernel's show functions: type, format/ and caps/
 * lines end in a newline (type_show, the format attr's
 * device_show_string, caps' *_show), events/ come from
 * pmu_model_event_sysfs().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "pmu_models/pmu_model.h"
#include "sim/core/perf_core.h"
#include "syscall_shim/vfs.h"

/* every path here is under a short mkdtemp directory: truncation cannot happen */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#define DEVICES "/sys/bus/event_source/devices"
#define NODE0_CPULIST "/sys/devices/system/node/node0/cpulist"

/* perf_event_mux_interval_ms_show(): the session's interval, or the
 * model's, or the kernel's default (PERF_CPU_HRTIMER, 4 ms). */
static unsigned mux_interval_ms(const struct vfs_config *cfg)
{
	return cfg->mux_interval_ms ? cfg->mux_interval_ms : pmu_model_mux_interval_ms(cfg->model);
}

static int put_file(const char *dir, const char *name, const char *text, size_t len)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

static int put_line(const char *dir, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int put_line(const char *dir, const char *name, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return put_file(dir, name, buf, (size_t)n);
}

static int sub_dir(const char *dir, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", dir, name);
	return mkdir(out, 0755) && errno != EEXIST ? -errno : 0;
}

int vfs_write_pmu_dir(const struct vfs_config *cfg, const char *dir)
{
	const struct pmu_model *m = cfg->model;
	char sub[PATH_MAX], buf[512];
	bool arm = m->arch == PMU_ARCH_ARM_PMUV3;
	int err;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if ((err = put_line(dir, "type", "%u\n", m->pmu_type)))
		return err;
	/* perf_event_mux_interval_ms_show() */
	if ((err = put_line(dir, "perf_event_mux_interval_ms", "%u\n", mux_interval_ms(cfg))))
		return err;
	if (arm) {
		/* armpmu_cpumask_show(): the CPUs the PMU covers */
		if ((err = put_line(dir, "cpus", cfg->nr_cpus > 1 ? "0-%u\n" : "0\n",
				    cfg->nr_cpus - 1)))
			return err;
	} else {
		/* get_attr_rdpmc(): x86_pmu.attr_rdpmc, 1 by default */
		if ((err = put_line(dir, "rdpmc", "1\n")))
			return err;
	}
	if ((err = sub_dir(dir, "format", sub, sizeof(sub))))
		return err;
	for (unsigned i = 0; i < m->nr_formats; i++)
		if ((err = put_line(sub, m->formats[i].name, "%s\n", m->formats[i].spec)))
			return err;
	if ((err = sub_dir(dir, "events", sub, sizeof(sub))))
		return err;
	/* only the kernel's event attributes: a vendor event-list name has no
	 * file (perf finds those in its pmu-events tables) */
	for (unsigned i = 0; i < m->nr_events; i++) {
		int n;

		if (m->events[i].vendor_list)
			continue;
		n = pmu_model_event_sysfs(m, &m->events[i], buf, sizeof(buf));
		if (n < 0 || (size_t)n >= sizeof(buf) || strchr(m->events[i].name, '/'))
			continue;
		if ((err = put_file(sub, m->events[i].name, buf, (size_t)n)))
			return err;
		/* the kernel's events/<name>.scale (EVENT_ATTR_STR, no newline) */
		if (m->events[i].scale) {
			char scale[PATH_MAX];

			snprintf(scale, sizeof(scale), "%s.scale", m->events[i].name);
			if ((err = put_file(sub, scale, m->events[i].scale, strlen(m->events[i].scale))))
				return err;
		}
	}
	if (m->nr_caps) {
		if ((err = sub_dir(dir, "caps", sub, sizeof(sub))))
			return err;
		for (unsigned i = 0; i < m->nr_caps; i++)
			if ((err = put_line(sub, m->caps[i].name, "%s\n", m->caps[i].value)))
				return err;
	}
	return 0;
}

static int cpu_list(char *buf, size_t len, unsigned n);

/* Whether the model serves a PMU of this name (its core PMU or one beside it). */
static bool model_pmu_name(const struct pmu_model *m, const char *name)
{
	if (strcmp(name, m->pmu_name) == 0)
		return true;
	for (unsigned i = 0; i < m->nr_side_pmus; i++)
		if (strcmp(name, m->side_pmus[i].name) == 0)
			return true;
	return false;
}

uint32_t vfs_first_side_type(const struct pmu_model *m)
{
	uint32_t first = PERF_FIRST_SIDE_TYPE;
	DIR *d = opendir(DEVICES);
	struct dirent *de;

	if (!d)
		return first;
	while ((de = readdir(d))) {
		char path[PATH_MAX], buf[32];
		unsigned long t;
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.' || model_pmu_name(m, de->d_name))
			continue;
		snprintf(path, sizeof(path), DEVICES "/%s/type", de->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = 0;
		t = strtoul(buf, NULL, 10);
		if (t >= first && t < UINT32_MAX)
			first = (uint32_t)t + 1;
	}
	closedir(d);
	return first;
}

/*
 * One of the model's PMUs beside its core PMU, as its driver's attribute
 * groups show it: type and perf_event_mux_interval_ms (pmu_dev_attrs,
 * every PMU), format/ (PMU_FORMAT_ATTR: the spec and a newline), events/
 * (PMU_EVENT_ATTR_STRING through perf_event_sysfs_show(): the string and
 * a newline; .scale and .unit files where the driver has them), and
 * cpumask where the driver has one: cstate_get_attr_cpumask() (a core's
 * reader is each CPU, no SMT modelled; the package's is CPU 0) and
 * uncore_get_attr_cpumask() (the package's first CPU). The msr PMU has
 * none. Uncore boxes without event aliases have no events/ directory.
 */
int vfs_write_side_pmu_dir(const struct vfs_config *cfg, unsigned i, const char *dir)
{
	const struct pmu_side_pmu *p = &cfg->model->side_pmus[i];
	char sub[PATH_MAX], line[64];
	int err;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	if ((err = put_line(dir, "type", "%u\n", cfg->first_side_type + i)))
		return err;
	if ((err = put_line(dir, "perf_event_mux_interval_ms", "%u\n", mux_interval_ms(cfg))))
		return err;
	switch (p->kind) {
	case PMU_SIDE_CSTATE_CORE:
		cpu_list(line, sizeof(line), cfg->nr_cpus);
		if ((err = put_file(dir, "cpumask", line, strlen(line))))
			return err;
		break;
	case PMU_SIDE_CSTATE_PKG:
	case PMU_SIDE_UNCORE:
		if ((err = put_line(dir, "cpumask", "0\n")))
			return err;
		break;
	case PMU_SIDE_MSR:
		break;
	}
	if ((err = sub_dir(dir, "format", sub, sizeof(sub))))
		return err;
	for (unsigned f = 0; f < p->nr_formats; f++)
		if ((err = put_line(sub, p->formats[f].name, "%s\n", p->formats[f].spec)))
			return err;
	if (p->kind == PMU_SIDE_UNCORE)
		return 0;
	/* cstate_events_attr_group exists even when empty */
	if ((err = sub_dir(dir, "events", sub, sizeof(sub))))
		return err;
	for (unsigned e = 0; e < p->nr_events; e++) {
		const struct pmu_side_event *ev = &p->events[e];
		char name[PATH_MAX];

		if (!ev->name)
			continue;
		if ((err = put_line(sub, ev->name, "event=0x%02llx\n", (unsigned long long)ev->config)))
			return err;
		snprintf(name, sizeof(name), "%s.scale", ev->name);
		if (ev->scale && (err = put_line(sub, name, "%s\n", ev->scale)))
			return err;
		snprintf(name, sizeof(name), "%s.unit", ev->name);
		if (ev->unit && (err = put_line(sub, name, "%s\n", ev->unit)))
			return err;
	}
	return 0;
}

/* The model's PMUs beside its core PMU, each as a directory under dir. */
static int write_side_pmus(const struct vfs_config *cfg, const char *dir)
{
	for (unsigned i = 0; i < cfg->model->nr_side_pmus; i++) {
		char path[PATH_MAX];
		int err;

		snprintf(path, sizeof(path), "%s/%s", dir, cfg->model->side_pmus[i].name);
		if ((err = vfs_write_side_pmu_dir(cfg, i, path)))
			return err;
	}
	return 0;
}

static int bind(const char *src, const char *dst, char *why, size_t whylen)
{
	if (mount(src, dst, NULL, MS_BIND, NULL)) {
		int err = -errno;

		snprintf(why, whylen, "cannot bind %s over %s: %s", src, dst, strerror(errno));
		return err;
	}
	return 0;
}

/* The host's PMUs, as absolute links, beside the model's directories
 * (a host PMU of the same name, such as the host's msr, is the model's). */
static int link_host_pmus(const char *devdir, const struct pmu_model *m)
{
	DIR *d = opendir(DEVICES);
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char src[PATH_MAX], real[PATH_MAX], dst[PATH_MAX];

		if (de->d_name[0] == '.' || model_pmu_name(m, de->d_name))
			continue;
		snprintf(src, sizeof(src), DEVICES "/%s", de->d_name);
		if (!realpath(src, real))
			continue;
		snprintf(dst, sizeof(dst), "%s/%s", devdir, de->d_name);
		if (symlink(real, dst)) {
			closedir(d);
			return -errno;
		}
	}
	closedir(d);
	return 0;
}

static int cpu_list(char *buf, size_t len, unsigned n)
{
	return n > 1 ? snprintf(buf, len, "0-%u\n", n - 1) : snprintf(buf, len, "0\n");
}

/*
 * /sys/devices/<pmu>: where the kernel's PMU device lives (pmu_dev_alloc()
 * on the event_source bus; the bus entry is a link to it). Tools stat it
 * there: perf mem's perf_mem_event__supported() looks for
 * /sys/devices/cpu/events/mem-loads. sysfs takes no new directory, so a
 * read-only overlay puts the model's directory (opaque: the host's PMU of
 * that name, if any, does not show through) over the host's /sys/devices.
 * Best effort: without overlayfs the tree stays the host's.
 */
static void overlay_sys_devices(const struct vfs_config *cfg, const char *tmpdir)
{
	char top[PATH_MAX], pmu[PATH_MAX], opts[2 * PATH_MAX];

	snprintf(top, sizeof(top), "%s/sys_devices", tmpdir);
	snprintf(pmu, sizeof(pmu), "%s/%s", top, cfg->model->pmu_name);
	if (mkdir(top, 0755) || vfs_write_pmu_dir(cfg, pmu) || write_side_pmus(cfg, top))
		return;
	(void)setxattr(pmu, "trusted.overlay.opaque", "y", 1, 0);
	for (unsigned i = 0; i < cfg->model->nr_side_pmus; i++) {
		snprintf(pmu, sizeof(pmu), "%s/%s", top, cfg->model->side_pmus[i].name);
		(void)setxattr(pmu, "trusted.overlay.opaque", "y", 1, 0);
	}
	snprintf(opts, sizeof(opts), "lowerdir=%s:/sys/devices", top);
	(void)mount("pmusim", "/sys/devices", "overlay", MS_RDONLY, opts);
}

/* Writes text to a /proc/self file; 0 or -errno. */
static int write_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = -errno;
	close(fd);
	return err;
}

/*
 * A private mount namespace: with CAP_SYS_ADMIN, directly; otherwise
 * inside a new user namespace that maps the caller's uid and gid to
 * themselves. Its capabilities (over its own mounts) are pmusim's until
 * the command's execve drops them (a non-zero uid keeps none across
 * exec): the tree runs as the same user, with the same rights, as without
 * it. Returns 0 or -errno (the first attempt's).
 */
static int private_mounts(void)
{
	unsigned uid = (unsigned)geteuid(), gid = (unsigned)getegid();
	char map[64];
	int err;

	if (unshare(CLONE_NEWNS) == 0)
		return 0;
	err = -errno;
	/* /proc/self's files are root's in a process that is not dumpable
	 * (runuser, su: the uid changed), and the maps could not be written */
	if (err != -EPERM || uid == 0 || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ||
	    unshare(CLONE_NEWUSER | CLONE_NEWNS))
		return err;
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (write_proc("/proc/self/uid_map", map))
		return err;
	/* an unprivileged gid_map needs setgroups denied first */
	if (write_proc("/proc/self/setgroups", "deny"))
		return err;
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (write_proc("/proc/self/gid_map", map))
		return err;
	return 0;
}

int vfs_setup(const struct vfs_config *cfg, char *tmpdir, size_t tmplen, char *why, size_t whylen)
{
	static const char *const cpu_files[] = {
		"/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
		"/sys/devices/system/cpu/present",
	};
	static const char *const node_files[] = {
		"/sys/devices/system/node/online", "/sys/devices/system/node/possible",
	};
	char dir[PATH_MAX], path[PATH_MAX], *text;
	const struct pmu_model *m = cfg->model;
	size_t cap = 1 << 20, n;
	int err;

	tmpdir[0] = 0;
	err = private_mounts();
	if (err) {
		snprintf(why, whylen, "no private mount namespace (%s)", strerror(-err));
		return err;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		err = -errno;
		snprintf(why, whylen, "cannot make / private: %s", strerror(errno));
		return err;
	}
	snprintf(tmpdir, tmplen, "/tmp/pmusim-vfs.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		err = -errno;
		snprintf(why, whylen, "mkdtemp: %s", strerror(errno));
		tmpdir[0] = 0;
		return err;
	}
	if (mount("pmusim", tmpdir, "tmpfs", 0, "mode=0755")) {
		err = -errno;
		snprintf(why, whylen, "tmpfs: %s", strerror(errno));
		return err;
	}
	/* /sys/bus/event_source/devices: the host's PMUs and the model's */
	snprintf(dir, sizeof(dir), "%s/devices", tmpdir);
	if (mkdir(dir, 0755) || link_host_pmus(dir, m)) {
		err = -errno;
		snprintf(why, whylen, "cannot write %s", dir);
		return err;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, m->pmu_name);
	if ((err = vfs_write_pmu_dir(cfg, path)) || (err = write_side_pmus(cfg, dir))) {
		snprintf(why, whylen, "cannot write %s: %s", path, strerror(-err));
		return err;
	}
	if ((err = bind(dir, DEVICES, why, whylen)))
		return err;
	overlay_sys_devices(cfg, tmpdir);

	/* sysctls: proc_dointvec prints "%d\n" */
	snprintf(dir, sizeof(dir), "%s/proc", tmpdir);
	mkdir(dir, 0755);
	put_line(dir, "perf_event_paranoid", "%d\n", cfg->paranoid);
	put_line(dir, "perf_event_max_sample_rate", "%u\n", cfg->max_sample_rate);
	put_line(dir, "perf_event_mlock_kb", "%u\n", cfg->mlock_kb);
	put_line(dir, "perf_user_access", "%d\n", cfg->perf_user_access);
	static const char *const sysctls[] = {
		"perf_event_paranoid", "perf_event_max_sample_rate", "perf_event_mlock_kb",
		"perf_user_access",
	};
	for (unsigned i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]); i++) {
		char src[PATH_MAX], dst[PATH_MAX];

		snprintf(src, sizeof(src), "%s/%s", dir, sysctls[i]);
		snprintf(dst, sizeof(dst), "/proc/sys/kernel/%s", sysctls[i]);
		if (access(dst, F_OK))
			continue;       /* the host lacks it (perf_user_access on x86) */
		if ((err = bind(src, dst, why, whylen)))
			return err;
	}

	/* /proc/cpuinfo of the modelled CPU */
	text = malloc(cap);
	if (!text)
		return -ENOMEM;
	n = pmu_model_cpuinfo(m, cfg->nr_cpus, cfg->cpuid, text, cap);
	err = put_file(dir, "cpuinfo", text, n < cap ? n : cap);
	free(text);
	snprintf(path, sizeof(path), "%s/cpuinfo", dir);
	if (err || (err = bind(path, "/proc/cpuinfo", why, whylen)))
		return err;

	/* online CPUs: the simulated ones */
	for (unsigned i = 0; i < sizeof(cpu_files) / sizeof(cpu_files[0]); i++) {
		char line[32], name[16];

		cpu_list(line, sizeof(line), cfg->nr_cpus);
		snprintf(name, sizeof(name), "cpus%u", i);
		put_file(dir, name, line, strlen(line));
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if ((err = bind(path, cpu_files[i], why, whylen)))
			return err;
	}
	/* one NUMA node with every simulated CPU (node_read_cpulist(); the
	 * node masks' node_read_online): what perf records in its header's
	 * NUMA topology, so that perf c2c report maps each CPU to a node */
	if (!access(NODE0_CPULIST, F_OK)) {
		char line[32];

		cpu_list(line, sizeof(line), cfg->nr_cpus);
		put_file(dir, "node0_cpulist", line, strlen(line));
		put_file(dir, "nodes", "0\n", 2);
		snprintf(path, sizeof(path), "%s/node0_cpulist", dir);
		if ((err = bind(path, NODE0_CPULIST, why, whylen)))
			return err;
		snprintf(path, sizeof(path), "%s/nodes", dir);
		for (unsigned i = 0; i < sizeof(node_files) / sizeof(node_files[0]); i++)
			if (!access(node_files[i], F_OK) && (err = bind(path, node_files[i], why, whylen)))
				return err;
	}
	return 0;
}

void vfs_cleanup(const char *tmpdir)
{
	if (!tmpdir[0])
		return;
	umount2(tmpdir, MNT_DETACH);
	rmdir(tmpdir);
}
