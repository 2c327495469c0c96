// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the function_graph printer (src/fmt/fmt-graph.c) on records
 * made from the input, so that every byte of a depth is the fuzzer's: a
 * whole trace.dat (fuzz-report.c) spends most of its mutations on the
 * header and rarely reaches a record's depth.  The input is a head of 4
 * bytes (the funcgraph options as a bit mask, the CPU count, an instance
 * prefix or none) and then records of 24 bytes:
 *
 *   0 kind (entry, exit, comment)   1 cpu   2 pid   3 flags (missed,
 *   has_retval, has_retaddr, args)  4-7 depth, any u32   8-9 function
 *   10-13 duration (ns)  14-21 return value or address  22-23 overrun
 *
 * fed in order as a report feeds them (an entry with the next record of its
 * CPU).  A line is a finding when one record makes more than 16 KB of text
 * (the depth's indentation is at most 2 KB), so memory is bounded whatever
 * the depths are, and the sanitizers see the arithmetic.  Its corpus is
 * regress/graph/ (tests/fuzz/make-graph-seeds.py).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt-graph.h"

enum { HEAD = 4, REC = 24, MAX_RECS = 4096, LOOK = 64, MAX_OUT = 16384 };

static const char *const names[] = { "", "ksys_read", "vfs_read", "rw_verify_area", "do_IRQ",
				     "schedule", "ext4_file_read_iter" };

static bool name_of(void *ctx, uint64_t addr, char *buf, size_t n)
{
	(void)ctx;
	if (!addr || addr >= sizeof(names) / sizeof(names[0]))
		return false;
	snprintf(buf, n, "%s", names[addr]);
	return true;
}

static bool sym_off(void *ctx, uint64_t addr, char *buf, size_t n)
{
	(void)ctx;
	if (addr % 7 == 0)
		return false;
	snprintf(buf, n, "%s+0x%x/0x100", names[addr % 7], (unsigned)(addr & 0xff));
	return true;
}

static bool args_text(void *ctx, uint64_t func, const uint64_t *args, int nargs, char *buf,
		      size_t n)
{
	(void)ctx;
	if (func & 1)
		return false;
	snprintf(buf, n, "a=0x%llx, b=%d", (unsigned long long)args[0], nargs);
	return true;
}

static const char *comm_of(void *ctx, int pid)
{
	(void)ctx;
	return pid & 1 ? "cat" : pid & 2 ? "a-very-long-name" : NULL;
}

static uint32_t u32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void decode(const uint8_t *p, struct fmt_graph_rec *r)
{
	static const char text[] = "sched_switch: prev_comm=cat prev_pid=77 ==> next_comm=swapper";
	uint64_t v = 0;
	uint32_t ns = u32(p + 10);

	memcpy(&v, p + 14, 8);
	*r = (struct fmt_graph_rec){ .kind = p[0] % 3, .cpu = p[1] % 8, .pid = 76 + p[2] % 4,
				     .missed = p[3] & 1, .has_retval = p[3] & 2,
				     .has_retaddr = p[3] & 4, .depth = (int)u32(p + 4),
				     .func = (uint64_t)(p[8] | p[9] << 8) % 9,
				     .calltime = 1000, .rettime = 1000 + (uint64_t)ns,
				     .ts = (uint64_t)ns * 1000, .retval = v, .retaddr = v,
				     .overrun = p[22] | p[23] << 8 };
	if (r->kind == FG_OTHER) {
		r->text = text;
		r->text_len = p[22] % sizeof(text);
	}
	if (p[3] & 8) {
		r->nargs = FMT_GRAPH_MAX_ARGS;
		for (int i = 0; i < FMT_GRAPH_MAX_ARGS; i++)
			r->args[i] = v >> i;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const prefixes[] = { "", "inst: ", NULL };
	const struct fmt_graph_env env = { .func_name = name_of, .sym_off = sym_off,
					   .args_text = args_text, .comm = comm_of, .irq_lo = 4,
					   .irq_hi = 5 };
	struct fmt_graph_rec *recs;
	struct fmt_graph_opts o;
	struct fmt_line out = { 0 };
	struct fmt_graph *g;
	bool *done;
	size_t n;

	if (size < HEAD)
		return 0;
	n = (size - HEAD) / REC;
	if (n > MAX_RECS)
		n = MAX_RECS;
	recs = calloc(n + 1, sizeof(*recs));
	done = calloc(n + 1, sizeof(*done));
	if (!recs || !done)
		abort();
	for (size_t i = 0; i < n; i++)
		decode(data + HEAD + i * REC, &recs[i]);
	o = (struct fmt_graph_opts){ .cpu = data[0] & 1, .proc = data[0] & 2,
				     .abstime = data[0] & 4, .overhead = data[0] & 8,
				     .duration = data[0] & 16, .irqs = data[0] & 32,
				     .tail = data[0] & 64, .retval = data[0] & 128,
				     .retval_hex = data[1] & 1, .overrun = data[1] & 2,
				     .retaddr = data[1] & 4, .args = data[1] & 8,
				     .ret_eq = data[1] & 16 };
	g = fmt_graph_new(1 + data[2] % 8, &o);
	for (size_t i = 0; i < n; i++) {
		const struct fmt_graph_rec *next = NULL;
		size_t k = i + 1;

		if (done[i])
			continue;
		for (; k < n && k <= i + LOOK; k++)
			if (!done[k] && recs[k].cpu == recs[i].cpu) {
				next = &recs[k];
				break;
			}
		out.len = 0;
		if (fmt_graph_put(g, &env, prefixes[data[3] % 3], &recs[i], next, &out))
			done[k] = true;
		/* What one record prints does not grow with its depth. */
		if (out.len > MAX_OUT || out.cap > 4 * MAX_OUT)
			abort();
	}
	fmt_graph_free(g);
	free(out.p);
	free(recs);
	free(done);
	return 0;
}
