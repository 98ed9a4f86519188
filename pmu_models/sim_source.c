/*
 * sim_source.c - printable names of the machine's measured quantities.
 */
#include "pmu_models/sim_source.h"

static const char *const source_names[SIM_SRC_NR] = {
	[SIM_SRC_NONE] = "none",
	[SIM_SRC_INSTRUCTIONS] = "instructions",
	[SIM_SRC_BRANCHES] = "branches",
	[SIM_SRC_COND_BRANCHES] = "cond-branches",
	[SIM_SRC_TAKEN_BRANCHES] = "taken-branches",
	[SIM_SRC_CALLS] = "calls",
	[SIM_SRC_RETURNS] = "returns",
	[SIM_SRC_LOADS] = "loads",
	[SIM_SRC_STORES] = "stores",
	[SIM_SRC_CYCLES] = "cycles",
	[SIM_SRC_REF_CYCLES] = "ref-cycles",
	[SIM_SRC_BUS_CYCLES] = "bus-cycles",
	[SIM_SRC_BRANCH_MISSES] = "branch-misses",
	[SIM_SRC_L1D_ACCESS] = "l1d-access",
	[SIM_SRC_L1D_MISS] = "l1d-miss",
	[SIM_SRC_L1I_ACCESS] = "l1i-access",
	[SIM_SRC_L1I_MISS] = "l1i-miss",
	[SIM_SRC_LLC_ACCESS] = "llc-access",
	[SIM_SRC_LLC_MISS] = "llc-miss",
	[SIM_SRC_DTLB_ACCESS] = "dtlb-access",
	[SIM_SRC_DTLB_MISS] = "dtlb-miss",
	[SIM_SRC_ITLB_ACCESS] = "itlb-access",
	[SIM_SRC_ITLB_MISS] = "itlb-miss",
	[SIM_SRC_STALLED_FRONTEND] = "stalled-frontend",
	[SIM_SRC_STALLED_BACKEND] = "stalled-backend",
	[SIM_SRC_UOPS_ISSUED] = "uops-issued",
	[SIM_SRC_UOPS_RETIRED] = "uops-retired",
	[SIM_SRC_FE_BUBBLES] = "fe-bubbles",
	[SIM_SRC_RECOVERY_CYCLES] = "recovery-cycles",
	[SIM_SRC_COND_NOT_TAKEN] = "cond-not-taken",
	[SIM_SRC_MEM_LOADS] = "mem-loads",
	[SIM_SRC_MEM_STORES] = "mem-stores",
	[SIM_SRC_LOAD_L1_HIT] = "load-l1-hit",
	[SIM_SRC_LOAD_L1_MISS] = "load-l1-miss",
	[SIM_SRC_LOAD_L2_HIT] = "load-l2-hit",
	[SIM_SRC_LOAD_L2_MISS] = "load-l2-miss",
	[SIM_SRC_LOAD_L3_HIT] = "load-l3-hit",
	[SIM_SRC_LOAD_L3_MISS] = "load-l3-miss",
	[SIM_SRC_STORE_L2_MISS] = "store-l2-miss",
	[SIM_SRC_STORE_L3_MISS] = "store-l3-miss",
	[SIM_SRC_L2_ACCESS] = "l2-access",
	[SIM_SRC_L2_MISS] = "l2-miss",
	[SIM_SRC_DTLB_L1_MISS] = "dtlb-l1-miss",
	[SIM_SRC_DTLB_L2_HIT] = "dtlb-l2-hit",
	[SIM_SRC_DTLB_WALK_CYCLES] = "dtlb-walk-cycles",
	[SIM_SRC_ITLB_L1_MISS] = "itlb-l1-miss",
	[SIM_SRC_ITLB_L2_HIT] = "itlb-l2-hit",
	[SIM_SRC_ITLB_WALK_CYCLES] = "itlb-walk-cycles",
	[SIM_SRC_MEM_REQ_OCCUPANCY] = "mem-request-occupancy",
	[SIM_SRC_MEM_READ_OCCUPANCY] = "mem-read-occupancy",
	[SIM_SRC_PAGE_FAULTS] = "page-faults",
	[SIM_SRC_PAGE_FAULTS_MIN] = "minor-faults",
	[SIM_SRC_PAGE_FAULTS_MAJ] = "major-faults",
	[SIM_SRC_ALIGNMENT_FAULTS] = "alignment-faults",
	[SIM_SRC_EMULATION_FAULTS] = "emulation-faults",
	[SIM_SRC_BP0] = "breakpoint-0",
	[SIM_SRC_BP1] = "breakpoint-1",
	[SIM_SRC_BP2] = "breakpoint-2",
	[SIM_SRC_BP3] = "breakpoint-3",
};

const char *sim_source_name(enum sim_source src)
{
	if ((unsigned)src >= SIM_SRC_NR || !source_names[src])
		return "?";
	return source_names[src];
}
