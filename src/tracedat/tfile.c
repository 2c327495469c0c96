// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trace.dat reader, metadata half: the initial header, v6's fixed
 * sequence of parts, v7's options sections and the sections they point to
 * (decompressed when flagged), and the tep handle built from them.
 *
 * Note that every number read from the file is a length or an offset an
 * attacker controls: each read goes through struct rd, which checks it
 * against the bytes that are really there before touching them, and
 * allocations are bounded by the TFILE_MAX_* limits.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "tfile-local.h"

static const char magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

enum opt_id {
	OPT_DONE, OPT_DATE, OPT_CPUSTAT, OPT_BUFFER, OPT_TRACECLOCK, OPT_UNAME, OPT_HOOK,
	OPT_OFFSET, OPT_CPUCOUNT, OPT_VERSION, OPT_PROCMAPS, OPT_TRACEID, OPT_TIME_SHIFT,
	OPT_GUEST, OPT_TSC2NSEC, OPT_STRINGS, OPT_HEADER_INFO, OPT_FTRACE_EVENTS,
	OPT_EVENT_FORMATS, OPT_KALLSYMS, OPT_PRINTK, OPT_CMDLINES, OPT_BUFFER_TEXT,
	/* trace-cmd 3.4's: the kernel's BTF, an instance's last_boot_info, /proc/modules. */
	OPT_BTF_FILE, OPT_LAST_BOOT_INFO, OPT_MODULES_FILE, OPT_MAX
};

static const char *const opt_names[OPT_MAX] = {
	"done", "date", "cpustat", "buffer", "traceclock", "uname", "hook", "offset",
	"cpucount", "version", "procmaps", "traceid", "time_shift", "guest", "tsc2nsec",
	"strings", "header_info", "ftrace_events", "event_formats", "kallsyms", "printk",
	"cmdlines", "buffer_text", "btf_file", "last_boot_info", "modules_file",
};

int tfile_bad(const struct tfile *tf, int err, uint64_t off, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	(void)off;
	return tr_fail(err, "'%s': %s", tf->path, msg);
}

/*
 * A bounded reader over part of the file (or over a decompressed section).
 * The first failure is remembered; later reads return zeros, so a parse can
 * read a whole structure and check r->err once.
 */
struct rd {
	const struct tfile *tf;
	const uint8_t *p;
	uint64_t len, pos;
	uint64_t file_off;	/* file offset of p[0]; of the section if unzipped */
	bool unzipped;
	const char *what;	/* "the event formats" */
	int err;
};

static void rd_init(struct rd *r, const struct tfile *tf, uint64_t off, uint64_t len,
		    const char *what)
{
	/* An empty file is not mapped: no pointer arithmetic on NULL. */
	*r = (struct rd){ .tf = tf, .p = tf->map ? tf->map + off : tf->map, .len = len,
			  .file_off = off, .what = what };
}

static int rd_fail(struct rd *r, uint64_t n)
{
	if (r->err)
		return r->err;
	if (r->unzipped)
		r->err = tfile_bad(r->tf, -EBADMSG,
				   0, "corrupt data in %s (section at offset %llu, byte %llu of %llu "
				   "decompressed)", r->what, (unsigned long long)r->file_off,
				   (unsigned long long)r->pos, (unsigned long long)r->len);
	else if (r->file_off + r->len >= r->tf->size && r->file_off + r->pos + n > r->tf->size)
		r->err = tfile_bad(r->tf, -EBADMSG, 0, "truncated at offset %llu (in %s)",
				   (unsigned long long)r->tf->size, r->what);
	else
		r->err = tfile_bad(r->tf, -EBADMSG, 0,
				   "corrupt %s at offset %llu: a length runs past its end", r->what,
				   (unsigned long long)(r->file_off + r->pos));
	return r->err;
}

static const uint8_t *rd_take(struct rd *r, uint64_t n)
{
	const uint8_t *p;

	if (r->err || n > r->len - r->pos) {
		rd_fail(r, n);
		return NULL;
	}
	p = r->p + r->pos;
	r->pos += n;
	return p;
}

static uint64_t swap_n(const struct tfile *tf, const uint8_t *p, int n)
{
	return p ? tfile_get(p, n, tf->info.big_endian) : 0;
}

static uint16_t rd_u16(struct rd *r) { return swap_n(r->tf, rd_take(r, 2), 2); }
static uint32_t rd_u32(struct rd *r) { return swap_n(r->tf, rd_take(r, 4), 4); }
static uint64_t rd_u64(struct rd *r) { return swap_n(r->tf, rd_take(r, 8), 8); }

/* A NUL-terminated string within the reader; "" after a failure. */
static const char *rd_str(struct rd *r)
{
	const uint8_t *s = r->p + r->pos, *nul;

	if (r->err)
		return "";
	nul = memchr(s, 0, r->len - r->pos);
	if (!nul) {
		rd_fail(r, r->len - r->pos + 1);
		return "";
	}
	r->pos += nul - s + 1;
	return (const char *)s;
}

/*
 * Copies of what the file holds are as large as the file says (a peer's
 * metadata reaches 256 MB in tr listen): their failure is the file's
 * error, -ENOMEM (tf->nomem, seen at the end of each option and of the
 * open), not an abort of the process reading it.
 */
static void *tf_alloc(struct tfile *tf, size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		tf->nomem = true;
	return p;
}

static int nomem_err(struct tfile *tf)
{
	return tfile_bad(tf, -ENOMEM, 0, "out of memory for its metadata (%llu bytes)",
			 (unsigned long long)tf->size);
}

/* A string option's data: up to the first NUL or the end; NULL (tf->nomem) without memory. */
static char *dup_opt_str(struct tfile *tf, const uint8_t *p, uint32_t n)
{
	const uint8_t *nul = memchr(p, 0, n);
	char *s = tf_alloc(tf, (nul ? (size_t)(nul - p) : n) + 1);

	if (!s)
		return NULL;
	memcpy(s, p, nul ? (size_t)(nul - p) : n);
	s[nul ? nul - p : n] = '\0';
	return s;
}

/* "clock-pairing T B M R T B M R" (rec.h): start and end; anything else is ignored. */
static void parse_clock_pairing(struct tfile *tf, const uint8_t *p, uint32_t n)
{
	char *s = dup_opt_str(tf, p, n);
	struct tfile_clocks *c = &tf->info.clocks;
	unsigned long long v[8];
	int end = 0;

	if (s && sscanf(s, "clock-pairing %llu %llu %llu %llu %llu %llu %llu %llu%n", &v[0], &v[1],
		   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &end) == 8 && !s[end]) {
		for (int i = 0; i < 2; i++) {
			c->trace[i] = v[4 * i];
			c->boot[i] = v[4 * i + 1];
			c->mono[i] = v[4 * i + 2];
			c->real[i] = v[4 * i + 3];
		}
		c->valid = true;
	}
	free(s);
}

