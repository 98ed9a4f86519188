/*
 * block_decode.c - decoding translated blocks into retired-instruction
 * classes (block_decode.h), and the cache of those decodes.
 */
#include <assert.h>
#include <capstone/capstone.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmu_models/pmu_model.h"
#include "sim/cpu/block_decode.h"

/* Registers the schedule tracks: the 16 GPRs (RSP never a dependency),
 * the flags, and 32 vector registers (XMM/YMM/ZMM n are one). */
enum { RK_NONE = 0, RK_GPR = 1, RK_FLAGS = RK_GPR + 16, RK_VEC, RK_NR = RK_VEC + 32 };

struct bd_cache {
	struct bdesc **e;
	size_t mask, used;
	csh cs;
	const struct pmu_pipeline *pipe;
	unsigned load_latency;
	uint8_t reg_key[X86_REG_ENDING];   /* capstone register -> RK_* */
};

/* The RK_* key of a register named n (capstone's names: "rax", "eax",
 * "ax", "al", "ah", "r8d", "sil", "xmm3", "flags", ...). */
static uint8_t key_of_name(const char *n)
{
	static const char *const gpr[16][5] = {
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

struct bd_cache *bd_cache_new(const struct pmu_pipeline *p, unsigned load_latency)
{
	struct bd_cache *bc = calloc(1, sizeof(*bc));

	if (!p)
		p = pmu_model_default()->pipeline;
	if (!load_latency)
		load_latency = pmu_model_default()->caches->l1d.latency;
	assert(p && p->issue_width);
	if (!bc)
		return NULL;
	bc->pipe = p;
	bc->load_latency = load_latency;
	bc->mask = 4095;
	bc->e = calloc(bc->mask + 1, sizeof(*bc->e));
	if (!bc->e)
		goto err_free;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &bc->cs) != CS_ERR_OK)
		goto err_e;
	cs_option(bc->cs, CS_OPT_DETAIL, CS_OPT_ON);
	for (unsigned r = 1; r < X86_REG_ENDING; r++) {
		const char *n = cs_reg_name(bc->cs, r);

		bc->reg_key[r] = n ? key_of_name(n) : RK_NONE;
	}
	return bc;
err_e:
	free(bc->e);
err_free:
	free(bc);
	return NULL;
}

void bd_cache_free(struct bd_cache *bc)
{
	if (!bc)
		return;
	for (size_t i = 0; i <= bc->mask; i++)
		free(bc->e[i]);
	cs_close(&bc->cs);
	free(bc->e);
	free(bc);
}

static size_t bd_hash(uint64_t a, uint32_t size)
{
	return (size_t)(((a ^ ((uint64_t)size << 48)) * UINT64_C(0x9E3779B97F4A7C15)) >> 22);
}

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

unsigned bd_issue_width(const struct bd_cache *bc)
{
	return bc->pipe->issue_width;
}

/* Class bits of one instruction. */
static void classify(const cs_insn *in, struct bd_insn *out)
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

/* A load whose result is the loaded value itself (no operation after it). */
static bool plain_load(const cs_insn *in)
{
	static const char *const pre[] = { "mov", "vmov", "pop", "ret", "leave", "lods" };

	for (unsigned i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(in->mnemonic, pre[i], strlen(pre[i])))
			return true;
	return false;
}

/* uops and result latency of instruction in of class cls (struct
 * pmu_pipeline): 1 and 1, a load's the L1D latency (plus its operation's
 * for a load-op), the table's for MUL, DIV, CALL, RET and load-op-store. */
