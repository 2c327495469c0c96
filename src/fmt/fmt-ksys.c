// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * System call events as the kernel prints them: not through their print
 * fmts but through print_syscall_enter() and print_syscall_exit()
 * (kernel/trace/trace_syscalls.c).  "sys_NAME(arg: value, ...)", each
 * value in hex (since 6.18 a value under 10 in decimal), with its type
 * under verbose.
 *
 * Since 6.19 the kernel also copies the user memory some arguments point
 * to into the record (at most 165 bytes, up to three arguments): one
 * "__data_loc char[] __ARG_val" field per such argument after the
 * arguments, in their order.  A string prints after its pointer as
 * ` "text"`; a buffer with a size argument (write, pwrite64, mq_timedsend:
 * the print fmt shows it as __print_dynamic_array) as its bytes in hex
 * and, if any is printable, ` "text"` with '.' for the others, both ending
 * in "..." when the size argument asked for more than was kept.  openat
 * has a printer of its own outside verbose: decimal values, its flags by
 * name, and its mode only when it creates a file.
 *
 * All is read from the record and its format: a file from another machine
 * prints as that kernel printed it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-kernel-local.h"
#include "tfile-format.h"

/* The largest value the kernel prints in decimal, since 6.18. */
#define SMALL 10

/*
 * Each argument's type as its format file names it: the kernel defines
 * each argument field with the type string of the syscall's metadata
 * ("const char *", "struct robust_list_head * *") and prints that string
 * under verbose.  The file's "field:TYPE NAME;" lines hold it as written
 * (tfile_format_parse_field() reads them); libtraceevent's field type is
 * rebuilt from tokens and may space it otherwise, so it serves only where
 * the text is not at hand.
 */
static void sys_types(struct kprog *p, const char *text)
{
	p->types = kprog_mem(p, (p->nfields + 1) * sizeof(*p->types));
	for (int i = 0; i < p->nfields; i++)
		p->types[i] = p->fields[i]->type ? p->fields[i]->type : "";
	for (const char *l = text, *eol; l && *l; l = *eol ? eol + 1 : eol) {
		struct tfile_format_field f;
		const char *d = l;
		char why[160];

		eol = strchrnul(l, '\n');
		while (d < eol && (*d == '\t' || *d == ' '))
			d++;
		if (eol - d < 6 || memcmp(d, "field:", 6) ||
		    tfile_format_parse_field(d, eol - d, &f, why, sizeof(why)) || f.array ||
		    !f.type_len)
			continue;
		for (int i = 1; i < p->nfields; i++) {
			const char *name = p->fields[i]->name;
			char *t;

			if (f.name_len != strlen(name) || memcmp(f.name, name, f.name_len))
				continue;
			t = kprog_mem(p, f.type_len + 1);
			memcpy(t, f.type, f.type_len);
			p->types[i] = t;
		}
	}
}

/* The field of the argument named name (len bytes), 0 if none. */
static int arg_field(const struct kprog *p, const char *name, size_t len)
{
	for (int i = 1; i < p->sys_nargs + 1; i++)
		if (strlen(p->fields[i]->name) == len && !memcmp(p->fields[i]->name, name, len))
			return i;
	return 0;
}

/*
 * openat's flags table, in the kernel's order: the values from its print
 * fmt, which has each but O_TMPFILE ({ 0x1, "O_WRONLY" }, ...); O_TMPFILE
 * is __O_TMPFILE | O_DIRECTORY, __O_TMPFILE as asm-generic has it.
 */
static const char *const open_flags[] = {
	"O_TMPFILE", "O_WRONLY", "O_RDWR", "O_CREAT", "O_EXCL", "O_NOCTTY", "O_TRUNC",
	"O_APPEND", "O_NONBLOCK", "O_DSYNC", "O_DIRECT", "O_LARGEFILE", "O_DIRECTORY",
	"O_NOFOLLOW", "O_NOATIME", "O_CLOEXEC",
};
#define GENERIC_O_TMPFILE 0x400000u