/* Copy n bytes and NUL-terminate: tep's text parsers want C strings.  NULL: tf->nomem. */
static char *dup_text(struct tfile *tf, const uint8_t *p, uint64_t n)
{
	char *s = n < SIZE_MAX ? tf_alloc(tf, n + 1) : NULL;

	if (!s)
		return NULL;
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

/* ---- the parts every version has, read from r ---- */

static int parse_header_info(struct tfile *tf, struct rd *r)
{
	const uint8_t *name, *text;
	uint64_t n;

	name = rd_take(r, 12);
	if (name && memcmp(name, "header_page", 12))
		return tfile_bad(tf, -EBADMSG, 0, "corrupt header at offset %llu (no header_page)",
				 (unsigned long long)(r->file_off + r->pos - 12));
	n = rd_u64(r);
	text = rd_take(r, n);
	if (r->err)
		return r->err;
	if (n > 65536)
		return tfile_bad(tf, -EBADMSG, 0, "corrupt header_page (%llu bytes)",
				 (unsigned long long)n);
	free(tf->header_page);
	tf->header_page = dup_text(tf, text, n);
	tf->header_page_len = tf->header_page ? n : 0;
	tfile_tep_header_page(tf->tep, (const char *)text, n, tf->info.long_size);
	name = rd_take(r, 13);
	if (name && memcmp(name, "header_event", 13))
		return tfile_bad(tf, -EBADMSG, 0, "corrupt header at offset %llu (no header_event)",
				 (unsigned long long)(r->file_off + r->pos - 13));
	n = rd_u64(r);
	text = rd_take(r, n);
	if (r->err)
		return r->err;
	if (n > 65536)
		return tfile_bad(tf, -EBADMSG, 0, "corrupt header_event (%llu bytes)",
				 (unsigned long long)n);
	free(tf->header_event);
	tf->header_event = dup_text(tf, text, n);
	tf->header_event_len = tf->header_event ? n : 0;
	return 0;
}

/* Parsed under a name without its dots, then given back its own name. */
int tfile_parse_event(struct tep_handle *tep, const char *buf, size_t n, const char *sys)
{
	enum tep_errno e = tep_parse_event(tep, buf, n, sys);
	const char *name = buf + 6, *eol, *idl;
	struct tep_event *ev;
	char *copy;
	int id;

	if (!e || n < 6 || strncmp(buf, "name: ", 6) || !(eol = memchr(buf, '\n', n)) ||
	    !memchr(name, '.', eol - name) || !(idl = memmem(buf, n, "\nID: ", 5)) ||
	    sscanf(idl + 5, "%d", &id) != 1)
		return e;
	copy = malloc(n);
	if (!copy)
		return e;
	memcpy(copy, buf, n);
	for (char *c = copy + 6; c < copy + (eol - buf); c++)
		if (*c == '.')
			*c = '_';
	e = tep_parse_event(tep, copy, n, sys);
	free(copy);
	ev = e ? NULL : tep_find_event(tep, id);
	if (ev) {
		free(ev->name);
		ev->name = xasprintf("%.*s", (int)(eol - name), name);
	}
	return e;
}

/* The "ID: N" line of a format text, or -1. */
static int format_id(const char *p, size_t n)
{
	const char *l = memmem(p, n, "\nID: ", 5);
	long id = -1;

	if (l) {
		char buf[16];
		size_t k = 0;

		for (l += 5; k < sizeof(buf) - 1 && l < p + n && *l >= '0' && *l <= '9'; l++)
			buf[k++] = *l;
		buf[k] = '\0';
		if (k && k < 6)
			id = strtol(buf, NULL, 10);
	}
	return id <= 0xffff ? (int)id : -1;
}

static int add_format(struct tfile *tf, const char *sys, const uint8_t *p, uint64_t n,
		      bool lazy)
{
	int id = lazy ? format_id((const char *)p, n) : -1;

	if (id >= 0) {
		struct tfile_lazy *l;

		tf->lazy = xrealloc(tf->lazy, (tf->nlazy + 1) * sizeof(*tf->lazy));
		l = &tf->lazy[tf->nlazy++];
		l->id = id;
		l->sys = xstrdup(sys);
		l->text = dup_text(tf, p, n);
		l->len = n;
	} else {
		tfile_tep_add_format(tf->tep, sys, (const char *)p, n, true);
	}
	tf->info.nformats++;
	if (tf->flags & TFILE_KEEP_FORMATS) {
		char *s = tf_alloc(tf, strlen(sys) + n + 2);

		if (!s)
			return -ENOMEM;
		sprintf(s, "%s\n", sys);
		memcpy(s + strlen(sys) + 1, p, n);
		s[strlen(sys) + 1 + n] = '\0';
		strv_push_owned(&tf->formats, s);
	}
	return 0;
}

static int parse_ftrace_events(struct tfile *tf, struct rd *r)
{
	uint32_t count = rd_u32(r);

	for (uint32_t i = 0; i < count && !r->err; i++) {
		uint64_t n = rd_u64(r);
		const uint8_t *p = rd_take(r, n);

		if (p)
			add_format(tf, "ftrace", p, n, false);
	}
	return r->err;
}

static int parse_event_formats(struct tfile *tf, struct rd *r)
{
	uint32_t nsys = rd_u32(r);

	for (uint32_t i = 0; i < nsys && !r->err; i++) {
		const char *sys = rd_str(r);
		uint32_t count = rd_u32(r);

		for (uint32_t j = 0; j < count && !r->err; j++) {
			uint64_t n = rd_u64(r);
			const uint8_t *p = rd_take(r, n);

			if (p)
				add_format(tf, sys, p, n, tf->flags & TFILE_LAZY_FORMATS);
		}
	}
	return r->err;
}

static void lazy_parse(struct tfile *tf, struct tfile_lazy *l)
{
	tfile_tep_add_format(tf->tep, l->sys, l->text, l->len, true);
	free(l->sys);
	free(l->text);
	l->sys = l->text = NULL;
}

int tfile_load_event(struct tfile *tf, int id)
{
	/* Once per event id met: a walk of some thousand is nothing beside its parse. */
	for (size_t i = 0; i < tf->nlazy; i++)
		if (tf->lazy[i].id == id && tf->lazy[i].text)
			lazy_parse(tf, &tf->lazy[i]);
	return tep_find_event(tf->tep, id) ? 0 : -ENOENT;
}

void tfile_load_events(struct tfile *tf)
{
	for (size_t i = 0; i < tf->nlazy; i++)
		if (tf->lazy[i].text)
			lazy_parse(tf, &tf->lazy[i]);
}

/* A "\tfield:TYPE NAME[N];" line's NAME. */
static bool field_has(const char *line, const char *end, const char *part)
{
	const char *semi = memchr(line, ';', end - line), *b, *nm;

	if (!semi)
		return false;
	b = semi;
	while (b > line && b[-1] == ']')
		while (b > line && *--b != '[')
			;
	for (nm = b; nm > line && (isalnum((unsigned char)nm[-1]) || nm[-1] == '_'); nm--)
		;
	return memmem(nm, b - nm, part, strlen(part)) != NULL;
}

bool tfile_has_field(struct tfile *tf, const char *part)
{
	int n = tep_get_events_count(tf->tep);

	/*
	 * By index, not tep_list_events(): that list is made once and kept,
	 * without the events parsed since (the lazy ones), whose texts are gone.
	 */
	for (int i = 0; i < n; i++) {
		struct tep_event *e = tep_get_event(tf->tep, i);

		for (struct tep_format_field *f = e ? e->format.fields : NULL; f; f = f->next)
			if (strstr(f->name, part))
				return true;
	}
	for (size_t i = 0; i < tf->nlazy; i++) {
		const char *t = tf->lazy[i].text, *end, *l;

		for (l = t; l && *l; l = end ? end + 1 : NULL) {
			end = strchr(l, '\n');
			if (!end)
				end = l + strlen(l);
			if (!strncmp(l, "\tfield:", 7) && field_has(l, end, part))
				return true;
			if (!*end)
				break;
		}
	}
	return false;
}

static int parse_kallsyms(struct tfile *tf, struct rd *r)
{
	uint32_t n = rd_u32(r);
	const uint8_t *p = rd_take(r, n);

	tf->kallsyms_at = tf->kallsyms_len = 0;
	if (p && n && !r->unzipped && tf->map) {
		tf->kallsyms_at = r->file_off + (uint64_t)(p - r->p);
		tf->kallsyms_len = n;
	}
	if (p && n && !(tf->flags & TFILE_NO_KALLSYMS)) {
		free(tf->kallsyms);
		tf->kallsyms = dup_text(tf, p, n);
		tf->kallsyms_loaded = false;
	}
	return r->err;
}

/*
 * The printk formats, "ADDR : \"TEXT\"" a line, registered one by one:
 * tep_parse_printk_formats and tep_register_print_string read before
 * their buffer on a short or unquoted line, so only well-formed ones
 * reach libtraceevent.
 */
static void add_printk(struct tfile *tf, const char *p, size_t n)
{
	const char *end = p + n;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end;
		const char *colon = memchr(p, ':', le - p), *q;
		unsigned long long addr;
		char *e, *text;
		size_t len;

		if (!colon)
			goto next;
		errno = 0;
		addr = strtoull(p, &e, 16);
		if (errno || e == p || e > colon)
			goto next;
		for (q = colon + 1; q < le && *q == ' '; q++)
			;
		if (q >= le || *q != '"' || le - q < 2 || le[-1] != '"')
			goto next;
		len = le - q - 2;
		/*
		 * Handed over with a closing quote again, which libtraceevent
		 * strips: its "\\n" test then stays inside the string.
		 */
		if (len < 2 || q[1] == '"' || memchr(q + 1, '\0', len))
			goto next;
		text = tf_alloc(tf, len + 2);
		if (!text)
			return;
		memcpy(text, q + 1, len);
		memcpy(text + len, "\"", 2);
		tep_register_print_string(tf->tep, text, addr);
		free(text);
next:
		p = nl ? nl + 1 : end;
	}
}

