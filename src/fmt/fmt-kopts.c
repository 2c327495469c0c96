// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's trace options that change its trace file's lines beyond
 * each event's own text (kernel/trace/trace.c, print_trace_line(), and
 * trace_output.c): bin, hex and raw replace the whole line; context-info,
 * irq-info, record-tgid, latency-format and verbose shape the columns in
 * front of the text; fields prints every field as name=value instead of
 * the print fmt; printk-msg-only leaves a marker's message alone; annotate
 * marks where a CPU's buffer starts after an overrun.  fmt-kline.c decides which
 * applies to a record; the pieces of text are made here, from plain values.
 */
#include <ctype.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-kernel-local.h"

void fmt_kopts_default(struct fmt_kopts *o)
{
	*o = (struct fmt_kopts){ .context = true, .printk = true };
}

static const struct {
	const char *name;
	size_t off;
} kopt_names[] = {
#define K(n, f) { n, offsetof(struct fmt_kopts, f) }
	K("raw", raw), K("hex", hex), K("bin", bin), K("context-info", context),
	K("irq-info", irq), K("record-tgid", tgid), K("latency-format", lat),
	K("verbose", verbose), K("fields", fields), K("annotate", annotate),
	K("printk-msg-only", msg_only), K("trace_printk", printk),
	K("userstacktrace", userstack), K("sym-userobj", userobj),
#undef K
};

int fmt_kopts_word(struct fmt_kopts *o, const char *w, size_t n)
{
	bool no = n > 2 && !strncmp(w, "no", 2);
	const char *name = no ? w + 2 : w;
	size_t len = no ? n - 2 : n;

	if (n > 7 && !strncmp(w, "tracer:", 7)) {
		snprintf(o->tracer, sizeof(o->tracer), "%.*s", (int)(n - 7), w + 7);
		return 1;
	}
	for (size_t i = 0; i < sizeof(kopt_names) / sizeof(kopt_names[0]); i++)
		if (strlen(kopt_names[i].name) == len && !strncmp(kopt_names[i].name, name, len)) {
			bool *b = (bool *)((char *)o + kopt_names[i].off);

			*b = !no;
			if (!strcmp(kopt_names[i].name, "irq-info"))
				o->irq_said = true;
			return 1;
		}
	return 0;
}

void fmt_kopts_missing(const struct fmt_kopts *o, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
#define MISS(cond, what)                                                                   \
	do {                                                                               \
		if ((cond) && len < n)                                                     \
			len += snprintf(buf + len, n - len, "%s" what, len ? ", " : "");  \
	} while (0)
	MISS(o->lat && o->context, "latency-format (its times count from boot, not from the "
				   "buffer's last reset; its header's preemption model is unknown)");
	MISS(o->tgid && o->context, "record-tgid (no saved_tgids in the file: TGIDs show as -------)");
	MISS(o->userstack && o->userobj, "sym-userobj (the processes' memory maps are not in the "
					 "file: user addresses print bare)");
	MISS((o->raw || o->hex || o->bin) &&
	     (!strncmp(o->tracer, "wakeup", 6) || !strcmp(o->tracer, "hwlat") ||
	      !strcmp(o->tracer, "osnoise") || !strcmp(o->tracer, "timerlat")),
	     "raw, hex and bin of the wakeup tracers' and hwlat, osnoise and timerlat records "
	     "(printed as 'type: N')");
#undef MISS
}

/* ---- raw, hex, bin ---- */

