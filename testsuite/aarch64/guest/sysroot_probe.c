/* sysroot_probe.c - guest program linked against libsysroot_probe.so,
 * which is in no directory the dynamic loader searches unless a sysroot
 * (qemu-user's -L, pmusim's --sysroot) maps one onto it. With "maps": the
 * files its shared objects are mapped from (/proc/self/maps), those under
 * the working directory as ./PATH, once each. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *sysroot_probe(void);

int main(int argc, char **argv)
{
	char line[PATH_MAX + 128], cwd[PATH_MAX], last[PATH_MAX] = "";
	FILE *f;

	printf("%s\n", sysroot_probe());
	if (argc < 2 || strcmp(argv[1], "maps") || !getcwd(cwd, sizeof(cwd)) ||
	    !(f = fopen("/proc/self/maps", "r")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');

		if (!path || !strstr(path, ".so"))
			continue;
		path[strcspn(path, "\n")] = 0;
		if (!strcmp(path, last))
			continue;
		snprintf(last, sizeof(last), "%s", path);
		if (!strncmp(path, cwd, strlen(cwd)) && path[strlen(cwd)] == '/')
			printf(".%s\n", path + strlen(cwd));
		else
			printf("%s\n", path);
	}
	fclose(f);
	return 0;
}
