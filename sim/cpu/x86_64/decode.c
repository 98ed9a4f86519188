/*
 * x86_64/decode.c - what an x86-64 instruction retires, for block_decode.h:
 * branch kinds, loads and stores (also the implicit stack accesses), REP
 * string instructions; and what the pipeline model schedules of it: the
 * registers it reads and writes (GPRs, flags, vector registers), its uops
 * and latency (MUL, DIV, CALL, RET, load-op-store from the model's
 * struct pmu_pipeline). Classes follow Intel's architectural events (SDM
 * vol. 3, 20.2.1 and 19.x). And what the decoded events count of it
 * (Intel's Skylake event list: FP_ARITH_INST_RETIRED, SW_PREFETCH_ACCESS,
 * BR_INST_RETIRED.FAR_BRANCH, MEM_INST_RETIRED.LOCK_LOADS, x87 uops) and
 * its unfused uops executed.
 */
#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
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

/* Class bits of one instruction. */
void x86_64_classify(const cs_insn *in, struct bd_insn *out)
{
	const cs_x86 *x = &in->detail->x86;
	uint8_t cls = 0;

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
	default:
		break;
	}
	if (is_string_op(in->id) &&
	    (x->prefix[0] == X86_PREFIX_REP || x->prefix[0] == X86_PREFIX_REPNE))
		cls |= BD_REP;
	out->cls = cls;
}

/* The target of a direct Jcc (an immediate operand), else 0. */
uint64_t x86_64_cond_target(const cs_insn *in)
{
	if (in->detail->x86.op_count && in->detail->x86.operands[0].type == X86_OP_IMM)
		return (uint64_t)in->detail->x86.operands[0].imm;
	return 0;
}

/* The schedule's keys: the 16 GPRs (RSP none: a stack engine), the flags,
 * and 32 vector registers (XMM/YMM/ZMM n are one). */
enum { RK_NONE = 0, RK_GPR = 1, RK_FLAGS = RK_GPR + 16, RK_VEC, RK_END = RK_VEC + 32 };
_Static_assert(RK_END <= BD_REG_KEYS, "x86-64 register keys");

/* The key of a register capstone names n ("rax", "eax", "ax", "al", "ah",
 * "r8d", "sil", "xmm3", "flags", ...). */
uint8_t x86_64_reg_key(const char *n)
{
	static const char *const gpr[8][5] = {
		{ "rax", "eax", "ax", "al", "ah" }, { "rcx", "ecx", "cx", "cl", "ch" },
		{ "rdx", "edx", "dx", "dl", "dh" }, { "rbx", "ebx", "bx", "bl", "bh" },
		{ "rsp", "esp", "sp", "spl", NULL }, { "rbp", "ebp", "bp", "bpl", NULL },
		{ "rsi", "esi", "si", "sil", NULL }, { "rdi", "edi", "di", "dil", NULL },
	};
	unsigned v;
	char suffix = 0;

	for (unsigned r = 0; r < 8; r++)
		for (unsigned k = 0; k < 5 && gpr[r][k]; k++)
			if (!strcmp(n, gpr[r][k]))
				return r == 4 ? RK_NONE : (uint8_t)(RK_GPR + r);
	if (sscanf(n, "r%u%c", &v, &suffix) >= 1 && v >= 8 && v < 16 &&
	    (!suffix || suffix == 'd' || suffix == 'w' || suffix == 'b'))
		return (uint8_t)(RK_GPR + v);
	if ((sscanf(n, "xmm%u", &v) == 1 || sscanf(n, "ymm%u", &v) == 1 ||
	     sscanf(n, "zmm%u", &v) == 1) && v < 32)
		return (uint8_t)(RK_VEC + v);
	if (!strcmp(n, "flags") || !strcmp(n, "eflags") || !strcmp(n, "rflags"))
		return RK_FLAGS;
	return RK_NONE;
}

/* Whether in reads nothing of its register operands: a zeroing idiom
 * (XOR, SUB, PXOR, XORPS, XORPD of a register with itself). */
static bool zero_idiom(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	switch (in->id) {
	case X86_INS_XOR: case X86_INS_SUB: case X86_INS_PXOR: case X86_INS_XORPS:
	case X86_INS_XORPD:
		return x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		       x->operands[1].type == X86_OP_REG && x->operands[0].reg == x->operands[1].reg;
	default:
		return false;
	}
}

/* capstone's registers read and written (cs_regs_access: explicit and
 * implicit), nothing read for a zeroing idiom. */
void x86_64_insn_regs(csh cs, const cs_insn *in, uint16_t *rd, uint8_t *nrd,
		      uint16_t *wr, uint8_t *nwr)
{
	if (cs_regs_access(cs, in, rd, nrd, wr, nwr) != CS_ERR_OK)
		*nrd = *nwr = 0;
	if (zero_idiom(in))
		*nrd = 0;
}

/* A load whose result is the loaded value itself (no operation after it). */
static bool plain_load(const cs_insn *in)
{
	static const char *const pre[] = { "mov", "vmov", "pop", "ret", "leave", "lods" };

	for (unsigned i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(in->mnemonic, pre[i], strlen(pre[i])))
			return true;
	return false;
}