static uint64_t flag_value(const char *text, const char *name)
{
	char key[32];
	const char *s, *b;

	snprintf(key, sizeof(key), "\"%s\" }", name);
	s = text ? strstr(text, key) : NULL;
	if (!s)
		return 0;
	for (b = s; b > text && *b != '{'; b--)
		;
	return *b == '{' ? strtoull(b + 1, NULL, 0) : 0;
}

static void open_table(struct kprog *p, const char *text)
{
	enum { N = sizeof(open_flags) / sizeof(open_flags[0]) };
	uint64_t *v = kprog_mem(p, N * sizeof(*v));

	for (int i = 1; i < N; i++)
		v[i] = flag_value(text, open_flags[i]);
	v[0] = v[12] ? GENERIC_O_TMPFILE | v[12] : 0;
	p->open_flags = v;
	p->sys_openat = v[3] && v[1] && v[2];	/* O_CREAT, O_WRONLY, O_RDWR found */
}

void ksys_compile(struct kprog *p, struct tep_event *e, const char *text)
{
	char pat[96];

	/* The arguments end where the user memory's fields begin. */
	p->sys_nargs = p->nfields - 1;
	for (int i = 1; i < p->nfields; i++) {
		const struct tep_format_field *f = p->fields[i];
		size_t n = strlen(f->name);

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || n < 7 || strncmp(f->name, "__", 2) ||
		    strcmp(f->name + n - 4, "_val"))
			continue;
		if (p->sys_nargs == p->nfields - 1)
			p->sys_nargs = i - 1;
		if (!p->sys_uval)
			p->sys_uval = kprog_mem(p, p->nfields * sizeof(*p->sys_uval));
		if (!p->sys_uarray)
			p->sys_uarray = kprog_mem(p, p->nfields * sizeof(*p->sys_uarray));
		int a = arg_field(p, f->name + 2, n - 6);

		if (!a)
			continue;
		p->sys_uval[a] = i;
		snprintf(pat, sizeof(pat), "__print_dynamic_array(%s,", f->name);
		p->sys_uarray[a] = text && strstr(text, pat);
	}
	sys_types(p, text);
	if (!strcmp(e->name, "sys_enter_openat") && p->sys_nargs == 4 && p->sys_uval &&
	    p->sys_uval[2])
		open_table(p, text);
}

static void value(struct fmt_line *o, const struct kenv *env, uint64_t v)
{
	/* Until 6.18 every value was "%lx"; since, small ones are decimal. */
	if (env->kver && env->kver < (6 << 8 | 18)) {
		knumber(o, v, 16, F_SMALL, -1, -1);
	} else if (v < SMALL) {
		knumber(o, v, 10, 0, -1, -1);
	} else {
		kput(o, "0x", 2);
		knumber(o, v, 16, F_SMALL, -1, -1);
	}
}

static bool printable(unsigned char ch)
{
	return ch >= 0x20 && ch < 0x7f;
}

/*
 * The user memory of argument a (its data_loc field): false when it lies
 * outside the record.  size is the size argument's value for a buffer.
 */
static bool user_mem(const struct kprog *p, struct ectx *c, int a, const uint8_t **mem,
		     uint32_t *len)
{
	const struct tep_format_field *f = p->fields[p->sys_uval[a]];
	uint32_t loc;

	if ((uint64_t)f->offset + 4 > c->r->size)
		return false;
	loc = (uint32_t)krd(c, c->r->data + f->offset, 4, false);
	*mem = c->r->data + (loc & 0xffff);
	*len = loc >> 16;
	return (loc & 0xffff) + (uint64_t)*len <= c->r->size;
}

static void user_string(struct fmt_line *o, const uint8_t *m, uint32_t len)
{
	kput(o, " \"", 2);
	kput(o, (const char *)m, strnlen((const char *)m, len));
	kput(o, "\"", 1);
}

static void user_buffer(struct fmt_line *o, const uint8_t *m, uint32_t len, uint64_t want)
{
	static const char hex[] = "0123456789abcdef";
	bool any = false;

	kput(o, " (", 2);
	for (uint32_t x = 0; x < len; x++) {
		char b[3] = { ':', hex[m[x] >> 4], hex[m[x] & 15] };

		kput(o, x ? b : b + 1, x ? 3 : 2);
		any |= printable(m[x]);
	}
	if (len < want)
		kput(o, ", ...", 5);
	kput(o, ")", 1);
	if (!any)
		return;
	kput(o, " \"", 2);
	for (uint32_t x = 0; x < len; x++)
		kput(o, printable(m[x]) ? (const char *)&m[x] : ".", 1);
	kput(o, len < want ? "\"..." : "\"", len < want ? 4 : 1);
}