static int parse_printk(struct tfile *tf, struct rd *r)
{
	uint32_t n = rd_u32(r);
	const uint8_t *p = rd_take(r, n);

	if (p && n) {
		/* A copy for the kernel's printer (strings %s prints by address). */
		free(tf->printk);
		tf->printk = dup_text(tf, p, n);
		add_printk(tf, (const char *)p, n);
	}
	return r->err;
}

static int parse_cmdlines(struct tfile *tf, struct rd *r)
{
	uint64_t n = rd_u64(r);
	const uint8_t *p = rd_take(r, n);

	if (p) {
		free(tf->cmdlines);
		tf->cmdlines = dup_text(tf, p, n);
	}
	return r->err;
}

void tfile_cmdlines_each(const char *text, void (*fn)(void *arg, int pid, const char *comm,
						       size_t len), void *arg)
{
	while (text && *text) {
		const char *nl = strchrnul(text, '\n'), *p = text;
		long pid = 0;

		/* By hand: strtol would skip the newlines of empty lines, and rescan them. */
		while (p < nl && *p >= '0' && *p <= '9' && pid <= INT32_MAX)
			pid = pid * 10 + (*p++ - '0');
		if (p > text && p < nl && *p == ' ' && pid > 0 && pid <= INT32_MAX && p + 1 < nl &&
		    nl - p - 1 <= 255)
			fn(arg, (int)pid, p + 1, nl - p - 1);
		text = *nl ? nl + 1 : nl;
	}
}

static void register_comm(void *arg, int pid, const char *comm, size_t len)
{
	char name[256];

	memcpy(name, comm, len);
	name[len] = '\0';
	tep_register_comm(arg, name, pid);
}

void tfile_load_kallsyms(struct tfile *tf)
{
	if (!tf->kallsyms || tf->kallsyms_loaded)
		return;
	tep_parse_kallsyms(tf->tep, tf->kallsyms);
	/* Kept: the kernel's printer indexes them itself (tfile_kallsyms). */
	tf->kallsyms_loaded = true;
}

bool tfile_kallsyms_extent(const struct tfile *tf, uint64_t *off, uint64_t *len)
{
	*off = tf->kallsyms_at;
	*len = tf->kallsyms_len;
	return tf->kallsyms_len;
}

const char *tfile_kallsyms(struct tfile *tf)
{
	tfile_load_kallsyms(tf);
	return tf->kallsyms;
}

const char *tfile_kallsyms_text(const struct tfile *tf) { return tf->kallsyms; }

const char *tfile_printk(const struct tfile *tf) { return tf->printk; }

const char *tfile_format(const struct tfile *tf, const char *system, const char *name)
{
	size_t sl = strlen(system), nl = strlen(name);

	for (size_t i = 0; i < tf->formats.n; i++) {
		const char *f = tf->formats.v[i], *n;

		if (strncmp(f, system, sl) || f[sl] != '\n')
			continue;
		n = f + sl + 1;
		if (!strncmp(n, "name: ", 6) && !strncmp(n + 6, name, nl) && n[6 + nl] == '\n')
			return n;
	}
	return NULL;
}

/* ---- options (both versions) ---- */

static struct tfile_buffer *add_buffer(struct tfile *tf)
{
	struct tfile_buffer *b;

	if (tf->nbuffers >= 4096)
		return NULL;
	tf->buffers = xrealloc(tf->buffers, (tf->nbuffers + 1) * sizeof(*tf->buffers));
	b = &tf->buffers[tf->nbuffers++];
	*b = (struct tfile_buffer){ .page_size = tf->info.page_size };
	return b;
}

/*
 * Count CPU entries against a limit for the whole file: many buffer options
 * may point at the same big table, and each would be a copy.
 */
static int take_cpus(struct tfile *tf, int n)
{
	if (n < 0 || n > TFILE_MAX_CPUS - tf->ncpu_entries)
		return tfile_bad(tf, -EBADMSG, 0, "corrupt options: more than %d CPU buffers",
				 TFILE_MAX_CPUS);
	tf->ncpu_entries += n;
	return 0;
}

/* The v6 "flyrecord" CPU table: ncpus pairs of (offset, size). */
static int read_cpu_table(struct tfile *tf, struct rd *r, struct tfile_buffer *b, int ncpus)
{
	int err = take_cpus(tf, ncpus);

	if (err)
		return err;
	b->cpus = xcalloc(ncpus ? ncpus : 1, sizeof(*b->cpus));
	b->ncpus = ncpus;
	for (int i = 0; i < ncpus && !r->err; i++) {
		b->cpus[i].cpu = i;
		b->cpus[i].offset = rd_u64(r);
		b->cpus[i].size = rd_u64(r);
	}
	(void)tf;
	return r->err;
}

struct v7_offsets {
	uint64_t sect[OPT_MAX];
	bool have[OPT_MAX];
};

/* v7's options that only say where a section is. */
static bool is_section_ptr(uint16_t id)
{
	return (id >= OPT_HEADER_INFO && id <= OPT_CMDLINES) || id == OPT_BTF_FILE ||
	       id == OPT_MODULES_FILE;
}

