/*
 * tb_chain.h - x86-64 blocks that end for their length jump straight to
 * the next block.
 */
#ifndef PMUSIM_CPU_TB_CHAIN_H
#define PMUSIM_CPU_TB_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Called for each exit_tb(NULL, 0) the x86-64 translator emits. True once
 * if it is the end of a block that stopped for its length (the next
 * address is in env->eip, nothing else changed): the caller emits, instead
 * of the exit to the engine's loop, goto_tb(0) and exit_tb(*tb, 0) when
 * *direct, else lookup_and_goto_ptr.
 */
bool tb_chain_take(const void **tb, bool *direct);
/* The guest address of the block the x86-64 translator is translating on
 * this thread (from its start, before the block hook's code); false when
 * none is or the layout is unknown. */
bool tb_chain_block_pc(uint64_t *pc);

#endif
