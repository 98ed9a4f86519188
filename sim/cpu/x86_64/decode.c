/*
 * x86_64/decode.c - what an x86-64 instruction retires, for block_decode.h:
 * branch kinds, loads and stores (also the implicit stack accesses), REP
 * string instructions, base cycles. Classes follow Intel's architectural
 * events (SDM vol. 3, 20.2.1 and 19.x).
 */
#include <capstone/capstone.h>
#include "sim/cpu/block_decode.h"
#include "sim/cpu/x86_64/x86_64.h"

static bool is_string_op(unsigned id)
{
	switch (id) {
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
	case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSD: case X86_INS_CMPSQ:
	case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
		return true;
	default:
		return false;
	}
}

/* Class bits and base cycles of one instruction. */
void x86_64_classify(const cs_insn *in, struct bd_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t cls = 0;
	unsigned cyc = BD_CYC_ALU;

	for (unsigned g = 0; g < in->detail->groups_count; g++) {
		switch (in->detail->groups[g]) {
		case CS_GRP_JUMP:
			cls |= BD_BRANCH;
			if (in->id != X86_INS_JMP && in->id != X86_INS_LJMP)
				cls |= BD_COND;
			break;
		case CS_GRP_CALL:
			cls |= BD_BRANCH | BD_CALL | BD_STORE;
			break;
		case CS_GRP_RET:
			cls |= BD_BRANCH | BD_RET | BD_LOAD | BD_INDIRECT;
			break;
		default:
			break;
		}
	}
	if ((cls & BD_BRANCH) && !(cls & BD_RET) && x->op_count &&
	    x->operands[0].type != X86_OP_IMM)
		cls |= BD_INDIRECT;
	if (in->id != X86_INS_LEA && in->id != X86_INS_NOP) {
		for (unsigned i = 0; i < x->op_count; i++) {
			if (x->operands[i].type != X86_OP_MEM)
				continue;
			if (x->operands[i].access & CS_AC_READ)
				cls |= BD_LOAD;
			if (x->operands[i].access & CS_AC_WRITE)
				cls |= BD_STORE;
		}
	}
	switch (in->id) {
	case X86_INS_PUSH: case X86_INS_PUSHFQ: case X86_INS_PUSHAW:
		cls |= BD_STORE;
		break;
	case X86_INS_POP: case X86_INS_POPFQ: case X86_INS_LEAVE:
		cls |= BD_LOAD;
		break;
	case X86_INS_IMUL: case X86_INS_MUL: case X86_INS_MULX:
		cyc = BD_CYC_MUL;
		break;
	case X86_INS_DIV: case X86_INS_IDIV:
		cyc = BD_CYC_DIV;
		break;
	default:
		break;
	}
	if (is_string_op(in->id) &&
	    (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE))
		cls |= BD_REP;
	if (cls & BD_LOAD)
		cyc = cyc > BD_CYC_LOAD ? cyc : BD_CYC_LOAD;
	out->cls = cls;
	out->cycles = (uint8_t)cyc;
}

/* The target of a direct Jcc (an immediate operand), else 0. */
uint64_t x86_64_cond_target(const cs_insn *in)
{
	if (in->detail->x86.op_count && in->detail->x86.operands[0].type == X86_OP_IMM)
		return (uint64_t)in->detail->x86.operands[0].imm;
	return 0;
}
