// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The formatter: one record in, one line out.
 *
 * Text lines have trace-cmd report's layout,
 *   "PREFIX        COMM-PID   [CPU]  SECS.USECS: NAME:                TEXT"
 * where TEXT is the event as the kernel's own trace file shows it: tr runs
 * the kernel's printing of the event's print fmt itself (fmt-kernel.c) and
 * hands libtraceevent only what that cannot print.  --format=libtraceevent
 * prints libtraceevent's text instead, as trace-cmd report does (through
 * the fast printer of fmt-print.c where it is exact), and so do the plugins
 * of --plugins.  The columns are formatted here, by hand, into one line
 * buffer that is written with a single write: this is the hot path of tr
 * report, so nothing in it allocates and event lookups are cached by id.
 *
 * This file holds that line and fmt_event(); the sources (fmt-src.c), what
 * the kernel's printer reads (fmt-kenv.c), JSON and CSV (fmt-json-csv.c)
 * and the lines the kernel's trace options or the function_graph view shape
 * (fmt-kline.c) are beside it, sharing fmt-core-local.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt-core-local.h"
#include "fmt-usym.h"

/* ---- the line buffer ---- */

void fmt_line_vprintf(struct fmt_line *l, const char *fmt, va_list ap)
{
	char tmp[64];
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	if (n > 0 && n < (int)sizeof(tmp)) {
		fmt_line_grow(l, n);
		memcpy(l->p + l->len, tmp, n);
		l->len += n;
	} else if (n > 0) {
		/* Longer than the usual piece: once more, into the line itself. */
		fmt_line_grow(l, n + 1);
		vsnprintf(l->p + l->len, n + 1, fmt, again);
		l->len += n;
	}
	va_end(again);
}

void fmt_line_printf(struct fmt_line *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_line_vprintf(l, fmt, ap);
	va_end(ap);
}

/* fmt_buffer(): the bytes gathered before they are written */
#define FMT_OBUF (64 * 1024)

/*
 * What fmt_buffer() gathered, written to the stream's file itself: stdio
 * would copy it once more into its own buffer (fmt_buffer flushed that).
 */
