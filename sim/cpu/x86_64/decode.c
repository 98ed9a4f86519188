/*
 * x86_64/decode.c - the x86-64 decoder (cpu_arch.h's decode, on Zydis,
 * which reads each operand's action and the flags an instruction tests
 * and changes): what an instruction retires, for block_decode.h:
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
#include <Zydis/Zydis.h>
#include <stdlib.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cpu_arch.h"
#include "sim/cpu/x86_64/x86_64.h"

/* One decoded instruction: Zydis's, with every operand (the hidden ones,
 * as the stack's and the string instructions' memory, included). */
struct zinsn {
	ZydisDecodedInstruction i;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	const char *mnemonic;     /* lower case, no prefix */
	const uint8_t *bytes;
};

struct arch_decoder {
	ZydisDecoder z;
};

/* MOVS, STOS, LODS, CMPS, SCAS (MOVSD and CMPSD also name SSE2
 * instructions: the string forms are Zydis's string-operation category) */
static bool is_string_op(const struct zinsn *z)
{
	if (z->i.meta.category != ZYDIS_CATEGORY_STRINGOP)
		return false;
	switch (z->i.mnemonic) {
	case ZYDIS_MNEMONIC_MOVSB: case ZYDIS_MNEMONIC_MOVSW: case ZYDIS_MNEMONIC_MOVSD:
	case ZYDIS_MNEMONIC_MOVSQ: case ZYDIS_MNEMONIC_STOSB: case ZYDIS_MNEMONIC_STOSW:
	case ZYDIS_MNEMONIC_STOSD: case ZYDIS_MNEMONIC_STOSQ: case ZYDIS_MNEMONIC_LODSB:
	case ZYDIS_MNEMONIC_LODSW: case ZYDIS_MNEMONIC_LODSD: case ZYDIS_MNEMONIC_LODSQ:
	case ZYDIS_MNEMONIC_CMPSB: case ZYDIS_MNEMONIC_CMPSW: case ZYDIS_MNEMONIC_CMPSD:
	case ZYDIS_MNEMONIC_CMPSQ: case ZYDIS_MNEMONIC_SCASB: case ZYDIS_MNEMONIC_SCASW:
	case ZYDIS_MNEMONIC_SCASD: case ZYDIS_MNEMONIC_SCASQ:
		return true;
	default:
		return false;
	}
}

/* Class bits of one instruction: a memory operand's action (explicit,
 * implicit as a string instruction's, or hidden as the stack's: CALL
 * stores, RET loads) makes it a load or a store; LEA and NOP access
 * nothing. */
static uint8_t classify(const struct zinsn *z)
{
	uint8_t cls = 0;

	switch (z->i.meta.category) {
	case ZYDIS_CATEGORY_COND_BR:          /* Jcc, JrCXZ, LOOPcc */
		cls |= BD_BRANCH | BD_COND;
		break;
	case ZYDIS_CATEGORY_UNCOND_BR:
		cls |= BD_BRANCH;
		break;
	case ZYDIS_CATEGORY_CALL:
		cls |= BD_BRANCH | BD_CALL;
		break;
	case ZYDIS_CATEGORY_RET:
		cls |= BD_BRANCH | BD_RET | BD_INDIRECT;
		break;
	default:
		break;
	}
	if ((cls & BD_BRANCH) && !(cls & BD_RET) && z->i.operand_count_visible &&
	    z->op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
		cls |= BD_INDIRECT;
	if (z->i.mnemonic != ZYDIS_MNEMONIC_LEA && z->i.mnemonic != ZYDIS_MNEMONIC_NOP) {
		for (unsigned k = 0; k < z->i.operand_count; k++) {
			const ZydisDecodedOperand *o = &z->op[k];

			if (o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.type != ZYDIS_MEMOP_TYPE_MEM)
				continue;
			if (o->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
				cls |= BD_LOAD;
			if (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
				cls |= BD_STORE;
		}
	}
	if (is_string_op(z) &&
	    (z->i.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE)))
		cls |= BD_REP;
	return cls;
}

/* The target of a direct Jcc (a relative immediate operand), else 0. */
static uint64_t cond_target(const struct zinsn *z, uint64_t pc)
{
	ZyanU64 a;

	if (z->i.operand_count_visible && z->op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&z->i, &z->op[0], pc, &a)))
		return a;
	return 0;
}

/* The schedule's keys: the 16 GPRs (RSP none: a stack engine), the flags,
 * and 32 vector registers (XMM/YMM/ZMM n are one). */
enum { RK_NONE = 0, RK_GPR = 1, RK_FLAGS = RK_GPR + 16, RK_VEC, RK_END = RK_VEC + 32 };
_Static_assert(RK_END <= BD_REG_KEYS, "x86-64 register keys");

/* The key of register r (AH..BH are their 64-bit registers'). */
static uint8_t reg_key(ZydisRegister r)
{
	ZydisRegister big;

	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR8: case ZYDIS_REGCLASS_GPR16: case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
		big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
		return big == ZYDIS_REGISTER_RSP ? RK_NONE :
		       (uint8_t)(RK_GPR + ZydisRegisterGetId(big));
	case ZYDIS_REGCLASS_FLAGS:
		return RK_FLAGS;
	case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM: case ZYDIS_REGCLASS_ZMM:
		return (uint8_t)(RK_VEC + ZydisRegisterGetId(r));
	default:
		return RK_NONE;
	}
}