void fmt_kctx(struct fmt_line *l, enum fmt_kmode m, int pid, int cpu, uint64_t ts, bool swap)
{
	switch (m) {
	case FMT_KRAW:
		fmt_line_printf(l, "%d %d %llu ", pid, cpu, (unsigned long long)ts);
		break;
	case FMT_KHEX:
		/* trace_seq_putmem_hex: the bytes of each, most significant first. */
		fmt_line_printf(l, "%08x %08x %016llx ", (unsigned)pid, (unsigned)cpu,
				(unsigned long long)ts);
		break;
	case FMT_KBIN: {
		uint32_t p = (uint32_t)pid, c = (uint32_t)cpu;
		uint64_t t = ts;

		/* The traced machine's own bytes, as its kernel writes them. */
		if (swap) {
			p = __builtin_bswap32(p);
			c = __builtin_bswap32(c);
			t = __builtin_bswap64(t);
		}
		fmt_line_grow(l, 16);
		memcpy(l->p + l->len, &p, 4);
		memcpy(l->p + l->len + 4, &c, 4);
		memcpy(l->p + l->len + 8, &t, 8);
		l->len += 16;
		break;
	}
	}
}

static bool field_u64(struct tep_handle *tep, struct tep_event *e, const char *name,
		      const uint8_t *data, uint32_t size, uint64_t *v)
{
	struct tep_format_field *f = tep_find_field(e, name);

	if (!f || f->size > 8 || f->size <= 0 || f->offset < 0 || (uint32_t)(f->offset + f->size) > size)
		return false;
	*v = tep_read_number(tep, data + f->offset, f->size);
	return true;
}

/* A string field of the record (up to its NUL), or NULL. */
static const char *field_str(struct tep_event *e, const char *name, const uint8_t *data,
			     uint32_t size, size_t *len)
{
	struct tep_format_field *f = tep_find_field(e, name);

	if (!f || f->offset < 0 || (uint32_t)f->offset >= size)
		return NULL;
	*len = strnlen((const char *)data + f->offset, size - f->offset);
	return (const char *)data + f->offset;
}

/*
 * The event's part of the line under raw, hex or bin: the kernel's own
 * functions for the function tracer's, markers' and trace_printk's records,
 * "type: N" for every other event (register_trace_event() gives events
 * without one trace_nop_print).  text is the record's usual text (for
 * bprint, "func: message"), used where the kernel prints the message.
 * The line ends as the kernel's does: hex adds a newline after it.
 */
void fmt_kbody(struct fmt_line *l, enum fmt_kmode m, struct tep_handle *tep, struct tep_event *e,
	       int type, const uint8_t *data, uint32_t size, const char *text, size_t text_len)
{
	const char *name = e && !strcmp(e->system, "ftrace") ? e->name : "";
	int lsz = tep_get_long_size(tep);
	uint64_t ip = 0, parent = 0;
	size_t n = 0;

	if (!strcmp(name, "function") && field_u64(tep, e, "ip", data, size, &ip) &&
	    field_u64(tep, e, "parent_ip", data, size, &parent)) {
		if (m == FMT_KRAW) {
			fmt_line_printf(l, "%llx %llx\n", (unsigned long long)ip,
					(unsigned long long)parent);
		} else if (m == FMT_KHEX) {
			fmt_line_printf(l, "%0*llx %0*llx \n", lsz * 2, (unsigned long long)ip,
					lsz * 2, (unsigned long long)parent);
		} else {
			struct tep_format_field *a = tep_find_field(e, "ip");
			struct tep_format_field *b = tep_find_field(e, "parent_ip");

			fmt_line_grow(l, a->size + b->size);
			memcpy(l->p + l->len, data + a->offset, a->size);
			memcpy(l->p + l->len + a->size, data + b->offset, b->size);
			l->len += a->size + b->size;
		}
		return;
	}
	if (m == FMT_KRAW && !strcmp(name, "print") && field_u64(tep, e, "ip", data, size, &ip)) {
		const char *buf = field_str(e, "buf", data, size, &n);

		fmt_line_printf(l, "# %llx %.*s", (unsigned long long)ip, buf ? (int)n : 0,
				buf ? buf : "");
		if (!n || buf[n - 1] != '\n')
			fmt_line_printf(l, "\n");
		return;
	}
	if (m == FMT_KRAW && (!strcmp(name, "bprint") || !strcmp(name, "bputs")) &&
	    field_u64(tep, e, "ip", data, size, &ip)) {
		const char *msg = memmem(text, text_len, ": ", 2);
		size_t skip = msg ? (size_t)(msg + 2 - text) : 0;

		fmt_line_printf(l, ": %llx : %.*s\n", (unsigned long long)ip,
				(int)(text_len - skip), text + skip);
		return;
	}
	if (m == FMT_KRAW && !strcmp(name, "raw_data")) {
		/* Its raw text is its usual text. */
		fmt_line_printf(l, "%.*s\n", (int)text_len, text);
		return;
	}
	if (m == FMT_KRAW && !strcmp(name, "func_repeats")) {
		uint64_t count = 0, top = 0, bottom = 0;

		field_u64(tep, e, "ip", data, size, &ip);
		field_u64(tep, e, "parent_ip", data, size, &parent);
		field_u64(tep, e, "count", data, size, &count);
		field_u64(tep, e, "top_delta_ts", data, size, &top);
		field_u64(tep, e, "bottom_delta_ts", data, size, &bottom);
		fmt_line_printf(l, "%llu %llu %u %llu\n", (unsigned long long)ip,
				(unsigned long long)parent, (unsigned)count,
				(unsigned long long)(top << 32 | bottom));
		return;
	}
	fmt_line_printf(l, "type: %d\n", type);
	if (m == FMT_KHEX)
		fmt_line_printf(l, "\n");
}