/* Note a part of the file for tfile_sections() (at most 4096: a hostile file may hold more). */
static void note_section(struct tfile *tf, char *name, int id, uint64_t off, uint64_t size,
			 uint64_t usize, bool compressed)
{
	if (tf->nsections >= 4096) {
		free(name);
		return;
	}
	tf->sections = xrealloc(tf->sections, (tf->nsections + 1) * sizeof(*tf->sections));
	tf->sections[tf->nsections++] = (struct tfile_section){ name, id, off, size, usize,
								compressed };
}

static void note_option(struct tfile *tf, uint16_t id)
{
	char unknown[32];
	const char *name = id < OPT_MAX ? opt_names[id] : NULL;

	if (!name) {
		snprintf(unknown, sizeof(unknown), "option-%u", id);
		name = unknown;
	}
	if (!strv_contains(&tf->info.options, name))
		strv_push(&tf->info.options, name);
}

static int parse_option(struct tfile *tf, uint16_t id, const uint8_t *p, uint32_t n,
			uint64_t off, struct v7_offsets *v7)
{
	struct rd r = { .tf = tf, .p = p, .len = n, .file_off = off, .what = "an option" };
	struct tfile_buffer *b;
	char *s;

	note_option(tf, id);
	if (tf->noptents < 65536) {
		tf->optents = xrealloc(tf->optents, (tf->noptents + 1) * sizeof(*tf->optents));
		tf->optents[tf->noptents++] = (struct tfile_optent){
			id, id < OPT_MAX ? opt_names[id] : NULL, off, n };
	}
	if (id != OPT_BUFFER && id != OPT_BUFFER_TEXT && id != OPT_CPUCOUNT && id != OPT_STRINGS &&
	    !is_section_ptr(id) && tf->nrawopts < 4096) {
		struct tfile_rawopt *o;

		tf->rawopts = xrealloc(tf->rawopts, (tf->nrawopts + 1) * sizeof(*tf->rawopts));
		o = &tf->rawopts[tf->nrawopts++];
		o->id = id;
		o->len = n;
		o->data = tf_alloc(tf, n);
		if (!o->data) {
			tf->nrawopts--;
			return nomem_err(tf);
		}
		memcpy(o->data, p, n);
	}
	switch (id) {
	case OPT_DATE:
	case OPT_OFFSET: {
		char *end;
		long long v;

		s = dup_opt_str(tf, p, n);
		if (!s)
			return nomem_err(tf);
		v = strtoll(s, &end, 0);
		/*
		 * DATE is in microseconds, OFFSET in nanoseconds.  An offset past
		 * what 64 bits hold is no clock's: the option is ignored.
		 */
		if (end != s && (id != OPT_DATE || !__builtin_mul_overflow(v, 1000, &v)) &&
		    __builtin_add_overflow(tf->info.ts_offset, v, &v) == 0)
			tf->info.ts_offset = v;
		free(s);
		return 0;
	}
	case OPT_CPUSTAT:
		s = dup_opt_str(tf, p, n);
		if (!s)
			return nomem_err(tf);
		strv_push_owned(&tf->info.cpustats, s);
		return 0;
	case OPT_TRACECLOCK:
		free(tf->info.clock);
		tf->info.clock = dup_opt_str(tf, p, n);
		if (!tf->info.clock)
			return nomem_err(tf);
		str_rstrip(tf->info.clock);
		return 0;
	case OPT_LAST_BOOT_INFO: {
		/* "INSTANCE:TEXT", NUL-terminated by trace-cmd 3.4; the first one counts. */
		const uint8_t *colon = memchr(p, ':', n);
		size_t tn;

		if (tf->has_last_boot)
			return 0;
		tf->has_last_boot = true;
		if (!colon) {
			tf->last_boot_bad = xstrdup("its LAST_BOOT_INFO option names no instance");
			return 0;
		}
		tf->last_boot_name = xasprintf("%.*s", (int)(colon - p), (const char *)p);
		tn = n - (colon + 1 - p);
		if (tn && !colon[tn])
			tn--;
		if (tfs_last_boot_parse((const char *)colon + 1, tn, &tf->last_boot))
			tf->last_boot_bad = xstrdup(tr_failure());
		return 0;
	}
	case OPT_UNAME:
		free(tf->info.uname);
		tf->info.uname = dup_opt_str(tf, p, n);
		return tf->info.uname ? 0 : nomem_err(tf);
	case OPT_VERSION: {
		size_t len;

		free(tf->info.tracer_version);
		tf->info.tracer_version = dup_opt_str(tf, p, n);
		if (!tf->info.tracer_version)
			return nomem_err(tf);
		/* tr's: the text-shaping options after the version's NUL (tfw.h). */
		len = strlen(tf->info.tracer_version);
		free(tf->info.graph_opts);
		tf->info.graph_opts = NULL;
		if (!strncmp(tf->info.tracer_version, "tr ", 3) && len + 1 < n) {
			const uint8_t *q = p + len + 1, *nul = memchr(q, 0, n - len - 1);

			if (*q)
				tf->info.graph_opts = dup_opt_str(tf, q, n - len - 1);
			/* Then strings named by their first word (tfw.h), in any order. */
			while (nul && (size_t)(nul + 1 - p) < n) {
				const uint8_t *s = nul + 1;
				uint32_t left = n - (uint32_t)(s - p);

				nul = memchr(s, 0, left);
				if (left > 14 && !memcmp(s, "clock-pairing ", 14)) {
					parse_clock_pairing(tf, s, left);
				} else if (left >= 12 && !memcmp(s, "saved_tgids\n", 12)) {
					free(tf->tgids);
					tf->tgids = dup_opt_str(tf, s + 12, left - 12);
				}
			}
		}
		return 0;
	}
	case OPT_CPUCOUNT:
		if (n >= 4) {
			uint32_t cpus = swap_n(tf, p, 4);

			/* As v6's header: no machine has more (0xffffffff printed cpus=-1). */
			if (cpus > TFILE_MAX_CPUS)
				return tfile_bad(tf, -EBADMSG, 0,
						 "corrupt option CPUCOUNT at offset %llu (%u cpus)",
						 (unsigned long long)off, cpus);
			tf->info.cpus = cpus;
		}
		return 0;
	case OPT_TRACEID:
		/* As trace-cmd: a shorter one says nothing. */
		if (n >= 8) {
			tf->info.has_trace_id = true;
			tf->info.trace_id = swap_n(tf, p, 8);
		}
		return 0;
	case OPT_TIME_SHIFT: {
		struct tfile_tsync t;
		char why[128];

		/* As trace-cmd: one without room for its header says nothing. */
		if (n < 16)
			return 0;
		if (tfile_tsync_parse(p, n, tf->info.big_endian, &t, why, sizeof(why)))
			return tfile_bad(tf, -EBADMSG, 0, "corrupt option TIME_SHIFT at offset %llu: %s",
					 (unsigned long long)off, why);
		/* A later one replaces an earlier one, as in trace-cmd. */
		if (!tf->info.tsync)
			tf->info.tsync = xcalloc(1, sizeof(*tf->info.tsync));
		tfile_tsync_free(tf->info.tsync);
		*tf->info.tsync = t;
		return 0;
	}
	case OPT_GUEST: {
		struct tfile_guest g;

		/* Only names a guest: a malformed one is left out, as trace-cmd does. */
		if (tf->info.nguests < 4096 && !tfile_guest_parse(p, n, tf->info.big_endian, &g)) {
			tf->info.guests = xrealloc(tf->info.guests, (tf->info.nguests + 1) *
								    sizeof(*tf->info.guests));
			tf->info.guests[tf->info.nguests++] = g;
		}
		return 0;
	}
	case OPT_PROCMAPS: {
		struct tfile_procmap m;
		char why[96];

		/* Only names objects: a malformed one is left out, as trace-cmd does. */
		if (tf->info.nprocmaps < 65536 &&
		    !tfile_procmap_parse((const char *)p, n, &m, why, sizeof(why))) {
			tf->info.procmaps = xrealloc(tf->info.procmaps, (tf->info.nprocmaps + 1) *
									sizeof(*tf->info.procmaps));
			tf->info.procmaps[tf->info.nprocmaps++] = m;
		}
		return 0;
	}
	case OPT_TSC2NSEC:
		if (n >= 16) {
			tf->tsc2nsec = true;
			tf->tsc_mult = swap_n(tf, p, 4);
			tf->tsc_shift = swap_n(tf, p + 4, 4);
			tf->tsc_offset = swap_n(tf, p + 8, 8);
			if (tf->tsc_shift > 63)
				tf->tsc2nsec = false;
			tf->info.tsc2nsec = tf->tsc2nsec;
		}
		return 0;
	case OPT_BUFFER:
	case OPT_BUFFER_TEXT: {
		uint64_t where = rd_u64(&r);

		b = add_buffer(tf);
		if (!b)
			return tfile_bad(tf, -EBADMSG, off, "corrupt options: too many buffers");
		b->name = xstrdup(rd_str(&r));
		if (tf->info.version < 7) {
			/* v6: the offset holds "flyrecord\0" and the CPU table. */
			struct rd t;

			if (r.err)
				return r.err;
			if (where > tf->size)
				return tfile_bad(tf, -EBADMSG, 0,
						 "truncated at offset %llu (buffer '%s' is at %llu)",
						 (unsigned long long)tf->size, b->name,
						 (unsigned long long)where);
			rd_init(&t, tf, where, tf->size - where, "a buffer's CPU table");
			p = rd_take(&t, 10);
			if (p && memcmp(p, "flyrecord", 10))
				return tfile_bad(tf, -EBADMSG, 0,
						 "corrupt buffer '%s' at offset %llu (no flyrecord)",
						 b->name, (unsigned long long)where);
			return t.err ? t.err : read_cpu_table(tf, &t, b, tf->info.cpus);
		}
		b->clock = xstrdup(rd_str(&r));
		if (id == OPT_BUFFER_TEXT) {
			b->latency = true;
			b->text_offset = where;
			return r.err;
		}
		b->page_size = rd_u32(&r);
		b->ncpus = rd_u32(&r);
		if (r.err)
			return r.err;
		if (b->ncpus > (int)(n / 20) || b->ncpus < 0) {
			b->ncpus = 0;
			return tfile_bad(tf, -EBADMSG, 0, "corrupt buffer option at offset %llu",
					 (unsigned long long)off);
		}
		if (take_cpus(tf, b->ncpus)) {
			b->ncpus = 0;
			return -EBADMSG;
		}
		b->cpus = xcalloc(b->ncpus ? b->ncpus : 1, sizeof(*b->cpus));
		for (int i = 0; i < b->ncpus; i++) {
			b->cpus[i].cpu = rd_u32(&r);
			b->cpus[i].offset = rd_u64(&r);
			b->cpus[i].size = rd_u64(&r);
		}
		/* The section header is checked when the data is first read. */
		b->text_offset = where;
		return r.err;
	}
	default:
		if (v7 && is_section_ptr(id)) {
			if (n < 8)
				return tfile_bad(tf, -EBADMSG, 0, "corrupt option at offset %llu",
						 (unsigned long long)off);
			v7->sect[id] = swap_n(tf, p, 8);
			v7->have[id] = true;
		}
		return 0;
	}
}

