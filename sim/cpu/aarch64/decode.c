/*
 * aarch64/decode.c - what an A64 instruction retires, for block_decode.h,
 * in the terms of the PMUv3 common events (Arm ARM D17.11): every branch
 * instruction is BR_RETIRED (0x21) whether taken or not (B, B.cond, BL,
 * BR, BLR, RET, CBZ/CBNZ, TBZ/TBNZ); a load or store instruction
 * (LD_RETIRED 0x06, ST_RETIRED 0x07) is one with a memory operand whose
 * mnemonic loads (LD*) or stores (ST*), both for the atomic
 * read-modify-writes (SWP, CAS, LDADD...). Prefetches access no data.
 */
#include <capstone/capstone.h>
#include <string.h>
#include "sim/cpu/block_decode.h"
#include "sim/cpu/aarch64/aarch64.h"

static bool has_mem_operand(const cs_arm64 *a)
{
	for (unsigned i = 0; i < a->op_count; i++)
		if (a->operands[i].type == ARM64_OP_MEM)
			return true;
	return false;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

void aarch64_classify(const cs_insn *in, struct bd_insn *out)
{
	const cs_arm64 *a = &in->detail->arm64;
	uint8_t cls = 0;
	unsigned cyc = BD_CYC_ALU;

	switch (in->id) {
	case ARM64_INS_B:
		cls |= BD_BRANCH;
		if (a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL && a->cc != ARM64_CC_NV)
			cls |= BD_COND;
		break;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		cls |= BD_BRANCH | BD_COND;
		break;
	case ARM64_INS_BL:
		cls |= BD_BRANCH | BD_CALL;
		break;
	case ARM64_INS_BLR:
		cls |= BD_BRANCH | BD_CALL | BD_INDIRECT;
		break;
	case ARM64_INS_BR:
		cls |= BD_BRANCH | BD_INDIRECT;
		break;
	case ARM64_INS_RET:
		cls |= BD_BRANCH | BD_RET | BD_INDIRECT;
		break;
	case ARM64_INS_MUL: case ARM64_INS_MADD: case ARM64_INS_MSUB:
	case ARM64_INS_SMULL: case ARM64_INS_UMULL: case ARM64_INS_SMULH: case ARM64_INS_UMULH:
		cyc = BD_CYC_MUL;
		break;
	case ARM64_INS_SDIV: case ARM64_INS_UDIV:
		cyc = BD_CYC_DIV;
		break;
	default:
		break;
	}
	if (has_mem_operand(a) && !starts(in->mnemonic, "prfm") && !starts(in->mnemonic, "prfu")) {
		const char *m = in->mnemonic;

		if (starts(m, "ld"))
			cls |= BD_LOAD;
		if (starts(m, "st"))
			cls |= BD_STORE;
		if (starts(m, "swp") || starts(m, "cas") ||
		    (starts(m, "ld") && (starts(m + 2, "add") || starts(m + 2, "clr") ||
					 starts(m + 2, "eor") || starts(m + 2, "set") ||
					 starts(m + 2, "smax") || starts(m + 2, "smin") ||
					 starts(m + 2, "umax") || starts(m + 2, "umin"))))
			cls |= BD_LOAD | BD_STORE;
	}
	if (cls & BD_LOAD)
		cyc = cyc > BD_CYC_LOAD ? cyc : BD_CYC_LOAD;
	out->cls = cls;
	out->cycles = (uint8_t)cyc;
}

/* The target of a direct conditional branch: its immediate operand (the
 * last one: B.cond label, CBZ Xn, label, TBZ Xn, #bit, label). */
uint64_t aarch64_cond_target(const cs_insn *in)
{
	const cs_arm64 *a = &in->detail->arm64;

	if (a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM)
		return (uint64_t)a->operands[a->op_count - 1].imm;
	return 0;
}
