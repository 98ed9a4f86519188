/*
 * float_libc.c - floating point through dynamically linked libc and libm:
 * strtod, printf("%f"/"%a"), log/exp/sqrt. The first call of each goes
 * through glibc's lazy-binding trampoline, which saves and restores the
 * XMM argument registers with FXSAVE/FXRSTOR; under an emulator that
 * leaves CR4.OSFXSR clear those lose the arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	double x = strtod(argc > 1 ? argv[1] : "10", NULL);

	printf("%a %.17g\n", x, x);
	printf("%.17g %.17g %.17g\n", log(x), exp(x), sqrt(x));
	printf("%.6f\n", atof("3.25") * 2);
	return 0;
}
