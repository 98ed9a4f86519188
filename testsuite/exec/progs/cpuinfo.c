/*
 * cpuinfo.c - prints what the CPU says of itself through CPUID (vendor,
 * family/model/stepping, leaf 0xA perfmon fields, brand string) and the
 * matching lines of /proc/cpuinfo, so a test can check that they agree.
 */
#include <cpuid.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	unsigned a, b, c, d, fam, model;
	char vendor[13] = { 0 }, brand[49] = { 0 }, line[512];
	FILE *f;

	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4); memcpy(vendor + 4, &d, 4); memcpy(vendor + 8, &c, 4);
	__cpuid(1, a, b, c, d);
	fam = (a >> 8) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	model = (a >> 4) & 0xf;
	if (fam == 6 || fam >= 0xf)
		model |= ((a >> 16) & 0xf) << 4;
	printf("cpuid vendor=%s family=%u model=%u stepping=%u\n", vendor, fam, model, a & 0xf);
	__cpuid(0, a, b, c, d);
	if (a >= 0xa) {
		__cpuid(0xa, a, b, c, d);
		printf("cpuid perfmon version=%u gp=%u width=%u fixed=%u fixed_width=%u\n",
		       a & 0xff, (a >> 8) & 0xff, (a >> 16) & 0xff, d & 0x1f, (d >> 5) & 0xff);
	}
	for (unsigned i = 0; i < 3; i++) {
		__cpuid(0x80000002 + i, a, b, c, d);
		memcpy(brand + 16 * i, &a, 4); memcpy(brand + 16 * i + 4, &b, 4);
		memcpy(brand + 16 * i + 8, &c, 4); memcpy(brand + 16 * i + 12, &d, 4);
	}
	printf("cpuid brand=%s\n", brand);
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9) || !strncmp(line, "cpu family", 10) ||
		    !strncmp(line, "model\t", 6) || !strncmp(line, "model name", 10) ||
		    !strncmp(line, "stepping", 8))
			fputs(line, stdout);
		if (line[0] == '\n')
			break;   /* first processor only */
	}
	fclose(f);
	return 0;
}
