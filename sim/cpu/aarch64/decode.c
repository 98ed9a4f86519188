/*
 * aarch64/decode.c - what an A64 instruction retires, for block_decode.h,
 * in the terms of the PMUv3 common events (Arm ARM D17.11): every branch
 * instruction is BR_RETIRED (0x21) whether taken or not (B, B.cond, BL,
 * BR, BLR, RET, CBZ/CBNZ, TBZ/TBNZ); a load or store instruction
 * (LD_RETIRED 0x06, ST_RETIRED 0x07) is one with a memory operand whose
 * mnemonic loads (LD*) or stores (ST*), both for the atomic
 * read-modify-writes (SWP, CAS, LDADD...). Prefetches access no data.
 * And what the pipeline model schedules of it: the registers it reads and
 * writes (X0-X30 with their W halves, NZCV, V0-V31 with their B/H/S/D/Q
 * views), its uops and latency (MUL/MADD/SMULL..., SDIV/UDIV from the
 * model's struct pmu_pipeline, a load the model's L1D latency). The
 * decoder is capstone's (detail on), its registers mapped to the
 * schedule's keys by name once per decoder.
 */
#include <assert.h>
#include <capstone/capstone.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/block_decode.h"
#include "sim/cpu/cpu_arch.h"
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

static uint8_t aarch64_classify(const cs_insn *in)
{
	const cs_arm64 *a = &in->detail->arm64;
	uint8_t cls = 0;

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
	return cls;
}

/* The target of a direct conditional branch: its immediate operand (the
 * last one: B.cond label, CBZ Xn, label, TBZ Xn, #bit, label). */
static uint64_t aarch64_cond_target(const cs_insn *in)
{
	const cs_arm64 *a = &in->detail->arm64;

	if (a->op_count && a->operands[a->op_count - 1].type == ARM64_OP_IMM)
		return (uint64_t)a->operands[a->op_count - 1].imm;
	return 0;
}

/* The schedule's keys: X0-X30 (W n as X n; SP, XZR and WZR none: a stack
 * engine, a constant), NZCV, V0-V31 (B/H/S/D/Q n as V n). */
enum { RK_NONE = 0, RK_GPR = 1, RK_FLAGS = RK_GPR + 31, RK_VEC, RK_END = RK_VEC + 32 };
_Static_assert(RK_END <= BD_REG_KEYS, "AArch64 register keys");

/* The key of a register capstone names n ("x0", "w30", "nzcv", "v3",
 * "q3", "d3", "s3", "h3", "b3", "sp", "xzr", ...). */
static uint8_t aarch64_reg_key(const char *n)
{
	unsigned v;
	char end;

	if (!strcmp(n, "nzcv"))
		return RK_FLAGS;
	if (sscanf(n, "%*1[xw]%u%c", &v, &end) == 1 && v < 31)
		return (uint8_t)(RK_GPR + v);
	if (sscanf(n, "%*1[vqdshb]%u%c", &v, &end) == 1 && v < 32)
		return (uint8_t)(RK_VEC + v);
	return RK_NONE;
}

/* How many leading register operands in writes (the rest it reads):
 * none for branches, compares, MSR and stores (but a store-exclusive's
 * status register), those before the memory operand for a load or an
 * atomic (which also reads them: CAS, SWP, LDADD...), else the first. */
static unsigned dest_operands(const cs_insn *in, const cs_arm64 *a, uint8_t cls)
{
	const char *m = in->mnemonic;
	unsigned n = 0;

	if (cls & BD_BRANCH)
		return 0;
	switch (in->id) {
	case ARM64_INS_CMP: case ARM64_INS_CMN: case ARM64_INS_TST: case ARM64_INS_CCMP:
	case ARM64_INS_CCMN: case ARM64_INS_FCMP: case ARM64_INS_FCMPE: case ARM64_INS_FCCMP:
	case ARM64_INS_FCCMPE: case ARM64_INS_MSR:
		return 0;
	default:
		break;
	}
	if ((cls & BD_STORE) && !(cls & BD_LOAD))
		return !strncmp(m, "stx", 3) || !strncmp(m, "stlx", 4);
	if (cls & BD_LOAD) {
		while (n < a->op_count && a->operands[n].type == ARM64_OP_REG)
			n++;
		return n;
	}
	return 1;
}