/* ---- fields ---- */

/* __data_loc/__rel_loc bytes as "%02x" joined by commas, as print_array(). */
static void put_array(struct fmt_line *l, struct tep_handle *tep,
		      const struct tep_format_field *f, const uint8_t *data, uint32_t size)
{
	uint32_t v = (uint32_t)tep_read_number(tep, data + f->offset, 4);
	uint32_t off = v & 0xffff, len = v >> 16;

	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + 4;
	if ((uint64_t)off + len > size) {
		fmt_line_printf(l, "<OVERFLOW>");
		return;
	}
	for (uint32_t i = 0; i < len; i++)
		fmt_line_printf(l, "%s%02x", i ? "," : "", data[off + i]);
}

/* The kernel's isprint(): its ctype table counts Latin-1's 0xa0-0xff as printable too. */
static bool kisprint(uint8_t c)
{
	return (c >= 0x20 && c < 0x7f) || c >= 0xa0;
}

/*
 * The fields option: "name:" and then " field=value" for each of the
 * event's own fields in the format's order, each as the kernel's
 * print_fields() prints its filter type: strings as text, numbers as
 * "0xHEX (DECIMAL)", a printable byte as 'c'(N), dynamic arrays as bytes,
 * a string pointer as "(0xADDR)" or "(0xADDR:text)".  The kernel prints
 * "UNKNOWN TYPE N" for its own ftrace events.
 *
 * Since 6.16 a field of the long's size prints through %pS ("function=
 * hrtimer_wakeup+0x0/0x30 (-2126388048)"): a symbol where kallsyms has
 * one, else the same hex.  And a string pointer prints, in place of the
 * pointer, the address of the field in the kernel's ring buffer (the
 * string after it where the pointer is the kernel's): no recording keeps
 * that, so tr prints the pointer the field holds, as kernels before 6.16
 * did ("(0x%px)": as many digits as a pointer has), with the text
 * printk_formats gives it.
 */
