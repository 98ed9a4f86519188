/*
 * overflow.c - what happens when a sampling event's period runs out: the
 * next period (x86_perf_event_set_period / armpmu_event_set_period, or the
 * software PMU's rules), interrupt accounting and throttling, freq-mode
 * period adjustment (perf_adjust_period), IOC_REFRESH limits, the sample
 * itself and the fasync wakeup; and the scheduler tick that unthrottles
 * and re-tunes freq events.
 */
#include <signal.h>
#include "sim/core/core_types.h"
#include "sim/core/pmu.h"
#include "sim/core/sample_data.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

/*
 * Starts the next period if period_left ran out, and programs the counter
 * for what is left. x86_perf_event_set_period(): a period overrun by more
 * than a whole period restarts at one period; at least 2 counts are
 * programmed ("certain CPUs don't like it if just 1 hw_event is left"),
 * at most max_period (half the counter). armpmu_event_set_period() is the
 * same without the minimum of 2.
 */
bool perf_event_set_period(struct perf_event *event)
{
	const struct pmu_model *m = perf_core_model(event->core);
	s64 left = event->period_left;
	s64 period = (s64)event->sample_period;
	s64 max_left = (s64)(perf_event_counter_mask(event) >> 1);
	s64 program;
	bool ret = false;

	if (left <= -period) {
		left = period;
		event->period_left = left;
		event->last_period = (u64)period;
		ret = true;
	}
	if (left <= 0) {
		left += period;
		event->period_left = left;
		event->last_period = (u64)period;
		ret = true;
	}
	program = left;
	if (m->arch != PMU_ARCH_ARM_PMUV3 && program < 2)
		program = 2;
	if (max_left > 0 && program > max_left)
		program = max_left;
	/* the counter overflows after `program` more counts */
	event->overflow_at = left - program;
	event->hw_start_count = event->count;
	event->hw_start_value = (u64)(-program) & perf_event_counter_mask(event);
	return ret;
}

/*
 * perf_calculate_period(): the period that gives sample_freq samples a
 * second when count events took nsec, reducing precision bit by bit
 * exactly as the kernel does so the result is the same.
 */
static u64 perf_calculate_period(const struct perf_event *event, u64 nsec, u64 count)
{
	u64 frequency = event->attr.sample_freq;
	u64 sec = NSEC_PER_SEC;
	u64 divisor, dividend;
	int count_fls = count ? 64 - __builtin_clzll(count) : 0;
	int nsec_fls = nsec ? 64 - __builtin_clzll(nsec) : 0;
	int frequency_fls = frequency ? 64 - __builtin_clzll(frequency) : 0;
	int sec_fls = 30;

#define REDUCE_FLS(a, b)                 \
	do {                             \
		if (a##_fls > b##_fls) { \
			a >>= 1;         \
			a##_fls--;       \
		} else {                 \
			b >>= 1;         \
			b##_fls--;       \
		}                        \
	} while (0)

	while (count_fls + sec_fls > 64 && nsec_fls + frequency_fls > 64) {
		REDUCE_FLS(nsec, frequency);
		REDUCE_FLS(sec, count);
	}
	if (count_fls + sec_fls > 64) {
		divisor = nsec * frequency;
		while (count_fls + sec_fls > 64) {
			REDUCE_FLS(count, sec);
			divisor >>= 1;
		}
		dividend = count * sec;
	} else {
		dividend = count * sec;
		while (nsec_fls + frequency_fls > 64) {
			REDUCE_FLS(nsec, frequency);
			dividend >>= 1;
		}
		divisor = nsec * frequency;
	}
#undef REDUCE_FLS
	if (!divisor)
		return dividend;
	return dividend / divisor;
}

/* perf_adjust_period(): low-pass filter towards the ideal period; restart
 * the period at once if what is left is over 8 new periods. */
static void perf_adjust_period(struct perf_event *event, u64 nsec, u64 count, bool restart)
{
	s64 period = (s64)perf_calculate_period(event, nsec, count);
	s64 delta = period - (s64)event->sample_period;
	s64 sample_period;

	if (delta >= 0)
		delta += 7;
	else
		delta -= 7;
	delta /= 8;
	sample_period = (s64)event->sample_period + delta;
	if (!sample_period)
		sample_period = 1;
	event->sample_period = (u64)sample_period;
	if (event->period_left > 8 * sample_period) {
		event->period_left = 0;
		if (restart && perf_event_pmu(event)->start)
			perf_event_pmu(event)->start(event, PERF_EF_RELOAD);
	}
}