/* ---- v6 ---- */

static int open_v6(struct tfile *tf, struct rd *r)
{
	const uint8_t *tag;
	struct tfile_buffer *top;
	int err;

	static const struct {
		const char *what;
		int (*parse)(struct tfile *, struct rd *);
	} parts[] = {
		{ "the header page", parse_header_info },
		{ "the ftrace event formats", parse_ftrace_events },
		{ "the event formats", parse_event_formats },
		{ "the kallsyms", parse_kallsyms },
		{ "the printk formats", parse_printk },
		{ "the saved cmdlines", parse_cmdlines },
	};

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		uint64_t at = r->pos;

		r->what = parts[i].what;
		if ((err = parts[i].parse(tf, r)))
			return err;
		note_section(tf, xstrdup(parts[i].what + 4), -1, at, r->pos - at, r->pos - at,
			     false);
	}
	r->what = "the file header";
	tf->info.cpus = rd_u32(r);
	if (!r->err && (tf->info.cpus > TFILE_MAX_CPUS))
		return tfile_bad(tf, -EBADMSG, 0, "corrupt header at offset %llu (%d cpus)",
				 (unsigned long long)(r->pos - 4), tf->info.cpus);
	top = add_buffer(tf);
	top->name = xstrdup("");
	tag = rd_take(r, 10);
	if (tag && !memcmp(tag, "options  ", 10)) {
		uint64_t at = r->pos - 10;

		r->what = "the options";
		for (;;) {
			uint16_t id = rd_u16(r);
			uint32_t n;
			const uint8_t *p;

			if (r->err || !id)
				break;
			n = rd_u32(r);
			p = rd_take(r, n);
			if (p && (err = parse_option(tf, id, p, n, r->pos - n, NULL)))
				return err;
			/* Buffers from options may have moved the array. */
			top = &tf->buffers[0];
		}
		note_section(tf, xstrdup("options"), -1, at, r->pos - at, r->pos - at, false);
		r->what = "the file header";
		tag = rd_take(r, 10);
	}
	if (r->err)
		return r->err;
	top->clock = xstrdup(tf->info.clock ? tf->info.clock : "");
	if (!memcmp(tag, "latency  ", 10)) {
		top->latency = true;
		top->text_offset = r->pos;
		top->text_size = r->len - r->pos;
		return 0;
	}
	if (memcmp(tag, "flyrecord", 10))
		return tfile_bad(tf, -EBADMSG, 0, "corrupt header at offset %llu (no flyrecord)",
				 (unsigned long long)(r->pos - 10));
	return read_cpu_table(tf, r, top, tf->info.cpus);
}

/* ---- v7 ---- */

/*
 * Read the section at off, which must have id want: its data (decompressed
 * into *owned if flagged) in *rd.
 */
/* How section_at() reads: leave it out of tfile_sections() (read before), or only check it. */
enum { SECT_NO_NOTE = 1, SECT_PEEK = 2 };

static int section_at(struct tfile *tf, uint64_t off, uint16_t want, const char *what,
		      struct rd *out, void **owned, unsigned how)
{
	struct rd h;
	uint16_t id, flags;
	uint64_t size;

