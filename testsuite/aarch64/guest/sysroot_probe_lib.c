/* sysroot_probe_lib.c - libsysroot_probe.so: a library that only a
 * sysroot tree holds (run_aarch64.sh's sysroot row). */
const char *sysroot_probe(void)
{
	return "found in the sysroot";
}