/* uops and result latency (struct pmu_pipeline): 1 and 1, a load's the
 * L1D latency (plus its operation's for a load-op), the table's for MUL,
 * DIV, CALL, RET and load-op-store. */
void x86_64_insn_cost(const cs_insn *in, uint8_t cls, const struct pmu_pipeline *p,
		      unsigned load_latency, unsigned *uops, unsigned *lat)
{
	unsigned op = 1;

	*uops = 1;
	switch (in->id) {
	case X86_INS_IMUL: case X86_INS_MUL: case X86_INS_MULX:
		op = p->mul_latency;
		break;
	case X86_INS_DIV: case X86_INS_IDIV:
		op = p->div_latency;
		*uops = p->div_uops;
		break;
	default:
		break;
	}
	/* PUSH/POP of memory and string instructions are not load-op-stores */
	if (in->id == X86_INS_PUSH || in->id == X86_INS_POP || is_string_op(in->id))
		cls &= (uint8_t)~BD_STORE;
	*uops = bd_class_uops(p, cls, *uops);
	*lat = op;
	if (cls & BD_LOAD)
		*lat = load_latency + (plain_load(in) ? 0 : op);
}

/* SYSCALL: the kernel runs between it and the next block. */
bool x86_64_ends_run(const cs_insn *in)
{
	return in->id == X86_INS_SYSCALL;
}

/* RDPMC (0f 33) after optional prefixes. */
bool x86_64_reads_counter(const uint8_t *p, unsigned n)
{
	unsigned k = 0;

	while (k < n && (p[k] == 0x66 || p[k] == 0x67 || p[k] == 0xf2 || p[k] == 0xf3 ||
			 (p[k] & 0xf0) == 0x40))
		k++;
	return k + 1 < n && p[k] == 0x0f && p[k + 1] == 0x33;
}

/*
 * FP_ARITH_INST_RETIRED (Intel's Skylake event list, event 0xc7): the
 * SSE/AVX computational instructions by their mnemonic without the VEX
 * "v": an operation, then ss/sd (scalar) or ps/pd (packed, 128 or 256
 * bits by the widest operand). Scalar: ADD SUB MUL DIV MIN MAX SQRT
 * FM(N)ADD/SUB, and RSQRT RCP in single precision; packed adds HADD HSUB
 * ADDSUB DPP (and FMADDSUB/FMSUBADD). FM* and DPP count twice.
 * Comparisons, conversions, logic, blends and moves do not count.
 */
static unsigned fp_arith(const cs_insn *in)
{
	static const struct { const char *op; bool single_only, packed_only, twice; } ops[] = {
		{ "add", false, false, false }, { "sub", false, false, false },
		{ "mul", false, false, false }, { "div", false, false, false },
		{ "min", false, false, false }, { "max", false, false, false },
		{ "sqrt", false, false, false }, { "rsqrt", true, false, false },
		{ "rcp", true, false, false }, { "hadd", false, true, false },
		{ "hsub", false, true, false }, { "addsub", false, true, false },
		{ "dp", false, true, true },
	};
	static const char *const fma[] = { "fmadd", "fmsub", "fnmadd", "fnmsub", "fmaddsub", "fmsubadd" };
	const char *m = in->mnemonic;
	const cs_x86 *x = &in->detail->x86;
	size_t n = strlen(m), opn = 0;
	bool single, packed, twice = false, vex = m[0] == 'v', known = false;
	unsigned width = 16;

	if (vex)
		m++, n--;
	if (n < 4)
		return 0;
	single = m[n - 1] == 's';
	packed = m[n - 2] == 'p';
	if ((m[n - 1] != 's' && m[n - 1] != 'd') || (m[n - 2] != 's' && m[n - 2] != 'p'))
		return 0;
	opn = n - 2;
	for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]) && !known; i++) {
		if (strlen(ops[i].op) != opn || strncmp(m, ops[i].op, opn) ||
		    (ops[i].single_only && !single) || (ops[i].packed_only && !packed))
			continue;
		known = true;
		twice = ops[i].twice;
	}
	/* vfmadd132sd ...: the form's three digits before the type */
	for (unsigned i = 0; vex && i < sizeof(fma) / sizeof(fma[0]) && !known; i++) {
		size_t l = strlen(fma[i]);

		if (opn == l + 3 && !strncmp(m, fma[i], l) && strspn(m + l, "123") == 3 &&
		    (packed || (strcmp(fma[i], "fmaddsub") && strcmp(fma[i], "fmsubadd"))))
			known = twice = true;
	}
	if (!known)
		return 0;
	if (!packed)
		return (twice ? BD_FP_TWICE : 0) | (single ? BD_FP_SS : BD_FP_SD);
	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].size > width)
			width = x->operands[i].size;
	if (width > 32)
		return 0;     /* AVX-512: no such events on the model */
	if (width == 32)
		return (twice ? BD_FP_TWICE : 0) | (single ? BD_FP_256S : BD_FP_256D);
	return (twice ? BD_FP_TWICE : 0) | (single ? BD_FP_128S : BD_FP_128D);
}