	*owned = NULL;
	if (off >= tf->size)
		return tfile_bad(tf, -EBADMSG, 0, "truncated at offset %llu (%s should be at %llu)",
				 (unsigned long long)tf->size, what, (unsigned long long)off);
	rd_init(&h, tf, off, tf->size - off, what);
	id = rd_u16(&h);
	flags = rd_u16(&h);
	rd_u32(&h);
	size = rd_u64(&h);
	if (h.err)
		return h.err;
	if (id != want)
		return tfile_bad(tf, -EBADMSG, 0,
				 "corrupt section at offset %llu: id %u where %s should be",
				 (unsigned long long)off, id, what);
	if (size > h.len - h.pos)
		return tfile_bad(tf, -EBADMSG, 0, "truncated at offset %llu (in %s)",
				 (unsigned long long)tf->size, what);
	rd_init(out, tf, off + h.pos, size, what);
	if (!(how & SECT_NO_NOTE))
		note_section(tf, xstrdup(what + (strncmp(what, "the ", 4) ? 0 : 4)), id, off,
			     h.pos + size,
			     (flags & 1) && size >= 8 ? swap_n(tf, out->p + 4, 4) : size, flags & 1);
	if (!(flags & 1) || (how & SECT_PEEK))
		return 0;
	{
		uint32_t csize = rd_u32(out), usize = rd_u32(out);
		const uint8_t *src = rd_take(out, csize);
		uint8_t *dst;

		if (out->err)
			return out->err;
		if (tf->zip == TFW_ZIP_NONE || usize > TFILE_MAX_SECTION)
			return tfile_bad(tf, -EBADMSG, 0,
					 "corrupt section at offset %llu (compressed size %u -> %u)",
					 (unsigned long long)off, csize, usize);
		dst = malloc(usize ? usize : 1);
		if (!dst)
			return tfile_bad(tf, -ENOMEM, 0, "out of memory for %s", what);
		if (tfile_unzip(tf, dst, usize, src, csize)) {
			free(dst);
			return tfile_bad(tf, -EBADMSG, 0,
					 "corrupt compressed data at offset %llu (in %s)",
					 (unsigned long long)(off + 24), what);
		}
		*owned = dst;
		*out = (struct rd){ .tf = tf, .p = dst, .len = usize, .file_off = off,
				    .unzipped = true, .what = what };
	}
	return 0;
}

static int load_section(struct tfile *tf, uint64_t off, uint16_t want, const char *what,
			struct rd *out, void **owned)
{
	return section_at(tf, off, want, what, out, owned, 0);
}

/* MODULES_FILE: /proc/modules as it was, the whole section. */
static int parse_modules(struct tfile *tf, struct rd *r)
{
	uint64_t n = r->len - r->pos;
	const uint8_t *p = rd_take(r, n);

	if (p) {
		free(tf->modules);
		tf->modules = dup_text(tf, p, n);
		if (!tf->modules)
			return nomem_err(tf);
	}
	return r->err;
}

int tfile_btf(struct tfile *tf, void **data, size_t *len)
{
	struct rd s;
	void *owned;
	int e;

	*data = NULL;
	*len = 0;
	if (!tf->btf_at)
		return -ENOENT;
	e = section_at(tf, tf->btf_at, OPT_BTF_FILE, "the BTF", &s, &owned, SECT_NO_NOTE);
	if (e)
		return e;
	if (!owned) {
		owned = malloc(s.len ? s.len : 1);
		if (!owned)
			return tfile_bad(tf, -ENOMEM, 0, "out of memory for the BTF");
		memcpy(owned, s.p, s.len);
	}
	*data = owned;
	*len = s.len;
	return 0;
}

const char *tfile_modules(const struct tfile *tf) { return tf->modules; }

static int open_v7(struct tfile *tf, struct rd *r)
{
	struct v7_offsets v7 = { 0 };
	const char *zname, *zver;
	uint64_t next;
	int err, sections = 0;
	static const struct {
		int id;
		const char *what;
		int (*parse)(struct tfile *, struct rd *);
	} parts[] = {
		{ OPT_HEADER_INFO, "the header info", parse_header_info },
		{ OPT_FTRACE_EVENTS, "the ftrace event formats", parse_ftrace_events },
		{ OPT_EVENT_FORMATS, "the event formats", parse_event_formats },
		{ OPT_KALLSYMS, "the kallsyms", parse_kallsyms },
		{ OPT_PRINTK, "the printk formats", parse_printk },
		{ OPT_CMDLINES, "the saved cmdlines", parse_cmdlines },
		{ OPT_MODULES_FILE, "the modules", parse_modules },
	};

	zname = rd_str(r);
	zver = rd_str(r);
	next = rd_u64(r);
	if (r->err)
		return r->err;
	tf->info.compression = xstrdup(zname);
	tf->info.compression_version = xstrdup(zver);
	tf->zip = tfw_zip_parse(zname);
	if (tf->zip < 0)
		return tfile_bad(tf, -ENOTSUP, 0, "compressed with '%s', which tr cannot read",
				 zname);
	while (next) {
		struct rd o;
		void *owned;

		if (++sections > 1024)
			return tfile_bad(tf, -EBADMSG, 0, "corrupt options: too many sections");
		err = load_section(tf, next, OPT_DONE, "the options", &o, &owned);
		if (err)
			return err;
		next = 0;
		for (;;) {
			uint16_t id = rd_u16(&o);
			uint32_t n = rd_u32(&o);
			const uint8_t *p = rd_take(&o, n);

			if (o.err) {
				err = o.err;
				break;
			}
			if (id == OPT_DONE) {
				next = n >= 8 ? swap_n(tf, p, 8) : 0;
				break;
			}
			err = parse_option(tf, id, p, n, o.file_off + o.pos - n, &v7);
			if (err)
				break;
		}
		free(owned);
		if (err)
			return err;
	}
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		struct rd s;
		void *owned;

		if (!v7.have[parts[i].id]) {
			if (parts[i].id == OPT_HEADER_INFO)
				return tfile_bad(tf, -EBADMSG, 0, "corrupt options: no header info");
			continue;
		}
		err = load_section(tf, v7.sect[parts[i].id], parts[i].id, parts[i].what, &s,
				   &owned);
		if (!err)
			err = parts[i].parse(tf, &s);
		free(owned);
		if (err)
			return err;
	}
	/* The BTF is megabytes that only function arguments need: checked now, read by tfile_btf(). */
	if (v7.have[OPT_BTF_FILE]) {
		struct rd s;
		void *owned;

		err = section_at(tf, v7.sect[OPT_BTF_FILE], OPT_BTF_FILE, "the BTF", &s, &owned,
				 SECT_PEEK);
		if (err)
			return err;
		tf->btf_at = v7.sect[OPT_BTF_FILE];
	}
	/* Check the buffers' section headers now, so a cursor never meets a bad one. */
	for (int i = 0; i < tf->nbuffers; i++) {
		struct tfile_buffer *b = &tf->buffers[i];
		struct rd h;
		uint16_t flags;

		if (b->text_offset >= tf->size)
			return tfile_bad(tf, -EBADMSG, 0,
					 "truncated at offset %llu (buffer '%s' is at %llu)",
					 (unsigned long long)tf->size, b->name,
					 (unsigned long long)b->text_offset);
		rd_init(&h, tf, b->text_offset, tf->size - b->text_offset, "a buffer section");
		if (rd_u16(&h) != (b->latency ? OPT_BUFFER_TEXT : OPT_BUFFER) && !h.err)
			return tfile_bad(tf, -EBADMSG, 0, "corrupt buffer section at offset %llu",
					 (unsigned long long)b->text_offset);
		flags = rd_u16(&h);
		rd_u32(&h);
		b->text_size = rd_u64(&h);
		if (h.err)
			return h.err;
		b->compressed = flags & 1;
		note_section(tf, xasprintf("buffer '%s'", b->name), b->latency ? OPT_BUFFER_TEXT
									: OPT_BUFFER,
			     b->text_offset, h.pos + b->text_size, h.pos + b->text_size,
			     b->compressed);
		if (b->compressed && tf->zip == TFW_ZIP_NONE)
			return tfile_bad(tf, -EBADMSG, 0, "corrupt buffer section at offset %llu",
					 (unsigned long long)b->text_offset);
		b->text_offset += h.pos;
	}
	return 0;
}

