// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The blk tracer's records, as the kernel's trace file prints them
 * (kernel/trace/blktrace.c, its blk_log_*() functions, without blk_classic).
 *
 * The tracer writes a struct blk_io_trace over the ring buffer's entry: its
 * first eight bytes (magic, sequence) are the common fields.  The entry type
 * has no format file under events/ftrace; fmt-kenv.c knows it by its place among
 * the ftrace entry types (see fmt_blk_type()).  Kernels before 6.19 write
 * struct blk_io_trace, 6.19 and later struct blk_io_trace2 (a 64-bit action,
 * a 64-byte header): the kernel's version says which, and where the file
 * does not know it, the record's size.
 */
#include <string.h>

#include "fmt-kernel-local.h"

enum {
	TC_WRITE = 1 << 1, TC_FLUSH = 1 << 2, TC_SYNC = 1 << 3, TC_PC = 1 << 9,
	TC_AHEAD = 1 << 11, TC_META = 1 << 12, TC_DISCARD = 1 << 13, TC_FUA = 1 << 15,
	TN_NOTIFY_MSG = 2 | 1 << 10 << 16,	/* BLK_TN_MESSAGE */
	TA_CGROUP = 1 << 8,
};

/* The fields of either layout, read out. */
struct blk {
	uint64_t sector, action;
	uint32_t bytes, device;
	uint16_t error, pdu_len;
	const uint8_t *pdu;	/* after the cgroup id, when there is one */
	int pdu_real;		/* pdu_len less the cgroup id's 8 bytes */
	uint64_t cgid;
	int pid;
};

static bool blk_read(const struct kenv *env, const struct krec *r, struct blk *b)
{
	struct ectx c = { .env = env, .r = r };
	const uint8_t *d = r->data;
	uint32_t hdr;
	bool v2;

	if (r->size < 48)
		return false;
	if (env->kver)
		v2 = env->kver >= (6 << 8 | 19);
	else
		/* The old header and its pdu fill the record but for its padding to 4 bytes. */
		v2 = !(48 + krd(&c, d + 46, 2, false) <= r->size &&
		       r->size - (48 + krd(&c, d + 46, 2, false)) < 4);
	hdr = v2 ? 64 : 48;
	if (r->size < hdr)
		return false;
	b->pid = (int)krd(&c, d + 4, 4, true);
	b->sector = krd(&c, d + 16, 8, false);
	b->bytes = krd(&c, d + 24, 4, false);
	b->action = v2 ? krd(&c, d + 32, 8, false) : krd(&c, d + 28, 4, false);
	b->device = krd(&c, d + (v2 ? 40 : 36), 4, false);
	b->error = krd(&c, d + (v2 ? 48 : 44), 2, false);
	b->pdu_len = krd(&c, d + (v2 ? 50 : 46), 2, false);
	if (hdr + b->pdu_len > r->size)
		return false;
	b->pdu = d + hdr;
	b->pdu_real = b->pdu_len;
	b->cgid = 0;
	if (b->action & TA_CGROUP) {
		if (b->pdu_len < 8)
			return false;
		b->cgid = krd(&c, b->pdu, 8, false);
		b->pdu += 8;
		b->pdu_real -= 8;
	}
	return true;
}

/* fill_rwbs(): the request's direction and flags. */
static void rwbs(const struct blk *b, char *s)
{
	uint32_t tc = (uint32_t)(b->action >> 16);
	int i = 0;

	if ((b->action & ~(uint64_t)TA_CGROUP) == TN_NOTIFY_MSG) {
		s[i++] = 'N';
	} else {
		if (tc & TC_FLUSH)
			s[i++] = 'F';
		if (tc & TC_DISCARD)
			s[i++] = 'D';
		else if (tc & TC_WRITE)
			s[i++] = 'W';
		else if (b->bytes)
			s[i++] = 'R';
		else
			s[i++] = 'N';
		if (tc & TC_FUA)
			s[i++] = 'F';
		if (tc & TC_AHEAD)
			s[i++] = 'A';
		if (tc & TC_SYNC)
			s[i++] = 'S';
		if (tc & TC_META)
			s[i++] = 'M';
	}
	s[i] = '\0';
}

/* Big-endian fields of the pdu (a remap's devices and sector, an unplug's count). */
static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* blk_log_dump_pdu(): the bytes, up to the last non-zero one and " .." after it. */
static void dump_pdu(struct fmt_line *o, const struct blk *b)
{
	int end;

	if (b->pdu_real <= 0)
		return;
	for (end = b->pdu_real - 1; end >= 0; end--)
		if (b->pdu[end])
			break;
	end++;
	fmt_line_printf(o, "(");
	for (int i = 0; i < b->pdu_real; i++) {
		fmt_line_printf(o, "%s%02x", i ? " " : "", b->pdu[i]);
		if (i == end && end != b->pdu_real - 1) {
			fmt_line_printf(o, " ..) ");
			return;
		}
	}
	fmt_line_printf(o, ") ");
}