static void uops_latency(const struct bd_cache *bc, const cs_insn *in, uint8_t cls,
			 unsigned *uops, unsigned *lat)
{
	const struct pmu_pipeline *p = bc->pipe;
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
	if (cls & BD_CALL)
		*uops = p->call_uops;
	else if (cls & BD_RET)
		*uops = p->ret_uops;
	else if ((cls & BD_LOAD) && (cls & BD_STORE) && in->id != X86_INS_PUSH &&
		 in->id != X86_INS_POP && !is_string_op(in->id))
		*uops = p->rmw_uops;
	*lat = op;
	if (cls & BD_LOAD)
		*lat = bc->load_latency + (plain_load(in) ? 0 : op);
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

/* The schedule of a block being decoded (block_decode.h): uops issued so
 * far, when each register's value is ready, and when the block ends. */
struct schedule {
	unsigned issued;
	unsigned ready[RK_NR];
	unsigned end;
};

/* Schedules instruction in (uops, lat); returns how much later the block
 * ends with it. */
static unsigned schedule_insn(const struct bd_cache *bc, struct schedule *s, const cs_insn *in,
			      unsigned uops, unsigned lat)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	unsigned w = bc->pipe->issue_width, start, done, prev = s->end;

	s->issued += uops;
	start = (s->issued - 1) / w;            /* the cycle its last uop issues */
	if (in && cs_regs_access(bc->cs, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		nrd = nwr = 0;
	if (in && zero_idiom(in))
		nrd = 0;
	for (unsigned i = 0; i < nrd; i++) {
		unsigned k = rd[i] < X86_REG_ENDING ? bc->reg_key[rd[i]] : RK_NONE;

		if (k && s->ready[k] > start)
			start = s->ready[k];
	}
	done = start + lat;
	for (unsigned i = 0; i < nwr; i++) {
		unsigned k = wr[i] < X86_REG_ENDING ? bc->reg_key[wr[i]] : RK_NONE;

		if (k)
			s->ready[k] = done;
	}
	if (done > s->end)
		s->end = done;
	return s->end - prev;
}

struct bdesc *bd_decode(struct bd_cache *bc, uint64_t addr, uint32_t size)
{
	csh cs = bc->cs;
	struct schedule sched = { 0 };
	unsigned uops, lat, w = bc->pipe->issue_width, issue_cycles;
	const uint8_t *code = (const uint8_t *)(uintptr_t)addr;
	size_t left = size;
	uint64_t pc = addr;
	unsigned cap = size ? size : 1;    /* at most one instruction per byte */
	struct bdesc *b = calloc(1, sizeof(*b) + cap * sizeof(struct bd_insn));
	cs_insn *in;

	if (!b)
		return NULL;
	b->addr = addr;
	b->size = size;
	in = cs_malloc(cs);
	if (!in) {
		free(b);
		return NULL;
	}
	while (left) {
		uint64_t at = pc;
		struct bd_insn *bi = &b->ins[b->n];

		if (!cs_disasm_iter(cs, &code, &left, &pc, in)) {
			/* undecodable tail: one instruction of no class */
			bi->off = (uint16_t)(at - addr);
			bi->len = (uint8_t)left;
			bi->uops = 1;
			bi->cycles = (uint8_t)schedule_insn(bc, &sched, NULL, 1, 1);
			b->n++;
			break;
		}
		bi->off = (uint16_t)(at - addr);
		bi->len = (uint8_t)in->size;
		classify(in, bi);
		uops_latency(bc, in, bi->cls, &uops, &lat);
		lat = schedule_insn(bc, &sched, in, uops, lat);
		assert(uops <= UINT8_MAX && lat <= UINT8_MAX);
		bi->uops = (uint8_t)uops;
		bi->cycles = (uint8_t)lat;
		if ((bi->cls & BD_COND) && left == 0 && in->detail->x86.op_count &&
		    in->detail->x86.operands[0].type == X86_OP_IMM)
			b->cond_target = (uint64_t)in->detail->x86.operands[0].imm;
		b->n++;
	}
	cs_free(in, 1);
	if (b->n) {
		b->last_cls = b->ins[b->n - 1].cls;
		b->last_off = b->ins[b->n - 1].off;
	}
	for (unsigned i = 0; i < b->n; i++) {
		uint8_t c = b->ins[i].cls;

		b->t[BDT_INSNS]++;
		b->t[BDT_BRANCHES] += !!(c & BD_BRANCH);
		b->t[BDT_COND] += !!(c & BD_COND);
		b->t[BDT_UNCOND_TAKEN] += (c & BD_BRANCH) && !(c & BD_COND);
		b->t[BDT_CALLS] += !!(c & BD_CALL);
		b->t[BDT_RETS] += !!(c & BD_RET);
		b->t[BDT_LOADS] += !!(c & BD_LOAD);
		b->t[BDT_STORES] += !!(c & BD_STORE);
		b->t[BDT_CYCLES] += b->ins[i].cycles;
		b->t[BDT_UOPS] += b->ins[i].uops;
	}
	/* the last issue cycle's empty slots, and the cycles after it */
	issue_cycles = (b->t[BDT_UOPS] + w - 1) / w;
	b->t[BDT_FE_BUBBLES] = issue_cycles * w - b->t[BDT_UOPS];
	assert(b->t[BDT_CYCLES] == sched.end && sched.end >= issue_cycles);
	b->t[BDT_BE_STALL] = b->t[BDT_CYCLES] - issue_cycles;
	return b;
}

static int bd_grow(struct bd_cache *bc)
{
	size_t ncap = (bc->mask + 1) * 2;
	struct bdesc **ne = calloc(ncap, sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	for (size_t i = 0; i <= bc->mask; i++) {
		struct bdesc *b = bc->e[i];
		size_t j;

		if (!b)
			continue;
		j = bd_hash(b->addr, b->size) & (ncap - 1);
		while (ne[j])
			j = (j + 1) & (ncap - 1);
		ne[j] = b;
	}
	free(bc->e);
	bc->e = ne;
	bc->mask = ncap - 1;
	return 0;
}

const struct bdesc *bd_get(struct bd_cache *bc, uint64_t addr, uint32_t size)
{
	size_t i = bd_hash(addr, size) & bc->mask;
	struct bdesc *b;

	while ((b = bc->e[i])) {
		if (b->addr == addr && b->size == size)
			return b;
		i = (i + 1) & bc->mask;
	}
	b = bd_decode(bc, addr, size);
	if (!b)
		return NULL;
	if ((bc->used + 1) * 2 > bc->mask + 1) {
		if (bd_grow(bc)) {
			free(b);
			return NULL;
		}
		i = bd_hash(addr, size) & bc->mask;
		while (bc->e[i])
			i = (i + 1) & bc->mask;
	}
	bc->e[i] = b;
	bc->used++;
	return b;
}

/* Open addressing: removing entries means rebuilding the table. */
void bd_invalidate(struct bd_cache *bc, uint64_t start, uint64_t end)
{
	bool any = false;

	for (size_t i = 0; i <= bc->mask; i++) {
		struct bdesc *b = bc->e[i];

		if (b && b->addr < end && b->addr + b->size > start) {
			free(b);
			bc->e[i] = NULL;
			bc->used--;
			any = true;
		}
	}
	if (any) {
		/* reinsert what is left so probe chains stay unbroken */
		struct bdesc **old = bc->e;
		size_t cap = bc->mask + 1;

		bc->e = calloc(cap, sizeof(*bc->e));
		if (!bc->e) {
			bc->e = old;    /* keep the holes: lookups may miss and re-decode */
			return;
		}
		for (size_t i = 0; i < cap; i++) {
			size_t j;

			if (!old[i])
				continue;
			j = bd_hash(old[i]->addr, old[i]->size) & bc->mask;
			while (bc->e[j])
				j = (j + 1) & bc->mask;
			bc->e[j] = old[i];
		}
		free(old);
	}
}

/*
 * The class of the one instruction at addr (0 if it does not decode). The
 * bytes read stop at the end of addr's page unless the instruction needs
 * more (then it crosses into the next page, which the translator fetched).
 */
uint8_t bd_class_at(struct bd_cache *bc, uint64_t addr, unsigned *len)
{
	size_t in_page = 4096 - (addr & 4095), left = in_page < 15 ? in_page : 15;
	const uint8_t *code = (const uint8_t *)(uintptr_t)addr;
	uint64_t pc = addr;
	struct bd_insn bi = { 0 };
	cs_insn *in = cs_malloc(bc->cs);

	*len = 0;
	if (!in)
		return 0;
	if (!cs_disasm_iter(bc->cs, &code, &left, &pc, in) && in_page < 15) {
		code = (const uint8_t *)(uintptr_t)addr;
		left = 15;
		pc = addr;
		if (!cs_disasm_iter(bc->cs, &code, &left, &pc, in))
			goto out;
	} else if (pc == addr) {
		goto out;
	}
	classify(in, &bi);
	*len = (unsigned)(pc - addr);
out:
	cs_free(in, 1);
	return bi.cls;
}