/* ---- open ---- */

static int check_buffers(struct tfile *tf)
{
	int max_cpu = tf->info.cpus ? tf->info.cpus : TFILE_MAX_CPUS;

	for (int i = 0; i < tf->nbuffers; i++) {
		struct tfile_buffer *b = &tf->buffers[i];

		if (b->latency) {
			if (b->text_size > tf->size - b->text_offset)
				return tfile_bad(tf, -EBADMSG, 0, "truncated at offset %llu (in %s)",
						 (unsigned long long)tf->size, "the latency text");
			continue;
		}
		if (b->page_size < 64 || b->page_size > TFILE_MAX_PAGE)
			return tfile_bad(tf, -EBADMSG, 0, "corrupt header: page size %u",
					 b->page_size);
		if (tfile_layout_parse(&b->layout, tf->header_page, tf->header_page_len,
				       tf->info.big_endian, b->page_size))
			return tfile_bad(tf, -EBADMSG, 0,
					 "corrupt header_page: cannot find the page layout");
		for (int c = 0; c < b->ncpus; c++) {
			struct tfile_cpu *cpu = &b->cpus[c];
			char where[300];

			if (!b->name[0])
				snprintf(where, sizeof(where), "the CPU %d data", cpu->cpu);
			else
				snprintf(where, sizeof(where), "the CPU %d data of buffer '%s'",
					 cpu->cpu, b->name);
			if (cpu->offset > tf->size || cpu->size > tf->size - cpu->offset)
				return tfile_bad(tf, -EBADMSG, 0, "truncated at offset %llu (in %s)",
						 (unsigned long long)tf->size, where);
			/*
			 * A v7 buffer names its CPUs; the writers size tables by
			 * them, so a number beyond the CPUs the file declares
			 * (or, without CPUCOUNT, beyond any machine's) is refused.
			 */
			if (cpu->cpu < 0 || cpu->cpu >= max_cpu)
				return tfile_bad(tf, -EBADMSG, 0,
						 "corrupt buffer '%s': CPU %u of a file of %d CPUs",
						 b->name, (unsigned)cpu->cpu, max_cpu);
		}
	}
	return 0;
}

/*
 * A file of a persistent buffer's previous boot (LAST_BOOT_INFO): its
 * kallsyms are this boot's, its events' addresses the previous one's, so
 * the symbols are moved onto that boot's addresses, once, before either
 * symbol table (libtraceevent's, the kernel printer's) is built from them.
 */
static void rebase_last_boot(struct tfile *tf)
{
	char *moved;

	if (!tf->has_last_boot || tf->last_boot_bad || tf->last_boot.current || !tf->kallsyms)
		return;
	moved = tfs_last_boot_rebase(tf->kallsyms, tf->modules, &tf->last_boot,
				     &tf->last_boot_delta);
	if (!moved) {
		tf->last_boot_bad = xstrdup(tr_failure());
		return;
	}
	free(tf->kallsyms);
	tf->kallsyms = moved;
}

const struct tfs_last_boot *tfile_last_boot(const struct tfile *tf, const char **instance,
					    int64_t *delta, const char **bad)
{
	*instance = tf->last_boot_name;
	*delta = tf->last_boot_delta;
	*bad = tf->last_boot_bad;
	return tf->has_last_boot ? &tf->last_boot : NULL;
}

int tfile_open(const char *path, unsigned flags, struct tfile **out)
{
	struct tfile *tf = xcalloc(1, sizeof(*tf));
	const uint8_t *h;
	struct stat st = { 0 };
	struct rd r;
	int fd, err;

	*out = NULL;
	tf->path = xstrdup(path);
	tf->flags = flags;
	/*
	 * O_NONBLOCK: opening a FIFO for reading would wait for a writer
	 * forever; the type is checked before anything is read.
	 */
	fd = open(path,
		  O_RDONLY | O_CLOEXEC | O_NONBLOCK | (flags & TFILE_NOFOLLOW ? O_NOFOLLOW : 0));
	if (fd < 0) {
		err = -errno;
		tr_fail(err, "cannot open '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		err = tr_fail(-EINVAL, "'%s' is not a regular file (a %s)", path,
			      S_ISFIFO(st.st_mode) ? "FIFO" : S_ISDIR(st.st_mode) ? "directory" :
			      S_ISCHR(st.st_mode) ? "character device" :
			      S_ISBLK(st.st_mode) ? "block device" :
			      S_ISSOCK(st.st_mode) ? "socket" : "special file");
		goto fail;
	}
	tf->size = st.st_size;
	if (tf->size) {
		void *m = mmap(NULL, tf->size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			err = -errno;
			close(fd);
			tr_fail(err, "cannot map '%s': %s", path, strerror(-err));
			goto fail;
		}
		tf->map = m;
		madvise(m, tf->size, MADV_SEQUENTIAL);
	}
	close(fd);
	tf->info.file_size = tf->size;

	rd_init(&r, tf, 0, tf->size, "the file header");
	h = tf->size >= sizeof(magic) ? tf->map : NULL;
	if (!h && tf->size && !memcmp(tf->map, magic, tf->size)) {
		err = tfile_bad(tf, -EBADMSG, 0, "truncated at offset %llu (in the file header)",
				(unsigned long long)tf->size);
		goto fail;
	}
	if (!h || memcmp(h, magic, sizeof(magic))) {
		err = tfile_bad(tf, -EBADMSG, 0, "not a trace file (no trace.dat magic at offset 0)");
		goto fail;
	}
	r.pos = sizeof(magic);
	{
		const char *ver = rd_str(&r);
		char *end;
		long v = strtol(ver, &end, 10);
		uint8_t endian, lsize;

		if (r.err) {
			err = r.err;
			goto fail;
		}
		if (end == ver || *end || v < 6 || v > 7) {
			err = tfile_bad(tf, -ENOTSUP, 0,
					"corrupt header at offset 10 (file version '%.8s'; tr reads 6 "
					"and 7)", ver);
			goto fail;
		}
		tf->info.version = v;
		h = rd_take(&r, 2);
		if (!h) {
			err = r.err;
			goto fail;
		}
		endian = h[0];
		lsize = h[1];
		if (endian > 1 || (lsize != 4 && lsize != 8)) {
			err = tfile_bad(tf, -EBADMSG, 0,
					"corrupt header at offset %llu (endian %u, long size %u)",
					(unsigned long long)(r.pos - 2), endian, lsize);
			goto fail;
		}
		tf->info.big_endian = endian;
		tf->info.long_size = lsize;
		tf->info.page_size = rd_u32(&r);
		if (!r.err && (tf->info.page_size < 64 || tf->info.page_size > TFILE_MAX_PAGE)) {
			err = tfile_bad(tf, -EBADMSG, 0, "corrupt header at offset %llu (page size %u)",
					(unsigned long long)(r.pos - 4), tf->info.page_size);
			goto fail;
		}
	}
	tf->tep = tfile_tep_new(&(struct tfile_tep_opts){ .big_endian = tf->info.big_endian,
							  .long_size = tf->info.long_size,
							  .page_size = tf->info.page_size });
	if (!tf->tep) {
		err = tr_fail(-ENOMEM, "cannot allocate a libtraceevent handle");
		goto fail;
	}
	tf->info.compression = NULL;
	if (tf->info.version == 6)
		err = open_v6(tf, &r);
	else
		err = open_v7(tf, &r);
	if (!err && r.err)
		err = r.err;
	/* A copy that found no memory: the parse may have gone on past it, reading less. */
	if (!err && tf->nomem)
		err = nomem_err(tf);
	if (!err)
		err = check_buffers(tf);
	if (err)
		goto fail;
	if (!tf->info.compression) {
		tf->info.compression = xstrdup("none");
		tf->info.compression_version = xstrdup("");
	}
	if (tf->info.cpus)
		tep_set_cpus(tf->tep, tf->info.cpus);
	/*
	 * Not tep_parse_saved_cmdlines: it leaks on odd lines and takes no
	 * length; the lines that are well formed are registered one by one.
	 */
	if (!tf->cmdlines)
		tf->cmdlines = xstrdup("");
	else
		tfile_cmdlines_each(tf->cmdlines, register_comm, tf->tep);
	if (!tf->tgids)
		tf->tgids = xstrdup("");
	rebase_last_boot(tf);
	if (tf->kallsyms && !(tf->flags & TFILE_LAZY_KALLSYMS))
		tfile_load_kallsyms(tf);
	for (int i = 0; i < tf->nbuffers; i++)
		if (!tf->buffers[i].clock)
			tf->buffers[i].clock = xstrdup("");
	*out = tf;
	return 0;
fail:
	tfile_close(tf);
	return err;
}