void fmt_kfields(struct fmt_line *l, const struct kenv *env, struct tep_event *e, int type,
		 const uint8_t *data, uint32_t size)
{
	struct tep_handle *tep = env->tep;
	bool syms = !env->kver || env->kver >= (6 << 8 | 16);

	if (!e || !strcmp(e->system, "ftrace")) {
		fmt_line_printf(l, "UNKNOWN TYPE %d\n", type);
		return;
	}
	fmt_line_printf(l, "%s:", e->name);
	if (!e->format.fields) {
		fmt_line_printf(l, "No fields found\n");
		return;
	}
	for (struct tep_format_field *f = e->format.fields; f; f = f->next) {
		const char *t = f->type ? f->type : "";
		const uint8_t *p = data + f->offset;

		fmt_line_printf(l, " %s=", f->name);
		if ((uint64_t)f->offset + f->size > size) {
			fmt_line_printf(l, "<OVERFLOW>");
			continue;
		}
		if ((strstr(t, "__data_loc") || strstr(t, "__rel_loc")) && strstr(t, "char")) {
			uint32_t v = (uint32_t)tep_read_number(tep, p, 4);
			uint32_t off = v & 0xffff, len = v >> 16;

			if (strstr(t, "__rel_loc"))
				off += f->offset + 4;
			if ((uint64_t)off + len > size)
				fmt_line_printf(l, "<OVERFLOW>");
			else
				fmt_dyn_text(l, data + off, len, env->kver);
			continue;
		}
		if (strstr(t, "__data_loc") && strstr(t, "cpumask_t")) {
			fmt_line_printf(l, "<INVALID-TYPE>");
			continue;
		}
		if (strchr(t, '[') && strstr(t, "char") && !strstr(t, "__data_loc")) {
			fmt_line_printf(l, "%.*s", (int)strnlen((const char *)p, f->size),
					(const char *)p);
			continue;
		}
		if (!strcmp(t, "char *") || !strcmp(t, "const char *")) {
			uint64_t a = tep_read_number(tep, p, f->size > 8 ? 8 : f->size);
			const char *s = env->string ? env->string(env->ctx, a) : NULL;

			fmt_line_printf(l, "(0x%0*llx%s%s)", env->long_size * 2, (unsigned long long)a,
					s ? ":" : "", s ? s : "");
			continue;
		}
		switch (f->size) {
		case 1:
			if (kisprint(*p))
				fmt_line_printf(l, "'%c'", *p);
			fmt_line_printf(l, "(%d)", *p);
			break;
		case 2: {
			unsigned v = (unsigned)tep_read_number(tep, p, 2);

			fmt_line_printf(l, "0x%x (%d)", v, (int)v);
			break;
		}
		case 4: {
			uint32_t v;

			if (strstr(t, "__data_loc") || strstr(t, "__rel_loc")) {
				put_array(l, tep, f, data, size);
				break;
			}
			v = (uint32_t)tep_read_number(tep, p, 4);
			if (syms && env->long_size == 4)
				ksymbol(l, env, v, "S", 0, -1, -1);
			else
				fmt_line_printf(l, "0x%x", v);
			fmt_line_printf(l, " (%d)", (int32_t)v);
			break;
		}
		case 8: {
			uint64_t v = tep_read_number(tep, p, 8);

			if (syms && env->long_size == 8)
				ksymbol(l, env, v, "S", 0, -1, -1);
			else
				fmt_line_printf(l, "0x%llx", (unsigned long long)v);
			fmt_line_printf(l, " (%lld)", (long long)v);
			break;
		}
		default:
			fmt_line_printf(l, "<INVALID-SIZE>");
		}
	}
	fmt_line_printf(l, "\n");
}

/* ---- latency-format ---- */

/* The kernel's overhead marks (trace_find_mark): '+' past 10 us ... '$' past 1 s. */
static char lat_mark(uint64_t ns)
{
	static const struct { uint64_t v; char c; } marks[] = {
		{ 1000000000ULL, '$' }, { 100000000ULL, '@' }, { 10000000ULL, '*' },
		{ 1000000ULL, '#' }, { 100000ULL, '!' }, { 10000ULL, '+' },
	};

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns > marks[i].v)
			return marks[i].c;
	return ' ';
}

void fmt_klat_ctx(struct fmt_line *l, bool verbose, const char *comm, int pid, int cpu,
		  unsigned flags, unsigned pc, uint64_t idx, const char irq[6])
{
	if (verbose)
		fmt_line_printf(l, "%16s %7d %3d %d %08x %08llx ", comm, pid, cpu, flags, pc & 0xf,
				(unsigned long long)idx);
	else
		fmt_line_printf(l, "%8.8s-%-7d %3d%s", comm, pid, cpu, irq);
}