enum log { L_GENERIC, L_ERROR, L_PLUG, L_UNPLUG, L_SPLIT, L_REMAP };

/* what2act[]: __BLK_TA_QUEUE (1) to __BLK_TA_REMAP (15); BOUNCE (14) has none. */
static const struct {
	const char *act[2];
	enum log log;
} acts[] = {
	[1] = { { "Q", "queue" }, L_GENERIC },
	[2] = { { "M", "backmerge" }, L_GENERIC },
	[3] = { { "F", "frontmerge" }, L_GENERIC },
	[4] = { { "G", "getrq" }, L_GENERIC },
	[5] = { { "S", "sleeprq" }, L_GENERIC },
	[6] = { { "R", "requeue" }, L_ERROR },
	[7] = { { "D", "issue" }, L_GENERIC },
	[8] = { { "C", "complete" }, L_ERROR },
	[9] = { { "P", "plug" }, L_PLUG },
	[10] = { { "U", "unplug_io" }, L_UNPLUG },
	[11] = { { "UT", "unplug_timer" }, L_UNPLUG },
	[12] = { { "I", "insert" }, L_GENERIC },
	[13] = { { "X", "split" }, L_SPLIT },
	[15] = { { "A", "remap" }, L_REMAP },
};

int kblk_run(const struct kenv *env, const struct krec *r, struct fmt_line *o)
{
	struct blk b;
	char rw[8];
	unsigned what;
	const char *act, *comm;
	uint32_t sec;

	if (!blk_read(env, r, &b))
		return KPROG_FAIL;
	what = (b.action & 0xffff) & ~(unsigned)TA_CGROUP;
	comm = env->comm ? env->comm(env->ctx, b.pid) : "<...>";
	sec = b.bytes >> 9;
	rwbs(&b, rw);
	if ((b.action & ~(uint64_t)TA_CGROUP) == TN_NOTIFY_MSG)
		act = env->verbose ? "message" : "m";
	else if (what < sizeof(acts) / sizeof(acts[0]) && acts[what].act[0])
		act = acts[what].act[env->verbose];
	else
		act = NULL;
	if (!act) {
		/* The kernel prints only this for an action it has no name for. */
		fmt_line_printf(o, "Unknown action %x", what);
		return KPROG_LINE;
	}
	/* blk_log_action(): the cgroup's id as "LOW32,HIGH32" (not blk_cgname's path). */
	fmt_line_printf(o, "%3u,%-3u ", b.device >> 20, b.device & 0xfffff);
	if (b.action & TA_CGROUP)
		fmt_line_printf(o, "%llx,%-llx ", (unsigned long long)(b.cgid & 0xffffffff),
				(unsigned long long)(b.cgid >> 32));
	fmt_line_printf(o, "%2s %3s ", act, rw);
	if ((b.action & ~(uint64_t)TA_CGROUP) == TN_NOTIFY_MSG) {
		fmt_line_printf(o, "%.*s", b.pdu_real, (const char *)b.pdu);
		return KPROG_LINE;
	}
	switch (acts[what].log) {
	case L_GENERIC:
		if ((b.action >> 16) & TC_PC) {
			fmt_line_printf(o, "%u ", b.bytes);
			dump_pdu(o, &b);
			fmt_line_printf(o, "[%s]", comm);
		} else if (sec) {
			fmt_line_printf(o, "%llu + %u [%s]", (unsigned long long)b.sector, sec, comm);
		} else {
			fmt_line_printf(o, "[%s]", comm);
		}
		break;
	case L_ERROR:
		if ((b.action >> 16) & TC_PC) {
			dump_pdu(o, &b);
			fmt_line_printf(o, "[%d]", b.error);
		} else if (sec) {
			fmt_line_printf(o, "%llu + %u [%d]", (unsigned long long)b.sector, sec,
					b.error);
		} else {
			fmt_line_printf(o, "%llu [%d]", (unsigned long long)b.sector, b.error);
		}
		break;
	case L_PLUG:
		fmt_line_printf(o, "[%s]", comm);
		break;
	case L_UNPLUG:
	case L_SPLIT:
		if (b.pdu_real < 8)
			return KPROG_FAIL;
		if (acts[what].log == L_UNPLUG)
			fmt_line_printf(o, "[%s] %llu", comm, (unsigned long long)be(b.pdu, 8));
		else
			fmt_line_printf(o, "%llu / %llu [%s]", (unsigned long long)b.sector,
					(unsigned long long)be(b.pdu, 8), comm);
		break;
	case L_REMAP: {
		uint32_t from;

		if (b.pdu_real < 16)
			return KPROG_FAIL;
		from = (uint32_t)be(b.pdu, 4);
		fmt_line_printf(o, "%llu + %u <- (%u,%u) %llu", (unsigned long long)b.sector, sec,
				from >> 20, from & 0xfffff, (unsigned long long)be(b.pdu + 8, 8));
		break;
	}
	}
	return KPROG_LINE;
}