static void drain(struct fmt *f)
{
	size_t done = 0;

	while (done < f->obuf.len && !f->err) {
		ssize_t n = write(fileno(f->out), f->obuf.p + done, f->obuf.len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			f->err = n < 0 ? -errno : -EIO;
		else
			done += n;
	}
	f->obuf.len = 0;
}

/* Bytes for the output, in order: gathered when buffered (a stdio call a line costs more). */
void fmt_write(struct fmt *f, const char *p, size_t n)
{
	if (!n)
		return;		/* (a held latency line leaves none, and obuf may be NULL) */
	if (f->buffered) {
		fmt_line_grow(&f->obuf, n);
		memcpy(f->obuf.p + f->obuf.len, p, n);
		f->obuf.len += n;
		if (f->obuf.len >= FMT_OBUF)
			drain(f);
		return;
	}
	if (fwrite_unlocked(p, 1, n, f->out) != n && !f->err)
		f->err = errno ? -errno : -EIO;
}

void fmt_emit(struct fmt *f)
{
	fmt_write(f, f->ln.p, f->ln.len);
	f->ln.len = 0;
}

void fmt_buffer(struct fmt *f, bool on)
{
	if (on == f->buffered)
		return;
	if (on && fflush(f->out) && !f->err)
		f->err = -errno;
	if (!on)
		drain(f);
	f->buffered = on;
}

int fmt_error(const struct fmt *f)
{
	return f->err;
}

struct fmt *fmt_new(FILE *out, const struct fmt_opts *o)
{
	struct fmt *f = xcalloc(1, sizeof(*f));

	f->out = out;
	f->o = *o;
	f->ln.cap = 4096;
	f->ln.p = xmalloc(f->ln.cap);
	trace_seq_init(&f->seq);
	f->verify_all = getenv("TR_FMT_VERIFY") && *getenv("TR_FMT_VERIFY") == '1';
	if (f->o.kind == FMT_CSV) {
		puts_(f, "timestamp,cpu,comm,pid,system,event,info\n");
		fmt_emit(f);
	}
	return f;
}

int fmt_flush(struct fmt *f)
{
	if (f->pending)
		fmt_lat_release(f, f->pend_ts);
	drain(f);
	if (fflush(f->out) && !f->err)
		f->err = -errno;
	return f->err;
}

void fmt_free(struct fmt *f)
{
	if (!f)
		return;
	drain(f);
	while (f->srcs)
		fmt_src_free(f->srcs);
	trace_seq_destroy(&f->seq);
	free(f->ln.p);
	free(f->txt.p);
	free(f->pend.p);
	free(f->tmp.p);
	free(f->obuf.p);
	usym_cache_free(f->usyms);
	free(f);
}

/* ---- text ---- */

static void put_comm_pid(struct fmt *f, struct fmt_src *s, int pid)
{
	const char *comm = fmt_src_comm(s, pid);
	size_t n = strlen(comm);
	char *o;
	int d = 0, k = 0;
	unsigned v;

	grow(f, n + 40);
	/*
	 * "%16s-%-5d", through a local pointer: stores through f->ln.p would
	 * make the compiler reload f->ln at every byte (a sixth of a report).
	 */
	o = f->ln.p + f->ln.len;
	if (n < 16) {
		/* All 16 at once (a constant size is a store, memset's n a call); the name covers the rest. */
		memcpy(o, "                ", 16);
		o += 16 - n;
	}
	fmt_copy(o, comm, n);
	o += n;
	*o++ = '-';
	if (pid < 0) {
		*o++ = '-';
		d++;
	}
	v = pid < 0 ? -(unsigned)pid : (unsigned)pid;
	/*
	 * Straight into the line: a copy through a buffer read back the
	 * digits' 2-byte stores in wider loads, which stall.
	 */
	k = fmt_u_len(v);
	fmt_u_digits(o + k, v);
	o += k;
	d += k;
	/* Five blanks (a store), of which the pid's digits leave 5 - d (memset's n is a call). */
	memcpy(o, "     ", 5);
	if (d < 5)
		o += 5 - d;
	f->ln.len = o - f->ln.p;
}

/* " [%03d]": the CPU column, its three digits stored at once. */
static inline void put_cpu(struct fmt *f, unsigned cpu)
{
	char *o;

	if (cpu >= 1000) {
		puts_(f, " [");
		put_u(f, cpu, 3, true);
		putc_(f, ']');
		return;
	}
	grow(f, 6);
	o = f->ln.p + f->ln.len;
	o[0] = ' ';
	o[1] = '[';
	o[2] = '0' + cpu / 100;
	o[3] = '0' + cpu / 10 % 10;
	o[4] = '0' + cpu % 10;
	o[5] = ']';
	f->ln.len += 6;
}

/*
 * The time column, after "]".  The kernel's: a clock that counts
 * nanoseconds as seconds and microseconds (rounded), " %5lu.%06lu", or with
 * ns the nine digits; the others (counter, uptime, x86-tsc) as the count,
 * " %12llu".  trace-cmd's (lib): the same, except that a time not above one
 * second is printed whole, and that it counts only counter and x86-tsc as
 * counts, printed "%12llu" with no space before.
 */
void fmt_put_time(struct fmt *f, struct fmt_src *s, uint64_t ts)
{
	uint64_t p10 = f->o.ns ? 1000000000ULL : 1000000ULL;
	uint64_t t;

	if (f->o.lib ? s->lib_raw : !s->clock_ns) {
		if (!f->o.lib)
			putc_(f, ' ');
		put_u(f, ts, 12, false);
		return;
	}
	t = f->o.ns ? ts : (ts + 500) / 1000;
	if (t > p10 || !f->o.lib) {
		/* Division by a constant is a multiplication; by p10, a divide instruction. */
		uint64_t sec = f->o.ns ? t / 1000000000ULL : t / 1000000ULL;
		uint32_t frac = f->o.ns ? t % 1000000000ULL : t % 1000000ULL;
		int w = f->o.ns ? 9 : 6, n;
		char *o;

		/* The seconds change once in many events: kept as text. */
		if (!f->sec_len || sec != f->sec) {
			char tmp[24];

			n = fmt_u_digits(tmp + sizeof(tmp), sec);
			f->sec_len = n < 5 ? 6 : n + 1;
			memset(f->sec_txt, ' ', f->sec_len - n);
			memcpy(f->sec_txt + f->sec_len - n, tmp + sizeof(tmp) - n, n);
			f->sec_txt[f->sec_len++] = '.';
			f->sec = sec;
		}
		/* A whole sec_txt, whatever its length: a copy of fixed size is inlined. */
		grow(f, sizeof(f->sec_txt) + 9);
		o = f->ln.p + f->ln.len;
		memcpy(o, f->sec_txt, sizeof(f->sec_txt));
		o += f->sec_len;
		/* Zeros of fixed size, then the digits over their end. */
		memcpy(o, "000000000", 9);
		fmt_u_digits(o + w, frac);
		f->ln.len += f->sec_len + w;
	} else {
		putc_(f, ' ');
		put_u(f, t, 12, false);
	}
}

/* The kernel's trace_flag_type bits (include/linux/trace_events.h). */
enum {
	TF_IRQS_OFF = 0x01,
	TF_LAZY = 0x02,		/* 6.13+: NEED_RESCHED_LAZY; before, IRQS_NOSUPPORT */
	TF_NEED_RESCHED = 0x04,
	TF_HARDIRQ = 0x08,
	TF_SOFTIRQ = 0x10,
	TF_PREEMPT_RESCHED = 0x20,
	TF_NMI = 0x40,
	TF_BH_OFF = 0x80,
};

/*
 * As the kernel's trace_print_lat_fmt() prints them.  Bit 0x02 changed
 * meaning in 6.13 (lazy preemption took the bit of "irq flags not
 * supported", printed X); a file of an older kernel keeps the old one.
 */
void fmt_irq_info(unsigned flags, unsigned preempt, unsigned kver, char out[6])
{
	bool old = kver && kver < (6 << 8 | 13);
	bool nr = flags & TF_NEED_RESCHED, pr = flags & TF_PREEMPT_RESCHED;
	bool lazy = !old && (flags & TF_LAZY);
	bool nmi = flags & TF_NMI, hard = flags & TF_HARDIRQ, soft = flags & TF_SOFTIRQ;
	bool bh = flags & TF_BH_OFF, off = flags & TF_IRQS_OFF;
	static const char hex[] = "0123456789abcdef";

	out[0] = off && bh ? 'D' : off ? 'd' : bh ? 'b' : old && (flags & TF_LAZY) ? 'X' : '.';
	out[1] = nr && lazy && pr ? 'B' : nr && pr ? 'N' : lazy && pr ? 'L' : nr && lazy ? 'b' :
		 nr ? 'n' : pr ? 'p' : lazy ? 'l' : '.';
	out[2] = nmi && hard ? 'Z' : nmi ? 'z' : hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.';
	out[3] = preempt & 0xf ? hex[preempt & 0xf] : '.';
	out[4] = preempt & 0xf0 ? hex[(preempt >> 4) & 0xf] : '.';
	out[5] = '\0';
}

/*
 * The same column in libtraceevent's letters (data_latency_format()), which
 * are older than the kernel's: N for any need-resched, X for bit 0x02
 * whatever the kernel meant by it, no NMI or BH-off letters.
 */
static void lib_irq_info(unsigned flags, unsigned preempt, char out[6])
{
	static const char hex[] = "0123456789abcdef";
	bool hard = flags & TF_HARDIRQ, soft = flags & TF_SOFTIRQ;

	out[0] = flags & TF_IRQS_OFF ? 'd' : flags & TF_LAZY ? 'X' : '.';
	out[1] = flags & TF_NEED_RESCHED ? 'N' : '.';
	out[2] = hard && soft ? 'H' : hard ? 'h' : soft ? 's' : '.';
	out[3] = preempt & 0xf ? hex[preempt & 0xf] : '.';
	out[4] = preempt & 0xf0 ? hex[(preempt >> 4) & 0xf] : '.';
	out[5] = '\0';
}

static void put_irq_info(struct fmt *f, struct fmt_src *s, const struct tfile_event *ev)
{
	const uint8_t *d = ev->data;
	unsigned flags = 0, pc = 0;
	char col[6];

	if (s->flags_off >= 0 && ev->size > (uint32_t)s->flags_off)
		flags = d[s->flags_off];
	if (s->pc_off >= 0 && ev->size > (uint32_t)s->pc_off)
		pc = d[s->pc_off];
	/* trace-cmd 3.4's -R: the flags byte in hex, no blank before ("[000]-0x2d"). */
	if (f->o.lib && f->o.raw) {
		fmt_line_printf(&f->ln, "-0x%x", flags);
		return;
	}
	if (f->o.lib)
		lib_irq_info(flags, pc, col);
	else
		fmt_irq_info(flags, pc, s->env.kver, col);
	putc_(f, ' ');
	put(f, col, 5);
}

/*
 * --ts-diff: " (+0.000123)", the time since the previous printed event
 * (whatever its CPU; filtered-out events do not count), in the precision of
 * the time column.  The first event shows +0.
 */
void fmt_put_delta(struct fmt *f, uint64_t ts)
{
	uint64_t d = f->have_last && ts > f->last_ts ? ts - f->last_ts : 0;
	uint64_t p10 = f->o.ns ? 1000000000ULL : 1000000ULL;
	uint64_t t = f->o.ns ? d : (d + 500) / 1000;

	f->last_ts = ts;
	f->have_last = true;
	puts_(f, " (+");
	put_u(f, t / p10, 0, false);
	putc_(f, '.');
	put_u(f, t % p10, f->o.ns ? 9 : 6, true);
	putc_(f, ')');
}

void fmt_lost(struct fmt *f, const char *prefix, int cpu, int64_t n)
{
	if (f->o.kind == FMT_JSON) {
		size_t len = strlen(prefix);

		/* The prefix is "name: " (or blanks); JSON wants the name. */
		while (len && (prefix[len - 1] == ' ' || prefix[len - 1] == ':'))
			len--;
		fmt_line_printf(&f->ln, "{\"cpu\":%d,\"lost\":%lld", cpu, (long long)n);
		if (len) {
			puts_(f, ",\"buffer\":");
			fmt_put_json_str(f, prefix, len);
		}
		puts_(f, "}\n");
	} else if (f->o.kind == FMT_CSV) {
		fmt_line_printf(&f->ln, ",%d,,,,LOST,%lld\n", cpu, (long long)n);
	} else {
		puts_(f, prefix);
		if (n >= 0)
			fmt_line_printf(&f->ln, "CPU:%d [LOST %lld EVENTS]\n", cpu, (long long)n);
		else
			fmt_line_printf(&f->ln, "CPU:%d [LOST EVENTS]\n", cpu);
	}
	fmt_emit(f);
}

/* Number of records per event checked against libtraceevent when verify_all is off. */
enum { CHECKS = 4 };

static void lib_text(struct fmt *f, struct fmt_src *s, struct tep_record *rec, bool raw)
{
	void *data = rec->data;

	rec->data = fmt_safe_record(s, data, rec->size);
	if (s->tep_load) {
		s->tep_load(s->tep_load_arg);
		s->tep_load = NULL;
	}
	trace_seq_reset(&f->seq);
	tep_print_event(s->tep, &f->seq, rec, "%s", raw ? TEP_PRINT_INFO_RAW : TEP_PRINT_INFO);
	rec->data = data;
}

/* The kernel's printer on rec (compiled on first use): KPROG_FAIL if it has none or it fails. */
static int kernel_text(struct fmt_src *s, struct ev_info *ei, const struct tep_record *rec,
		       struct fmt_line *out)
{
	struct krec kr = { rec->data, rec->size, s->clock_ns ? rec->ts : 0, rec->ts };

	fmt_kernel_compile(s, ei);
	return ei->kp ? kprog_run(ei->kp, &s->env, &kr, out) : KPROG_FAIL;
}

/*
 * The event's own fields as "name=value ...", for an event whose print fmt
 * was withheld (or a record too short for libtraceevent): every length is
 * checked against the record, strings stop at 256 bytes and arrays at 64
 * elements.
 */
static void fields_text(struct fmt_src *s, struct ev_info *ei, const struct tep_record *rec,
			struct fmt_line *out)
{
	const uint8_t *data = rec->data;
	uint32_t size = rec->size;

	for (struct tep_format_field *fld = ei->event->format.fields; fld; fld = fld->next) {
		uint32_t off = fld->offset, len = fld->size;

		if (fld != ei->event->format.fields)
			fmt_line_put(out, " ", 1);
		fmt_line_put(out, fld->name, strnlen(fld->name, 128));
		fmt_line_put(out, "=", 1);
		if (!len && (fld->flags & TEP_FIELD_IS_ARRAY) && off <= size)
			len = size - off;
		if (off > size || len > size - off) {
			fmt_line_put(out, "<past the record>", 17);
			continue;
		}
		if (fld->flags & TEP_FIELD_IS_DYNAMIC) {
			uint32_t v = len >= 4 ? (uint32_t)rd_num(s, data + off, 4) : 0;

			off = ((fld->flags & TEP_FIELD_IS_RELATIVE) ? off + len : 0) + (v & 0xffff);
			len = v >> 16;
			if (off > size || len > size - off) {
				fmt_line_put(out, "<past the record>", 17);
				continue;
			}
		} else if (!(fld->flags & TEP_FIELD_IS_ARRAY) &&
			   (len == 1 || len == 2 || len == 4 || len == 8)) {
			uint64_t v = rd_num(s, data + off, len);

			if (fld->flags & TEP_FIELD_IS_SIGNED) {
				int sh = 64 - 8 * len;

				fmt_line_printf(out, "%lld", (long long)((int64_t)(v << sh) >> sh));
			} else {
				fmt_line_printf(out, "%llu", (unsigned long long)v);
			}
			continue;
		}
		if (fmt_char_field(fld)) {
			size_t n = strnlen((const char *)data + off, len > 256 ? 256 : len);

			for (size_t i = 0; i < n; i++) {
				char c = data[off + i];

				fmt_line_put(out, c >= 0x20 && c < 0x7f ? &c : "?", 1);
			}
			continue;
		}
		fmt_line_put(out, "ARRAY[", 6);
		for (uint32_t i = 0; i < len && i < 64; i++)
			fmt_line_printf(out, "%s%02x", i ? ", " : "", data[off + i]);
		fmt_line_put(out, len > 64 ? ", ...]" : "]", len > 64 ? 6 : 1);
	}
}

/*
 * Append the event text to out.  By default the kernel's printer's; with
 * lib (or where the kernel's printer cannot print a record) the fast
 * printer's when it has one (checked against libtraceevent for the first
 * records of each event), else libtraceevent's.  One trailing newline is
 * dropped, as the kernel's trace file and trace-cmd do (a trace_marker
 * write keeps its own newline in the record).  KPROG_LINE when the text is
 * all that follows the timestamp (the kernel prints no "name: " for it).
 */
int fmt_event_text(struct fmt *f, struct fmt_src *s, struct ev_info *ei, struct tep_record *rec,
		   bool raw, struct fmt_line *out)
{
	size_t start = out->len;
	int ret = KPROG_TEXT;

	if (!ei->event && rec->size >= 2 && !raw &&
	    (int)rd_num(s, (const uint8_t *)rec->data, 2) == fmt_blk_type(s)) {
		struct krec kr = { rec->data, rec->size, s->clock_ns ? rec->ts : 0, rec->ts };

		fmt_env_setup(s);
		if ((ret = kblk_run(&s->env, &kr, out)) != KPROG_FAIL)
			return ret;
		ret = KPROG_TEXT;
	}
	if (!ei->event) {
		const char *u = "[UNKNOWN EVENT]";

		fmt_line_grow(out, strlen(u));
		memcpy(out->p + out->len, u, strlen(u));
		out->len += strlen(u);
		return ret;
	}
	/*
	 * A print fmt tfile-format.h refused, or a record too short for a field
	 * of size 0, goes to no printer that trusts the format: the kernel's,
	 * the fast one or libtraceevent.
	 */
	if (ei->withheld || (uint32_t)rec->size < ei->min_size) {
		/*
		 * The kernel's own output function for it reads no print fmt.
		 * (Asked once: an event that has none is marked compiled.)
		 */
		if (!raw && !f->o.lib && !ei->event->handler) {
			if (!ei->kp_done && !kprog_own_printer(ei->event))
				ei->kp_done = true;
			if ((ret = kernel_text(s, ei, rec, out)) != KPROG_FAIL)
				return ret;
			ret = KPROG_TEXT;
		}
		fields_text(s, ei, rec, out);
		return ret;
	}
	if (!fmt_lens_fit(s, ei, rec)) {
		if (!ei->lens_warned)
			tr_warn("event '%s:%s': a record's __print_hex or __print_array length runs "
				"past it: such records show their fields", ei->event->system,
				ei->event->name);
		ei->lens_warned = true;
		fields_text(s, ei, rec, out);
		return ret;
	}
	/* An eprobe's line names the event it is on before its fields. */
	if (!raw && !f->o.lib && ei->eprobe) {
		fmt_line_grow(out, strlen(ei->eprobe) + 3);
		out->len += sprintf(out->p + out->len, "(%s)", ei->eprobe);
	}
	/* User events print field by field, as the kernel prints them (fmt-user.c). */
	if (!raw && ei->user) {
		fmt_user_text(s->tep, ei->event, rec->data, (uint32_t)rec->size, s->env.kver, out);
		return ret;
	}
	/* A plugin's handler (--plugins) prints trace-cmd's compact forms. */
	if (!raw && !f->o.lib && !ei->event->handler) {
		/* The kernel's text, whole: its own newlines are the kernel's too. */
		if ((ret = kernel_text(s, ei, rec, out)) != KPROG_FAIL)
			return ret;
		ret = KPROG_TEXT;
		goto lib;
	}
	if (!raw && ei->prog && fmt_prog_run(ei->prog, s->tep, rec->data, rec->size, out)) {
		if (ei->checked < CHECKS || f->verify_all) {
			ei->checked++;
			lib_text(f, s, rec, false);
			if (f->seq.len != out->len - start ||
			    memcmp(f->seq.buffer, out->p + start, f->seq.len)) {
				/* Not exact after all: libtraceevent prints it from now on. */
				if (f->verify_all && !f->mismatch)
					tr_warn("fast printer differs for '%s': '%.*s' vs '%.*s'",
						ei->event->name, (int)(out->len - start),
						out->p + start, (int)f->seq.len, f->seq.buffer);
				f->mismatch = true;
				fmt_prog_free(ei->prog);
				ei->prog = NULL;
				out->len = start;
				goto lib;
			}
		}
		goto strip;
	}
lib:
	lib_text(f, s, rec, raw);
	if (f->seq.len) {
		fmt_line_grow(out, f->seq.len);
		memcpy(out->p + out->len, f->seq.buffer, f->seq.len);
		out->len += f->seq.len;
	}
strip:
	if (out->len > start && out->p[out->len - 1] == '\n')
		out->len--;
	return ret;
}

int fmt_event(struct fmt *f, struct fmt_src *s, const char *prefix, const struct tfile_event *ev)
{
	struct tep_record rec;
	struct ev_info *ei;
	int id, pid;
	size_t name_at, text_at;

	if ((s->has_filter || s->has_tasks) && !fmt_src_match(s, ev))
		return 1;
	if (ev->missed)
		fmt_lost(f, prefix, ev->cpu, ev->missed);
	id = fmt_src_event_id(s, ev);
	pid = rec_pid(s, ev);
	ei = fmt_ev(s, id < 0 ? 0 : id);
	fill_record(&rec, ev);
	if (ei->graph)
		s->graph_seen = true;
	/*
	 * Function events are no part of the graph (the kernel prints them
	 * in their own layout there too).
	 */
	if (f->o.graph && f->o.kind == FMT_TEXT && s->graph_seen &&
	    !(ei->event && !strcmp(ei->event->system, "ftrace") &&
	      !strcmp(ei->event->name, "function"))) {
		fmt_graph_event(f, s, ei, prefix, ev, &rec);
		fmt_emit(f);
		return 0;
	}
	switch (f->o.kind) {
	case FMT_JSON:
		fmt_json_event(f, s, ei, prefix, ev, pid);
		break;
	case FMT_CSV:
		fmt_csv_event(f, s, ei, ev, pid, &rec);
		break;
	default:
		if (s->ko_line) {
			fmt_kernel_line(f, s, ei, prefix, ev, id, pid, &rec);
			break;
		}
		f->idx++;
		/* The buffer's prefix: one string a buffer, measured once. */
		if (prefix != f->pfx) {
			f->pfx = prefix;
			f->pfx_len = strlen(prefix);
		}
		put(f, prefix, f->pfx_len);
		put_comm_pid(f, s, pid);
		put_cpu(f, ev->cpu);
		if (s->irq_col)
			put_irq_info(f, s, ev);
		fmt_put_time(f, s, ev->ts);
		if (f->o.ts_diff)
			fmt_put_delta(f, ev->ts);
		puts_(f, ": ");
		name_at = f->ln.len;
		if (ei->event && ei->name_len <= 32) {
			/* 32 bytes of name_col (72 long) at once: a store of fixed size, no call. */
			grow(f, 32);
			memcpy(f->ln.p + f->ln.len, ei->name_col, 32);
			f->ln.len += ei->name_len;
		} else if (ei->event) {
			put(f, ei->name_col, ei->name_len);
		} else {
			fmt_line_printf(&f->ln, "%-*s ", NAME_COL, "[unknown]:");
		}
		text_at = f->ln.len;
		if (fmt_event_text(f, s, ei, &rec, f->o.raw, &f->ln) == KPROG_LINE) {
			/* The kernel's own line (a syscall's, a marker's): no name column. */
			memmove(f->ln.p + name_at, f->ln.p + text_at, f->ln.len - text_at);
			f->ln.len -= text_at - name_at;
		}
		putc_(f, '\n');
		break;
	}
	fmt_emit(f);
	return 0;
}
