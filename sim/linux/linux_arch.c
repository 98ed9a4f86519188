/*
 * linux_arch.c - the guest architectures the Linux layer runs, found by
 * the ELF header's e_machine (load_elf_binary()'s elf_check_arch()).
 */
#include <stddef.h>
#include "sim/cpu/cpu_arch.h"
#include "sim/linux/linux_arch.h"

static const struct linux_arch *const arches[] = {
	&linux_arch_x86_64,
	&linux_arch_aarch64,
};

const struct linux_arch *linux_arch_by_elf(uint16_t machine)
{
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i]->cpu->elf_machine == machine)
			return arches[i];
	return NULL;
}
