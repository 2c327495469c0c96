/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The formatter's private parts, shared by src/fmt*.c only (the interface
 * is include/fmt.h).
 */
#ifndef TR_FMT_LOCAL_H
#define TR_FMT_LOCAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fmt.h"

struct tep_event;
struct tep_handle;

struct fmt_line {
	char *p;
	size_t len, cap;
};

static inline void fmt_line_grow(struct fmt_line *l, size_t more)
{
	if (l->len + more > l->cap) {
		l->cap = (l->len + more) * 2;
		l->p = xrealloc(l->p, l->cap);
	}
}

/*
 * memcpy() of a piece of a line: most are a few bytes (a comm, a number, a
 * separator), which two overlapping moves of fixed size copy without the
 * call (a tenth of a report of scheduler events was in memcpy).
 */
static inline void fmt_copy(char *d, const char *s, size_t n)
{
	if (n > 16) {
		memcpy(d, s, n);
	} else if (n >= 8) {
		uint64_t a, b;

		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		memcpy(d, &a, 4);
		memcpy(d + n - 4, &b, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

/* Bytes onto the end of the line (inline: the printers call it for every piece). */
static inline void fmt_line_put(struct fmt_line *l, const char *s, size_t n)
{
	fmt_line_grow(l, n);
	fmt_copy(l->p + l->len, s, n);
	l->len += n;
}

/*
 * v's decimal digits, written backwards ending at end; their count.  Two
 * at a time from a table: a digit at a time was a twelfth of a report.
 */
static inline int fmt_u_digits(char *end, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char *o = end;
	uint32_t w;

	/* 64-bit division is dearer: only while the value needs it. */
	while (v > UINT32_MAX) {
		unsigned r = v % 100;

		v /= 100;
		*--o = pairs[2 * r + 1];
		*--o = pairs[2 * r];
	}
	w = (uint32_t)v;
	while (w >= 100) {
		unsigned r = w % 100;

		w /= 100;
		*--o = pairs[2 * r + 1];
		*--o = pairs[2 * r];
	}
	if (w >= 10) {
		*--o = pairs[2 * w + 1];
		*--o = pairs[2 * w];
	} else {
		*--o = '0' + w;
	}
	return end - o;
}

/*
 * How many decimal digits fmt_u_digits() writes for v: from its bit
 * length (log10(2) is about 1233 / 4096), corrected by one comparison (a
 * loop of comparisons was a thirtieth of a report of scheduler events).
 */
static inline int fmt_u_len(uint64_t v)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL,
		10000000000000000ULL, 100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL,
	};
	uint64_t x = v | 1;	/* 0 has a digit; and no power of ten is odd but 1 */
	int n = (64 - __builtin_clzll(x)) * 1233 >> 12;

	return n + (n < 20 && x >= p10[n]);
}

/* printf onto the end of the line (the one helper for every part of the formatter). */
void fmt_line_printf(struct fmt_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fmt_line_vprintf(struct fmt_line *l, const char *fmt, va_list ap);

/*
 * The fast printer: an event's print fmt compiled once into steps that need
 * neither malloc nor libtraceevent per record.  Only print fmts whose every
 * conversion it can render exactly as libtraceevent does compile; the rest
 * return NULL and go through tep_print_event.
 */
struct fmt_prog;
struct fmt_prog *fmt_prog_compile(struct tep_handle *tep, struct tep_event *e);
/* Append the event text; false if this record needs libtraceevent after all. */
bool fmt_prog_run(const struct fmt_prog *p, struct tep_handle *tep, const void *data,
		  uint32_t size, struct fmt_line *out);
void fmt_prog_free(struct fmt_prog *p);

/*
 * User events: the kernel prints them field by field, not by their print
 * fmt (fmt-user.c).  fmt_user_event() says whether an event is one.
 */
bool fmt_user_event(const struct tep_event *e);
void fmt_user_text(struct tep_handle *tep, struct tep_event *e, const void *data,
		   uint32_t size, unsigned kver, struct fmt_line *out);
/*
 * A dynamic string field (its n bytes) as print_event_fields() prints it
 * for a kernel of version kver (major << 8 | minor, 0: unknown, taken as
 * the newest): up to its NUL; since 6.19, one with a byte that is neither
 * NUL nor printable ASCII as every byte ('.' for those) and then its bytes
 * in hex ("tab.x. (74:61:62:09:78:00)").
 */
void fmt_dyn_text(struct fmt_line *o, const uint8_t *p, size_t n, unsigned kver);

/*
 * The kernel's trace options that shape its trace file's lines
 * (fmt-kopts.c), as a recording stored them or the user overrode them.
 */
struct fmt_kopts {
	bool raw, hex, bin, context, irq, tgid, lat, verbose, fields, annotate, msg_only, printk;
	bool userstack, userobj;
	bool irq_said;		/* irq-info was named either way (not so in older files) */
	char tracer[32];	/* current_tracer, "" when not stored */
};

/* The kernel's defaults but irq-info: context-info and trace_printk set. */
void fmt_kopts_default(struct fmt_kopts *o);
/* Apply one word of n bytes ("raw", "noraw", "tracer:nop"): 1 if it is one of ours, else 0. */
int fmt_kopts_word(struct fmt_kopts *o, const char *w, size_t n);
/* The options set whose effect tr cannot make from a recording, with why, into buf. */
void fmt_kopts_missing(const struct fmt_kopts *o, char *buf, size_t n);

enum fmt_kmode { FMT_KRAW, FMT_KHEX, FMT_KBIN };
/* bin, hex or raw: the pid, CPU and timestamp in front of the event (with context-info). */
void fmt_kctx(struct fmt_line *l, enum fmt_kmode m, int pid, int cpu, uint64_t ts, bool swap);
/* The event's part under bin, hex or raw (see fmt-kopts.c). */
void fmt_kbody(struct fmt_line *l, enum fmt_kmode m, struct tep_handle *tep, struct tep_event *e,
	       int type, const uint8_t *data, uint32_t size, const char *text, size_t text_len);
struct kenv;
/*
 * The fields option's text of a record, with its newline; env (fmt-kernel.h)
 * gives the kernel's version, symbols and printk_formats strings.
 */
void fmt_kfields(struct fmt_line *l, const struct kenv *env, struct tep_event *e, int type,
		 const uint8_t *data, uint32_t size);
/* latency-format: the columns before the time (irq is fmt_irq_info's), and the time. */
void fmt_klat_ctx(struct fmt_line *l, bool verbose, const char *comm, int pid, int cpu,
		  unsigned flags, unsigned pc, uint64_t idx, const char irq[6]);
void fmt_klat_time(struct fmt_line *l, bool verbose, bool in_ns, uint64_t ts, uint64_t next);
/* The kernel's trace file header under these options. */
void fmt_kheader(struct fmt_line *l, const struct fmt_kopts *o, const char *release,
		 uint64_t entries, uint64_t written, int ncpus);

#endif