/* Whether z reads nothing of its register operands: a zeroing idiom
 * (XOR, SUB, PXOR, XORPS, XORPD of a register with itself). */
static bool zero_idiom(const struct zinsn *z)
{
	switch (z->i.mnemonic) {
	case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_PXOR:
	case ZYDIS_MNEMONIC_XORPS: case ZYDIS_MNEMONIC_XORPD:
		return z->i.operand_count_visible == 2 &&
		       z->op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		       z->op[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		       z->op[0].reg.value == z->op[1].reg.value;
	default:
		return false;
	}
}

/* A load of 64 bits into half of an XMM register (MOVHPS, MOVLPS, MOVHPD,
 * MOVLPD xmm, m64), which keeps the other half: it reads the register. */
static bool merging_load(const struct zinsn *z)
{
	switch (z->i.mnemonic) {
	case ZYDIS_MNEMONIC_MOVHPS: case ZYDIS_MNEMONIC_MOVLPS: case ZYDIS_MNEMONIC_MOVHPD:
	case ZYDIS_MNEMONIC_MOVLPD:
		return z->i.operand_count_visible == 2 &&
		       z->op[0].type == ZYDIS_OPERAND_TYPE_REGISTER;
	default:
		return false;
	}
}

/* The registers z reads and writes, explicit and implicit, as keys: a
 * conditional write (CMOVcc's destination) also reads, as the old value
 * may stay; a memory operand reads its base and index; the flags it tests
 * and changes. Nothing read for a zeroing idiom. */
static void insn_regs(const struct zinsn *z, struct arch_insn *out)
{
	const ZydisAccessedFlags *f = z->i.cpu_flags;

	out->nrd = out->nwr = 0;
	for (unsigned k = 0; k < z->i.operand_count; k++) {
		const ZydisDecodedOperand *o = &z->op[k];

		if (o->type == ZYDIS_OPERAND_TYPE_REGISTER) {
			uint8_t key = reg_key(o->reg.value);

			if ((o->actions & (ZYDIS_OPERAND_ACTION_MASK_READ |
					   ZYDIS_OPERAND_ACTION_CONDWRITE)) ||
			    (k == 0 && merging_load(z)))
				arch_insn_add_key(out->rd, &out->nrd, key);
			if (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
				arch_insn_add_key(out->wr, &out->nwr, key);
		} else if (o->type == ZYDIS_OPERAND_TYPE_MEMORY) {
			arch_insn_add_key(out->rd, &out->nrd, reg_key(o->mem.base));
			arch_insn_add_key(out->rd, &out->nrd, reg_key(o->mem.index));
		}
	}
	if (f && f->tested)
		arch_insn_add_key(out->rd, &out->nrd, RK_FLAGS);
	if (f && (f->modified | f->set_0 | f->set_1 | f->undefined))
		arch_insn_add_key(out->wr, &out->nwr, RK_FLAGS);
	if (zero_idiom(z))
		out->nrd = 0;
}

/* A load whose result is the loaded value itself (no operation after it). */
static bool plain_load(const struct zinsn *z)
{
	static const char *const pre[] = { "mov", "vmov", "pop", "ret", "leave", "lods" };

	for (unsigned i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(z->mnemonic, pre[i], strlen(pre[i])))
			return true;
	return false;
}

/* uops and result latency (struct pmu_pipeline): 1 and 1, a load's the
 * L1D latency (plus its operation's for a load-op), the table's for MUL,
 * DIV, CALL, RET and load-op-store. */
static void insn_cost(const struct zinsn *z, uint8_t cls, const struct pmu_pipeline *p,
		      unsigned load_latency, unsigned *uops, unsigned *lat)
{
	unsigned op = 1;

	*uops = 1;
	switch (z->i.mnemonic) {
	case ZYDIS_MNEMONIC_IMUL: case ZYDIS_MNEMONIC_MUL: case ZYDIS_MNEMONIC_MULX:
		op = p->mul_latency;
		break;
	case ZYDIS_MNEMONIC_DIV: case ZYDIS_MNEMONIC_IDIV:
		op = p->div_latency;
		*uops = p->div_uops;
		break;
	default:
		break;
	}
	/* PUSH/POP of memory and string instructions are not load-op-stores */
	if (z->i.mnemonic == ZYDIS_MNEMONIC_PUSH || z->i.mnemonic == ZYDIS_MNEMONIC_POP ||
	    is_string_op(z))
		cls &= (uint8_t)~BD_STORE;
	*uops = bd_class_uops(p, cls, *uops);
	*lat = op;
	if (cls & BD_LOAD)
		*lat = load_latency + (plain_load(z) ? 0 : op);
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
static unsigned fp_arith(const struct zinsn *z)
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
	const char *m = z->mnemonic;
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
	for (unsigned i = 0; i < z->i.operand_count_visible; i++)
		if (z->op[i].size / 8u > width)
			width = z->op[i].size / 8u;
	if (width > 32)
		return 0;     /* AVX-512: no such events on the model */
	if (width == 32)
		return (twice ? BD_FP_TWICE : 0) | (single ? BD_FP_256S : BD_FP_256D);
	return (twice ? BD_FP_TWICE : 0) | (single ? BD_FP_128S : BD_FP_128D);
}

/* SW_PREFETCH_ACCESS (event 0x32): PREFETCHNTA, PREFETCHT0, PREFETCHT1 or
 * T2, PREFETCHW. */
static unsigned sw_prefetch(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_PREFETCHNTA: return BD_PF_NTA;
	case ZYDIS_MNEMONIC_PREFETCHT0: return BD_PF_T0;
	case ZYDIS_MNEMONIC_PREFETCHT1: case ZYDIS_MNEMONIC_PREFETCHT2: return BD_PF_T1_T2;
	case ZYDIS_MNEMONIC_PREFETCHW: return BD_PF_W;
	default: return BD_PF_NONE;
	}
}

/* A far branch that retires in user mode (BR_INST_RETIRED.FAR_BRANCH):
 * SYSCALL, SYSENTER, INT n, INT3, INTO, far CALL, JMP and RET, IRET. */
static bool far_branch(const struct zinsn *z)
{
	switch (z->i.mnemonic) {
	case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER: case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT3: case ZYDIS_MNEMONIC_INTO: case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD: case ZYDIS_MNEMONIC_IRETQ:
		return true;
	case ZYDIS_MNEMONIC_CALL: case ZYDIS_MNEMONIC_JMP: case ZYDIS_MNEMONIC_RET:
		return z->i.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;
	default:
		return false;
	}
}

/* An x87 instruction: its mnemonic starts with "f", but FXSAVE, FXRSTOR
 * and FEMMS are not. */
static bool x87(const struct zinsn *z)
{
	const char *m = z->mnemonic;

	return m[0] == 'f' && strncmp(m, "fxsave", 6) && strncmp(m, "fxrstor", 7) &&
	       strcmp(m, "femms");
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
 * The decoded events (a locked load: LOCK-prefixed, or XCHG with memory,
 * which locks without one; a length-changing prefix, which the front-end
 * model charges), and the unfused uops executed: the fused ones, plus
 * the load of a load-op (micro-fused with its operation; a prefetch is a
 * load alone) and the store-data half of a store (store-address and
 * store-data are one fused uop), so a load-op-store executes 4.
 */
static void insn_ext(const struct zinsn *z, uint8_t cls, unsigned uops, struct arch_insn *out)
{
	unsigned xuops = uops;
	ZydisMnemonic m = z->i.mnemonic;

	out->xcls = (uint8_t)(fp_arith(z) | sw_prefetch(m) << BD_PF_SHIFT |
			      (far_branch(z) ? BD_FAR : 0));
	if ((cls & BD_LOAD) && !plain_load(z) && !(cls & (BD_CALL | BD_RET)) &&
	    !sw_prefetch(m) && m != ZYDIS_MNEMONIC_PREFETCH)
		xuops++;
	if (cls & BD_STORE)
		xuops++;
	out->xuops = (uint8_t)(xuops > UINT8_MAX ? UINT8_MAX : xuops);
	out->ge = 0;
	if (x87(z))
		out->ge |= BD_GE_X87;
	if ((cls & BD_LOAD) &&
	    ((z->i.attributes & ZYDIS_ATTRIB_HAS_LOCK) || m == ZYDIS_MNEMONIC_XCHG))
		out->ge |= BD_GE_LOCK_LOAD;
	if (has_lcp(z->bytes, z->i.length))
		out->ge |= BD_GE_LCP;
}

/* ---- cpu_arch's decoder ------------------------------------------------------- */

struct arch_decoder *x86_64_decoder_new(void)
{
	struct arch_decoder *d = calloc(1, sizeof(*d));

	if (d && !ZYAN_SUCCESS(ZydisDecoderInit(&d->z, ZYDIS_MACHINE_MODE_LONG_64,
						 ZYDIS_STACK_WIDTH_64))) {
		free(d);
		d = NULL;
	}
	return d;
}

void x86_64_decoder_free(struct arch_decoder *d)
{
	free(d);
}

bool x86_64_decode(struct arch_decoder *d, const uint8_t *code, size_t left, uint64_t pc,
		   const struct pmu_pipeline *p, unsigned load_latency, struct arch_insn *out)
{
	struct zinsn z;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d->z, code, left, &z.i, z.op)))
		return false;
	z.mnemonic = ZydisMnemonicGetString(z.i.mnemonic);
	z.bytes = code;
	out->len = z.i.length;
	out->cls = classify(&z);
	out->ends_run = z.i.mnemonic == ZYDIS_MNEMONIC_SYSCALL;   /* the kernel runs next */
	out->cond_target = (out->cls & BD_COND) ? cond_target(&z, pc) : 0;
	insn_regs(&z, out);
	insn_cost(&z, out->cls, p, load_latency, &out->uops, &out->lat);
	insn_ext(&z, out->cls, out->uops, out);
	return true;
}