/* SW_PREFETCH_ACCESS (event 0x32): PREFETCHNTA, PREFETCHT0, PREFETCHT1 or
 * T2, PREFETCHW. */
static unsigned sw_prefetch(unsigned id)
{
	switch (id) {
	case X86_INS_PREFETCHNTA: return BD_PF_NTA;
	case X86_INS_PREFETCHT0: return BD_PF_T0;
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2: return BD_PF_T1_T2;
	case X86_INS_PREFETCHW: return BD_PF_W;
	default: return BD_PF_NONE;
	}
}

/* A far branch that retires in user mode (BR_INST_RETIRED.FAR_BRANCH):
 * SYSCALL, SYSENTER, INT n, INT3, INTO, far CALL, JMP and RET, IRET. */
static bool far_branch(unsigned id)
{
	switch (id) {
	case X86_INS_SYSCALL: case X86_INS_SYSENTER: case X86_INS_INT: case X86_INS_INT3:
	case X86_INS_INTO: case X86_INS_LCALL: case X86_INS_LJMP: case X86_INS_RETF:
	case X86_INS_RETFQ: case X86_INS_IRET: case X86_INS_IRETD: case X86_INS_IRETQ:
		return true;
	default:
		return false;
	}
}

/* An x87 instruction: its mnemonic starts with "f" (capstone 4's FPU
 * group misses some, FSTP ST(i)), but FXSAVE, FXRSTOR and FEMMS are not. */
static bool x87(const cs_insn *in)
{
	return in->mnemonic[0] == 'f' && strncmp(in->mnemonic, "fxsave", 6) &&
	       strncmp(in->mnemonic, "fxrstor", 7) && strcmp(in->mnemonic, "femms");
}

/* Whether the instruction's len bytes at p have a length-changing prefix
 * (ILD_STALL.LCP, Intel 248966): 0x66 before an opcode whose immediate it
 * shortens from 32 to 16 bits (no REX.W). */
static bool has_lcp(const uint8_t *p, unsigned len)
{
	unsigned k = 0;
	bool opsize = false;

	for (; k < len; k++) {
		uint8_t c = p[k];

		if (c == 0x66)
			opsize = true;
		else if (!(c == 0x67 || c == 0xf0 || c == 0xf2 || c == 0xf3 || c == 0x2e ||
			   c == 0x36 || c == 0x3e || c == 0x26 || c == 0x64 || c == 0x65))
			break;
	}
	if (!opsize || k >= len)
		return false;
	if ((p[k] & 0xf0) == 0x40) {       /* REX: REX.W makes the operand 64-bit */
		if (p[k] & 0x08)
			return false;
		if (++k >= len)
			return false;
	}
	switch (p[k]) {
	case 0x05: case 0x0d: case 0x15: case 0x1d:   /* op eAX, Iz */
	case 0x25: case 0x2d: case 0x35: case 0x3d:
	case 0x68: case 0x69: case 0x81: case 0xa9: case 0xc7:
		return true;
	case 0xb8: case 0xb9: case 0xba: case 0xbb:   /* MOV r, Iv */
	case 0xbc: case 0xbd: case 0xbe: case 0xbf:
		return true;
	case 0xf7:                                     /* TEST Ev, Iz: /0 and /1 */
		return k + 1 < len && ((p[k + 1] >> 3) & 7) < 2;
	default:
		return false;
	}
}

/*
 * cpu_arch's insn_ext: the decoded events (a locked load: LOCK-prefixed,
 * or XCHG with memory, which locks without one; a length-changing prefix,
 * which the front-end model charges), and the unfused uops
 * executed:
 * the fused ones, plus the load of a load-op (micro-fused with its
 * operation; a prefetch is a load alone) and the store-data half of a
 * store (store-address and store-data are one fused uop), so a
 * load-op-store executes 4.
 */
void x86_64_insn_ext(const cs_insn *in, uint8_t cls, unsigned uops, struct bd_insn *out)
{
	unsigned xuops = uops;

	out->xcls = (uint8_t)(fp_arith(in) | sw_prefetch(in->id) << BD_PF_SHIFT |
			      (far_branch(in->id) ? BD_FAR : 0));
	if ((cls & BD_LOAD) && !plain_load(in) && !(cls & (BD_CALL | BD_RET)) &&
	    !sw_prefetch(in->id) && in->id != X86_INS_PREFETCH)
		xuops++;
	if (cls & BD_STORE)
		xuops++;
	out->xuops = (uint8_t)(xuops > UINT8_MAX ? UINT8_MAX : xuops);
	if (x87(in))
		out->ge |= BD_GE_X87;
	if ((cls & BD_LOAD) && (in->detail->x86.prefix[0] == X86_PREFIX_LOCK ||
				in->id == X86_INS_XCHG))
		out->ge |= BD_GE_LOCK_LOAD;
	if (has_lcp(in->bytes, in->size))
		out->ge |= BD_GE_LCP;
}