/* Whether in also reads its destination (it writes part of it, or
 * accumulates into it). */
static bool reads_dest(const cs_insn *in, uint8_t cls)
{
	switch (in->id) {
	case ARM64_INS_MOVK: case ARM64_INS_BFM: case ARM64_INS_BFI: case ARM64_INS_BFXIL:
	case ARM64_INS_INS: case ARM64_INS_FMLA: case ARM64_INS_FMLS: case ARM64_INS_MLA:
	case ARM64_INS_MLS:
		return true;
	default:
		return (cls & BD_LOAD) && (cls & BD_STORE);    /* an atomic */
	}
}

/* capstone's register reg into a set of out, as its key (key[reg]) */
static void add_reg(uint8_t *set, uint8_t *n, const uint8_t *key, unsigned reg)
{
	if (reg != ARM64_REG_INVALID && reg < ARM64_REG_ENDING)
		arch_insn_add_key(set, n, key[reg]);
}

/*
 * The registers in reads and writes, as the schedule's keys (key[]: of
 * each capstone register) into out->rd and out->wr. capstone 4's A64 operand access
 * flags are not reliable (MOVZ reads its destination, CMP writes its
 * first operand, RET reads nothing), so the operands' roles come from
 * the instruction's form (dest_operands, reads_dest); the implicit ones
 * from capstone's lists (NZCV for flag setters and conditions, X30 for
 * BL/BLR); a memory operand's base and index are read, and the base
 * written back by a pre/post-indexed access; RET without an operand reads
 * X30.
 */
static void aarch64_insn_regs(const uint8_t *key, const cs_insn *in, uint8_t cls,
			      struct arch_insn *out)
{
	const cs_detail *d = in->detail;
	const cs_arm64 *a = &d->arm64;
	unsigned ndest = dest_operands(in, a, cls), r = 0;
	uint8_t *rd = out->rd, *wr = out->wr, *nrd = &out->nrd, *nwr = &out->nwr;

	*nrd = *nwr = 0;
	for (unsigned i = 0; i < d->regs_read_count; i++)
		add_reg(rd, nrd, key, d->regs_read[i]);
	for (unsigned i = 0; i < d->regs_write_count; i++)
		add_reg(wr, nwr, key, d->regs_write[i]);
	for (unsigned i = 0; i < a->op_count; i++) {
		const cs_arm64_op *op = &a->operands[i];

		if (op->type == ARM64_OP_MEM) {
			add_reg(rd, nrd, key, op->mem.base);
			add_reg(rd, nrd, key, op->mem.index);
			if (a->writeback)
				add_reg(wr, nwr, key, op->mem.base);
			continue;
		}
		if (op->type != ARM64_OP_REG)
			continue;
		if (r < ndest) {
			add_reg(wr, nwr, key, op->reg);
			if (reads_dest(in, cls))
				add_reg(rd, nrd, key, op->reg);
		} else {
			add_reg(rd, nrd, key, op->reg);
		}
		r++;
	}
	if (in->id == ARM64_INS_RET && !a->op_count)
		add_reg(rd, nrd, key, ARM64_REG_X30);
}

/* uops and result latency (struct pmu_pipeline): 1 and 1; a load's the
 * L1D latency (A64 has no load-op); multiplies and divides the table's;
 * BL/BLR, RET and an atomic read-modify-write the table's uops. */