static uint64_t arg(const struct kprog *p, struct ectx *c, int i)
{
	const struct tep_format_field *f = p->fields[i];

	return krd(c, c->r->data + f->offset, f->size, false);
}

/* sys_enter_openat_print(): not under verbose. */
static int openat(const struct kprog *p, struct ectx *c, struct fmt_line *o)
{
	kput(o, p->sysname, strlen(p->sysname));
	kput(o, "(", 1);
	for (int i = 1; i <= p->sys_nargs; i++) {
		const char *name = p->fields[i]->name;
		uint64_t v = arg(p, c, i), bits;
		const uint8_t *m;
		uint32_t len;
		bool first = true;

		if (i > 1)
			kput(o, ", ", 2);
		if (i == 3) {
			kput(o, "flags: ", 7);
			bits = v;
			if (!(v & 3)) {
				kput(o, v ? "O_RDONLY|" : "O_RDONLY", v ? 9 : 8);
			}
			for (size_t k = 0; k < sizeof(open_flags) / sizeof(open_flags[0]) && bits; k++) {
				uint64_t mask = p->open_flags[k];

				if (!mask || (bits & mask) != mask)
					continue;
				bits &= ~mask;
				if (!first)
					kput(o, "|", 1);
				first = false;
				kput(o, open_flags[k], strlen(open_flags[k]));
			}
			if (bits) {
				if (!first)
					kput(o, "|", 1);
				kput(o, "0x", 2);
				knumber(o, bits, 16, F_SMALL, -1, -1);
			}
			/* The mode only for a file it creates. */
			if (!(v & (p->open_flags[3] | p->open_flags[0])))
				break;
			continue;
		}
		kput(o, name, strlen(name));
		if (i == 4) {
			char b[16];

			kput(o, ": 0", 3);
			kput(o, b, snprintf(b, sizeof(b), "%03o", (unsigned)v));
			continue;
		}
		kput(o, ": ", 2);
		knumber(o, v, 10, 0, -1, -1);
		if (p->sys_uval[i]) {
			if (!user_mem(p, c, i, &m, &len))
				return KPROG_FAIL;
			user_string(o, m, len);
		}
	}
	kput(o, ")", 1);
	return KPROG_LINE;
}

int ksys_enter(const struct kprog *p, struct ectx *c, struct fmt_line *o)
{
	const struct kenv *env = c->env;

	for (int i = 1; i < p->nfields; i++)
		if ((uint64_t)p->fields[i]->offset + p->fields[i]->size > c->r->size)
			return KPROG_FAIL;
	if (p->sys_openat && !env->verbose)
		return openat(p, c, o);
	kput(o, p->sysname, strlen(p->sysname));
	kput(o, "(", 1);
	for (int i = 1; i <= p->sys_nargs; i++) {
		const char *name = p->fields[i]->name;
		const uint8_t *m;
		uint32_t len;

		if (i > 1)
			kput(o, ", ", 2);
		/* verbose: each argument's type before it ("unsigned int fd: 4"). */
		if (env->verbose && p->types) {
			kput(o, p->types[i], strlen(p->types[i]));
			kput(o, " ", 1);
		}
		kput(o, name, strlen(name));
		kput(o, ": ", 2);
		value(o, env, arg(p, c, i));
		if (!p->sys_uval || !p->sys_uval[i])
			continue;
		if (!user_mem(p, c, i, &m, &len))
			return KPROG_FAIL;
		/* A buffer's size is the argument after it (buf, count). */
		if (p->sys_uarray[i])
			user_buffer(o, m, len, i < p->sys_nargs ? arg(p, c, i + 1) : len);
		else
			user_string(o, m, len);
	}
	kput(o, ")", 1);
	return KPROG_LINE;
}