void tfile_close(struct tfile *tf)
{
	if (!tf)
		return;
	if (tf->map)
		munmap((void *)tf->map, tf->size);
	tfile_unzip_free(tf);
	if (tf->tep)
		tep_free(tf->tep);
	for (size_t i = 0; i < tf->nlazy; i++) {
		free(tf->lazy[i].sys);
		free(tf->lazy[i].text);
	}
	free(tf->lazy);
	for (int i = 0; i < tf->nbuffers; i++) {
		free(tf->buffers[i].name);
		free(tf->buffers[i].clock);
		free(tf->buffers[i].cpus);
	}
	free(tf->buffers);
	free(tf->info.compression);
	free(tf->info.compression_version);
	free(tf->info.uname);
	free(tf->info.tracer_version);
	free(tf->info.graph_opts);
	free(tf->info.clock);
	strv_free(&tf->info.options);
	strv_free(&tf->info.cpustats);
	tfile_tsync_free(tf->info.tsync);
	free(tf->info.tsync);
	for (int i = 0; i < tf->info.nguests; i++) {
		free(tf->info.guests[i].name);
		free(tf->info.guests[i].pids);
	}
	free(tf->info.guests);
	for (int i = 0; i < tf->info.nprocmaps; i++)
		tfile_procmap_free(&tf->info.procmaps[i]);
	free(tf->info.procmaps);
	strv_free(&tf->formats);
	free(tf->cmdlines);
	free(tf->tgids);
	free(tf->kallsyms);
	free(tf->printk);
	free(tf->modules);
	free(tf->last_boot_name);
	free(tf->last_boot_bad);
	tfs_last_boot_free(&tf->last_boot);
	free(tf->header_page);
	free(tf->header_event);
	for (size_t i = 0; i < tf->nrawopts; i++)
		free(tf->rawopts[i].data);
	for (size_t i = 0; i < tf->nsections; i++)
		free(tf->sections[i].name);
	free(tf->sections);
	free(tf->optents);
	free(tf->rawopts);
	free(tf->path);
	free(tf);
}

const char *tfile_path(const struct tfile *tf) { return tf->path; }
struct tep_handle *tfile_tep(struct tfile *tf) { return tf->tep; }
const struct tfile_info *tfile_info(const struct tfile *tf) { return &tf->info; }
int tfile_nbuffers(const struct tfile *tf) { return tf->nbuffers; }

const struct tfile_section *tfile_sections(const struct tfile *tf, size_t *n)
{
	*n = tf->nsections;
	return tf->sections;
}

const struct tfile_optent *tfile_option_entries(const struct tfile *tf, size_t *n)
{
	*n = tf->noptents;
	return tf->optents;
}
const char *tfile_cmdlines(const struct tfile *tf) { return tf->cmdlines; }
const char *tfile_tgids(const struct tfile *tf) { return tf->tgids; }
const struct strv *tfile_formats(const struct tfile *tf) { return &tf->formats; }

const struct tfile_buffer *tfile_buffer(const struct tfile *tf, int i)
{
	return i >= 0 && i < tf->nbuffers ? &tf->buffers[i] : NULL;
}

int tfile_text(struct tfile *tf, int buffer, char **text, size_t *len)
{
	const struct tfile_buffer *b = tfile_buffer(tf, buffer);
	struct rd r;

	*text = NULL;
	*len = 0;
	if (!b || !b->latency)
		return -EINVAL;
	rd_init(&r, tf, b->text_offset, tf->size - b->text_offset, "the latency text");
	if (tf->info.version >= 7 && b->compressed) {
		/* As trace-cmd writes it: a chunk count, then {csize4 usize4 data} chunks. */
		uint32_t chunks = rd_u32(&r);
		size_t have = 0;
		char *out = NULL, *grown;

		for (uint32_t i = 0; i < chunks && !r.err; i++) {
			uint32_t csize = rd_u32(&r), usize = rd_u32(&r);
			const uint8_t *src = rd_take(&r, csize);

			if (r.err)
				break;
			if (usize > TFILE_MAX_SECTION - have) {
				free(out);
				return tfile_bad(tf, -EBADMSG, 0, "corrupt latency text at offset %llu",
						 (unsigned long long)b->text_offset);
			}
			grown = realloc(out, have + usize + 1);
			if (!grown) {
				free(out);
				return nomem_err(tf);
			}
			out = grown;
			if (tfile_unzip(tf, out + have, usize, src, csize)) {
				free(out);
				return tfile_bad(tf, -EBADMSG, 0,
						 "corrupt compressed data at offset %llu (in the latency "
						 "text)", (unsigned long long)b->text_offset);
			}
			have += usize;
		}
		if (r.err) {
			free(out);
			return r.err;
		}
		if (!out && !(out = malloc(1)))
			return nomem_err(tf);
		out[have] = '\0';
		*text = out;
		*len = have;
		return 0;
	}
	if (b->text_size > r.len)
		return rd_fail(&r, b->text_size);
	*text = dup_text(tf, r.p, b->text_size);
	if (!*text)
		return nomem_err(tf);
	*len = b->text_size;
	return 0;
}