/* pmu->stop(): the counter stops counting (the event stays ACTIVE). */
static void perf_event_stop(struct perf_cpu *cpu, struct perf_event *event)
{
	perf_slot_del(cpu, event);
}

/* pmu->start(event, 0) */
static void perf_event_start(struct perf_cpu *cpu, struct perf_event *event)
{
	if (event->state == PERF_EVENT_STATE_ACTIVE && event->slot < 0)
		perf_slot_add(cpu, event);
}

/* perf_event_throttle(): only events on the PMU (the state check of
 * "perf/core: Prevent UBSAN negative-idx shift by throttle/unthrottle
 * group"). */
static void perf_event_throttle(struct perf_cpu *cpu, struct perf_event *event)
{
	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return;
	perf_event_stop(cpu, event);
	event->throttled = true;
	perf_log_throttle(event, false);
}

static void perf_event_unthrottle(struct perf_cpu *cpu, struct perf_event *event, bool start)
{
	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return;
	event->throttled = false;
	event->interrupts = 0;
	if (start)
		perf_event_start(cpu, event);
	perf_log_throttle(event, true);
}

/* perf_event_throttle_group() (Linux 6.16+, "perf: Fix the throttle logic
 * for a group"): a throttled event stops its whole group. */
static void perf_event_throttle_group(struct perf_cpu *cpu, struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling;

	perf_event_throttle(cpu, leader);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		perf_event_throttle(cpu, sibling);
}

/* perf_event_unthrottle_group(): a freq event is restarted by the
 * period adjustment that follows, not here. */
static void perf_event_unthrottle_group(struct perf_cpu *cpu, struct perf_event *event,
					bool skip_start_event)
{
	struct perf_event *leader = event->group_leader, *sibling;

	perf_event_unthrottle(cpu, leader, skip_start_event ? leader != event : true);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		perf_event_unthrottle(cpu, sibling, skip_start_event ? sibling != event : true);
}

/*
 * __perf_event_account_interrupt(): more than max_samples_per_tick
 * overflows in one tick throttle the event's group (THROTTLE records,
 * counting stops until the tick). Freq events adjust their period by the time since
 * the last overflow. Returns whether the event must stop.
 */
static bool perf_event_account_interrupt(struct perf_cpu *cpu, struct perf_event *event, bool throttle)
{
	bool ret = false;

	if (cpu->tick_seq != event->interrupts_seq) {
		event->interrupts_seq = cpu->tick_seq;
		event->interrupts = 1;
	} else {
		event->interrupts++;
		if (throttle && event->interrupts > cpu->core->max_samples_per_tick) {
			cpu->throttled_count++;
			perf_event_throttle_group(cpu, event);
			ret = true;
		}
	}
	if (event->attr.freq) {
		u64 now = perf_cpu_time_ns(cpu);
		s64 delta = (s64)(now - event->freq_time_stamp);

		event->freq_time_stamp = now;
		if (delta > 0 && (u64)delta < 2 * cpu->core->tick_ns)
			perf_adjust_period(event, (u64)delta, event->last_period, true);
	}
	return ret;
}

/*
 * __perf_event_overflow()'s attr.sigtrap: perf_sigtrap() on the way back to
 * user mode sends SIGTRAP (send_sig_perf) to the event's task, only when
 * it is the one running (event->ctx->task == current). Its address is the
 * sample's when the sample has one: a breakpoint's is bp_addr
 * (perf_bp_event's perf_sample_data_init), else PERF_SAMPLE_ADDR's.
 */
static void perf_event_sigtrap(struct perf_cpu *cpu, struct perf_event *event,
			       const struct perf_sample_data *data)
{
	const struct perf_machine *machine = perf_core_machine(cpu->core);
	uint64_t addr = 0;

	if (!event->attr.sigtrap || !machine->ops || !machine->ops->sigtrap ||
	    !event->ctx->task || event->ctx->task != perf_cpu_task(cpu))
		return;
	if (event->attr.type == PERF_TYPE_BREAKPOINT)
		addr = event->attr.bp_addr;
	else if (event->attr.sample_type & PERF_SAMPLE_ADDR)
		addr = data->addr;
	machine->ops->sigtrap(machine->ctx, cpu, addr, event->attr.type, event->attr.sig_data);
}

/*
 * __perf_event_overflow(): account the interrupt, count down an
 * IOC_REFRESH limit (the last one disables the event with POLL_HUP),
 * write the sample, and wake the fasync owner. Returns whether the event
 * must stop counting.
 */