static void aarch64_insn_cost(const cs_insn *in, uint8_t cls, const struct pmu_pipeline *p,
		       unsigned load_latency, unsigned *uops, unsigned *lat)
{
	unsigned op = 1;

	*uops = 1;
	switch (in->id) {
	case ARM64_INS_MUL: case ARM64_INS_MADD: case ARM64_INS_MSUB: case ARM64_INS_MNEG:
	case ARM64_INS_SMULL: case ARM64_INS_UMULL: case ARM64_INS_SMULH: case ARM64_INS_UMULH:
	case ARM64_INS_SMADDL: case ARM64_INS_UMADDL: case ARM64_INS_SMSUBL:
	case ARM64_INS_UMSUBL: case ARM64_INS_SMNEGL: case ARM64_INS_UMNEGL:
		op = p->mul_latency;
		break;
	case ARM64_INS_SDIV: case ARM64_INS_UDIV:
		op = p->div_latency;
		*uops = p->div_uops;
		break;
	default:
		break;
	}
	*uops = bd_class_uops(p, cls, *uops);
	*lat = (cls & BD_LOAD) ? load_latency : op;
}

/* SVC (the kernel runs between it and the next block) and ISB (QEMU
 * ends the block there; it drains the pipeline). */
static bool aarch64_ends_run(const cs_insn *in)
{
	return in->id == ARM64_INS_SVC || in->id == ARM64_INS_ISB;
}

/* MRS/MSR (register) of the PMU's EL0 registers: op0 3, op1 3, CRn 9 CRm
 * 12-14 or CRn 14 CRm 8-15 (cpu.c's hook answers them). The encoding:
 * 1101 0101 00 L 1 o0 op1 CRn CRm op2 Rt, op0 = 2 + o0. */
bool aarch64_reads_counter(const uint8_t *p, unsigned n)
{
	uint32_t w, crn, crm;

	if (n != 4)
		return false;
	w = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	if ((w & 0xffd00000u) != 0xd5100000u || !(w >> 19 & 1) || (w >> 16 & 7) != 3)
		return false;
	crn = w >> 12 & 15;
	crm = w >> 8 & 15;
	return (crn == 9 && crm >= 12 && crm <= 14) || (crn == 14 && crm >= 8);
}

/* ---- cpu_arch's decoder ------------------------------------------------------- */

struct arch_decoder {
	csh cs;
	cs_insn *in;
	uint8_t key[ARM64_REG_ENDING];   /* capstone register -> schedule key */
};

struct arch_decoder *aarch64_decoder_new(void)
{
	struct arch_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->cs) != CS_ERR_OK)
		goto err_free;
	cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->in = cs_malloc(d->cs);
	if (!d->in)
		goto err_close;
	for (unsigned r = 1; r < ARM64_REG_ENDING; r++) {
		const char *n = cs_reg_name(d->cs, r);

		d->key[r] = n ? aarch64_reg_key(n) : 0;
		assert(d->key[r] < BD_REG_KEYS);
	}
	return d;
err_close:
	cs_close(&d->cs);
err_free:
	free(d);
	return NULL;
}

void aarch64_decoder_free(struct arch_decoder *d)
{
	if (!d)
		return;
	cs_free(d->in, 1);
	cs_close(&d->cs);
	free(d);
}

bool aarch64_decode(struct arch_decoder *d, const uint8_t *code, size_t left, uint64_t pc,
		    const struct pmu_pipeline *p, unsigned load_latency, struct arch_insn *out)
{
	cs_insn *in = d->in;

	if (!cs_disasm_iter(d->cs, &code, &left, &pc, in))
		return false;
	out->len = in->size;
	out->cls = aarch64_classify(in);
	out->ends_run = aarch64_ends_run(in);
	out->cond_target = (out->cls & BD_COND) ? aarch64_cond_target(in) : 0;
	aarch64_insn_regs(d->key, in, out->cls, out);
	aarch64_insn_cost(in, out->cls, p, load_latency, &out->uops, &out->lat);
	/* no decoded events of its own: the executed uops are the fused ones */
	out->xcls = 0;
	out->xuops = (uint8_t)(out->uops > UINT8_MAX ? UINT8_MAX : out->uops);
	out->ge = 0;
	return true;
}