void fmt_klat_time(struct fmt_line *l, bool verbose, bool in_ns, uint64_t ts, uint64_t next)
{
	uint64_t abs = ts, rel = next > ts ? next - ts : 0;

	/* ns2usecs() rounds. */
	if (in_ns) {
		abs = (abs + 500) / 1000;
		rel = (rel + 500) / 1000;
	}
	if (verbose && in_ns)
		fmt_line_printf(l, "[%08llx] %llu.%03llums (+%llu.%03llums): ",
				(unsigned long long)abs, (unsigned long long)(abs / 1000),
				(unsigned long long)(abs % 1000), (unsigned long long)(rel / 1000),
				(unsigned long long)(rel % 1000));
	else if (verbose)
		fmt_line_printf(l, "[%016llx] %lld (+%lld): ", (unsigned long long)ts, (long long)abs,
				(long long)rel);
	else if (in_ns)
		fmt_line_printf(l, " %4lldus%c: ", (long long)abs, lat_mark(rel * 1000));
	else
		fmt_line_printf(l, " %4lld: ", (long long)abs);
}

/* ---- the header ---- */

void fmt_kheader(struct fmt_line *l, const struct fmt_kopts *o, const char *release,
		 uint64_t entries, uint64_t written, int ncpus)
{
	fmt_line_printf(l, "# tracer: %s\n#\n", o->tracer[0] ? o->tracer : "nop");
	if (!o->context)
		return;
	if (o->lat) {
		if (!entries)
			return;
		fmt_line_printf(l, "# %s latency trace v1.1.5 on %s\n", o->tracer[0] ? o->tracer : "nop",
				release && *release ? release : "unknown");
		fmt_line_printf(l, "# -----------------------------------"
				   "---------------------------------\n");
		fmt_line_printf(l, "# latency: 0 us, #%llu/%llu, CPU#0 | (M:unknown VP:0, KP:0, SP:0 "
				   "HP:0 #P:%d)\n", (unsigned long long)entries,
				(unsigned long long)written, ncpus);
		fmt_line_printf(l, "#    -----------------\n"
				   "#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)\n"
				   "#    -----------------\n#\n");
		if (!o->verbose)
			fmt_line_printf(l,
				"#                    _------=> CPU#            \n"
				"#                   / _-----=> irqs-off/BH-disabled\n"
				"#                  | / _----=> need-resched    \n"
				"#                  || / _---=> hardirq/softirq \n"
				"#                  ||| / _--=> preempt-depth   \n"
				"#                  |||| / _-=> migrate-disable \n"
				"#                  ||||| /     delay           \n"
				"#  cmd     pid     |||||| time  |   caller     \n"
				"#     \\   /        ||||||  \\    |    /       \n");
		return;
	}
	if (o->verbose)
		return;
	fmt_line_printf(l, "# entries-in-buffer/entries-written: %llu/%llu   #P:%d\n#\n",
			(unsigned long long)entries, (unsigned long long)written, ncpus);
	if (o->irq) {
		const char *sp = o->tgid ? "            " : "  ";

		fmt_line_printf(l,
			"#                            %s  _-----=> irqs-off/BH-disabled\n"
			"#                            %s / _----=> need-resched\n"
			"#                            %s| / _---=> hardirq/softirq\n"
			"#                            %s|| / _--=> preempt-depth\n"
			"#                            %s||| / _-=> migrate-disable\n"
			"#                            %s|||| /     delay\n"
			"#           TASK-PID  %s CPU#  |||||  TIMESTAMP  FUNCTION\n"
			"#              | |    %s   |   |||||     |         |\n",
			sp, sp, sp, sp, sp, sp, o->tgid ? "     TGID   " : "  ",
			o->tgid ? "       |    " : "  ");
	} else {
		fmt_line_printf(l,
			"#           TASK-PID    %s CPU#     TIMESTAMP  FUNCTION\n"
			"#              | |      %s   |         |         |\n",
			o->tgid ? "   TGID   " : "", o->tgid ? "     |    " : "");
	}
}