bool perf_event_overflow_one(struct perf_cpu *cpu, struct perf_event *event, bool throttle)
{
	struct perf_sample_data data = { 0 };
	bool ret = perf_event_account_interrupt(cpu, event, throttle);

	event->pending_kill = POLL_IN;
	if (event->event_limit && --event->event_limit == 0) {
		ret = true;
		event->pending_kill = POLL_HUP;
		event->pending_disable = true;
	}
	data.period = event->last_period;
	/* perf_tp_event(): a tracepoint's record is the sample's raw data */
	data.raw = cpu->tp_record;
	data.raw_size = cpu->tp_record_size;
	{
		const struct perf_machine *machine = perf_core_machine(cpu->core);

		if (machine->ops && machine->ops->fill_sample)
			machine->ops->fill_sample(machine->ctx, cpu, event, &data);
	}
	perf_event_output_sample(event, &data);
	/* *perf_event_fasync(event): an inherited copy signals through its
	 * parent's file */
	if ((event->parent ? event->parent : event)->fasync && event->pending_kill)
		perf_event_wakeup(event);
	perf_event_sigtrap(cpu, event, &data);
	return ret;
}

/*
 * A sampling event's period ran out on cpu: its PMU's interrupt handler
 * (the x86/arm handlers, perf_swevent_overflow, perf_swevent_hrtimer)
 * starts the next period and writes the samples; an event that must stop
 * leaves the hot path here.
 */
void perf_event_overflow(struct perf_cpu *cpu, struct perf_event *event)
{
	if (perf_event_overflow_irq(cpu, event))
		perf_event_pending_disable(event);
}

/*
 * One counter of an interrupt's overflow status (x86 handle_pmi_common(),
 * armv8pmu_handle_irq()): its overflow is handled and an event that must
 * stop stops (x86_pmu_stop()); an IOC_REFRESH limit's disable waits for
 * perf_event_pending_disable(), since perf_event_disable_inatomic() leaves
 * it to the irq_work that runs after the handler has seen every counter.
 * Returns whether the event stopped.
 */
bool perf_event_overflow_irq(struct perf_cpu *cpu, struct perf_event *event)
{
	if (!perf_event_pmu(event)->handle_overflow(cpu, event))
		return false;
	perf_event_stop(cpu, event);
	return true;
}

/* perf_pending_irq() -> perf_pending_disable(): the disable an overflow
 * left (with its group, for a leader). */
void perf_event_pending_disable(struct perf_event *event)
{
	if (event->pending_disable)
		perf_event_disable_local(event);
}

/* perf_adjust_freq_unthr_events() over one active list (group leaders). */
static void perf_adjust_freq_unthr_events(struct perf_cpu *cpu, struct list_node *list)
{
	struct perf_event *event, *tmp;

	list_for_each_entry_safe(event, tmp, list, active_entry) {
		u64 now, delta;

		if (event->state != PERF_EVENT_STATE_ACTIVE)
			continue;
		if (event->cpu != -1 && event->cpu != (int)cpu->num)
			continue;
		if (event->throttled)
			perf_event_unthrottle_group(cpu, event,
						    event->attr.freq && event->attr.sample_freq);
		if (!(event->attr.freq && event->attr.sample_freq))
			continue;
		now = event->count;
		delta = now - event->freq_count_stamp;
		event->freq_count_stamp = now;
		if (delta > 0)
			perf_adjust_period(event, cpu->core->tick_ns, delta, false);
		if (delta > 0 && perf_event_pmu(event)->start)
			perf_event_pmu(event)->start(event, PERF_EF_RELOAD);
		perf_event_start(cpu, event);
	}
}

/* perf_adjust_freq_unthr_context() */
static void perf_adjust_freq_unthr_context(struct perf_cpu *cpu, struct perf_event_context *ctx,
					   bool unthrottle)
{
	if (!(ctx->nr_freq || unthrottle))
		return;
	perf_adjust_freq_unthr_events(cpu, &ctx->pinned_active);
	perf_adjust_freq_unthr_events(cpu, &ctx->flexible_active);
}

/* perf_event_task_tick(): a new throttling window; unthrottle and re-tune
 * the CPU's context and the running task's. */
void perf_cpu_tick(struct perf_cpu *cpu)
{
	bool throttled = cpu->throttled_count != 0;

	cpu->tick_seq++;
	cpu->throttled_count = 0;
	perf_adjust_freq_unthr_context(cpu, &cpu->ctx, throttled);
	if (cpu->task_ctx)
		perf_adjust_freq_unthr_context(cpu, cpu->task_ctx, throttled);
}
