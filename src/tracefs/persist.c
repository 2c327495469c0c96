// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Persistent ring buffers: last_boot_info's parser, the rebasing of
 * kallsyms onto the previous boot's addresses, and the listing of this
 * kernel's persistent instances (tfs-persist.h says what they are).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfs-persist.h"
#include "tfs.h"
#include "tr.h"

/* One hexadecimal number of at most 16 digits at *p; advances *p. */
static bool hex_at(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	for (; s < end && n < 17; s++, n++) {
		int c = *s, d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		v = v << 4 | (uint64_t)d;
	}
	if (!n || n > 16)
		return false;
	*p = s;
	*out = v;
	return true;
}

static int cmp_mod(const void *a, const void *b)
{
	const struct tfs_boot_mod *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void tfs_last_boot_free(struct tfs_last_boot *lb)
{
	free(lb->mods);
	memset(lb, 0, sizeof(*lb));
}

int tfs_last_boot_parse(const char *text, size_t len, struct tfs_last_boot *lb)
{
	const char *p = text, *end = text + len;
	size_t cap = 0;
	int line = 0;
	bool head = false;	/* the first line, "# Current" or the kernel's, was seen */

	memset(lb, 0, sizeof(*lb));
	if (len > TFS_LAST_BOOT_MAX_TEXT)
		return tr_fail(-EINVAL, "last_boot_info of %zu bytes: more than %u", len,
			       TFS_LAST_BOOT_MAX_TEXT);
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *le = nl ? nl : end, *q = p;
		uint64_t addr;

		line++;
		if (le == p)	/* an empty line: the end of a file read with its newline */
			goto next;
		if (!head && le - p >= 9 && !memcmp(p, "# Current", 9)) {
			lb->current = head = true;
			goto next;
		}
		if (lb->current || !hex_at(&q, le, &addr) || q >= le || *q != '\t')
			goto bad;
		q++;
		if (!head) {
			if (le - q != 8 || memcmp(q, "[kernel]", 8))
				goto bad;
			lb->text = addr;
			head = true;
			goto next;
		}
		if (q == le || le - q >= (ptrdiff_t)sizeof(lb->mods[0].name) ||
		    memchr(q, '\0', le - q) || memchr(q, ' ', le - q) || memchr(q, '\t', le - q))
			goto bad;
		if (lb->nmods == TFS_LAST_BOOT_MAX_MODS) {
			tfs_last_boot_free(lb);
			return tr_fail(-EINVAL, "last_boot_info lists more than %u modules",
				       TFS_LAST_BOOT_MAX_MODS);
		}
		if (lb->nmods == cap) {
			cap = cap ? cap * 2 : 16;
			lb->mods = xrealloc(lb->mods, cap * sizeof(*lb->mods));
		}
		lb->mods[lb->nmods].addr = addr;
		memcpy(lb->mods[lb->nmods].name, q, le - q);
		lb->mods[lb->nmods].name[le - q] = '\0';
		lb->nmods++;
next:
		p = nl ? nl + 1 : end;
	}
	if (!head) {
		tfs_last_boot_free(lb);
		return tr_fail(-EINVAL, "last_boot_info is empty");
	}
	if (lb->nmods > 1)
		qsort(lb->mods, lb->nmods, sizeof(*lb->mods), cmp_mod);
	return 0;
bad:
	tfs_last_boot_free(lb);
	return tr_fail(-EINVAL, "last_boot_info line %d is neither '# Current', 'ADDR\\t[kernel]' "
			       "first nor 'ADDR\\tMODULE' after", line);
}

/* One kallsyms line, split; false if it is not "ADDR TYPE NAME[\t[MOD]]". */
struct ksym_line {
	uint64_t addr;
	char type;
	const char *name, *rest;	/* rest: after the address and type */
	const char *mod;		/* the module's name, or NULL */
	size_t modlen;
};

static bool split_ksym(const char *p, const char *le, struct ksym_line *k)
{
	const char *q = p, *lb;

	if (!hex_at(&q, le, &k->addr) || le - q < 4 || q[0] != ' ' || q[2] != ' ')
		return false;
	k->type = q[1];
	k->rest = q + 1;
	k->name = q + 3;
	k->mod = NULL;
	lb = memchr(k->name, '[', le - k->name);
	if (lb && le[-1] == ']' && le - lb > 2) {
		k->mod = lb + 1;
		k->modlen = le - lb - 2;
	}
	return true;
}

/* This boot's base of module name (len bytes) from /proc/modules text, if there. */
static bool module_base(const char *modules, const char *name, size_t len, uint64_t *base)
{
	for (const char *p = modules; p && *p;) {
		const char *nl = strchrnul(p, '\n'), *sp = memchr(p, ' ', nl - p);

		if (sp && (size_t)(sp - p) == len && !memcmp(p, name, len)) {
			/* "name size refs deps state 0xADDR[ (taints)]": the address is field 6. */
			const char *f = p;
			int field = 0;

			while (f < nl && field < 5) {
				f = memchr(f, ' ', nl - f);
				if (!f)
					return false;
				f++;
				field++;
			}
			if (field == 5 && nl - f > 2 && f[0] == '0' && f[1] == 'x') {
				f += 2;
				return hex_at(&f, nl, base) && (f == nl || *f == ' ');
			}
			return false;
		}
		p = *nl ? nl + 1 : nl;
	}
	return false;
}

static const struct tfs_boot_mod *boot_mod(const struct tfs_last_boot *lb, const char *name,
					  size_t len)
{
	for (size_t i = 0; i < lb->nmods; i++)
		if (strlen(lb->mods[i].name) == len && !memcmp(lb->mods[i].name, name, len))
			return &lb->mods[i];
	return NULL;
}

char *tfs_last_boot_rebase(const char *kallsyms, const char *modules,
			   const struct tfs_last_boot *lb, int64_t *delta)
{
	uint64_t now_text = 0;
	bool have_text = false;
	size_t lines = 1, o = 0;
	char *out;

	for (const char *p = kallsyms; *p;) {
		const char *nl = strchrnul(p, '\n');
		struct ksym_line k;

		if (split_ksym(p, nl, &k) && (k.type == 'T' || k.type == 't') && !k.mod &&
		    nl - k.name == 5 && !memcmp(k.name, "_text", 5)) {
			now_text = k.addr;
			have_text = true;
			break;
		}
		p = *nl ? nl + 1 : nl;
	}
	if (!have_text) {
		tr_fail(-EINVAL, "the kallsyms have no _text: the previous boot's addresses cannot "
				 "be mapped");
		return NULL;
	}
	*delta = (int64_t)(now_text - lb->text);
	/* A line grows by at most 16 bytes: its address written in full. */
	for (const char *p = kallsyms; (p = strchr(p, '\n')); p++)
		lines++;
	out = xmalloc(strlen(kallsyms) + lines * 17 + 1);
	for (const char *p = kallsyms; *p;) {
		const char *nl = strchrnul(p, '\n');
		struct ksym_line k;
		uint64_t addr;

		if (!split_ksym(p, nl, &k))
			goto next;
		addr = k.addr;
		if (k.mod) {
			const struct tfs_boot_mod *m = boot_mod(lb, k.mod, k.modlen);
			uint64_t base;

			if (!m || !module_base(modules, k.mod, k.modlen, &base) || addr < base)
				goto next;
			addr = addr - base + m->addr;
		} else if (k.type != 'A' && k.type != 'a') {
			addr -= (uint64_t)*delta;
		}
		o += (size_t)snprintf(out + o, 18, "%016llx", (unsigned long long)addr);
		memcpy(out + o, k.rest - 1, nl - k.rest + 1);
		o += nl - k.rest + 1;
		out[o++] = '\n';
next:
		p = *nl ? nl + 1 : nl;
	}
	out[o] = '\0';
	return out;
}

const char *tfs_persist_what(const struct tfs_persist *p)
{
	return p->bad		? "last_boot_info unreadable"
	       : p->last_boot	? "the previous boot's data"
	       : p->empty	? "empty (nothing kept from a previous boot)"
				: "this boot's data";
}

void tfs_persist_clear(struct tfs_persist *p)
{
	free(p->name);
	free(p->info);
	free(p->bad);
	tfs_last_boot_free(&p->lb);
	memset(p, 0, sizeof(*p));
}

void tfs_persist_free(struct tfs_persist *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tfs_persist_clear(&p[i]);
	free(p);
}

/* Events the instance's buffer holds, all CPUs together (per_cpu/cpuN/stats). */
static uint64_t entries(const struct tfs_inst *in)
{
	struct strv cpus = { 0 };
	uint64_t n = 0;

	if (tfs_list_dir(in, "per_cpu", &cpus))
		return 0;
	for (size_t i = 0; i < cpus.n; i++) {
		char *file = xasprintf("per_cpu/%s/stats", cpus.v[i]), *text = NULL, *e;

		if (!tfs_read(in, file, &text) && (e = strstr(text, "entries: ")))
			n += strtoull(e + 9, NULL, 10);
		free(file);
		free(text);
	}
	strv_free(&cpus);
	return n;
}

int tfs_persist_get(const char *name, struct tfs_persist *out)
{
	struct tfs_inst *in;
	char *buf = NULL;
	int r;

	memset(out, 0, sizeof(*out));
	r = tfs_inst_get(name, false, &in);
	if (r)
		return r;
	if (!tfs_exists(in, "last_boot_info"))
		return -ENOENT;
	r = tfs_read(in, "last_boot_info", &buf);
	if (r)
		return r;
	out->name = xstrdup(name);
	out->info = buf;
	out->backup = !tfs_exists(in, "tracing_on");
	if (tfs_last_boot_parse(buf, strlen(buf), &out->lb))
		out->bad = xstrdup(tr_failure() ? tr_failure() : "unreadable");
	out->last_boot = !out->bad && !out->lb.current;
	/*
	 * Memory no boot wrote (a machine just powered on: zeros) passes the
	 * kernel's checks as a previous boot with its kernel at 0 and nothing
	 * in it: there is nothing to keep then.
	 */
	if (out->last_boot && (!out->lb.text || !entries(in))) {
		out->last_boot = false;
		out->empty = true;
	}
	return 0;
}

int tfs_persist_list(struct tfs_persist **out, size_t *n)
{
	struct strv names = { 0 };
	struct tfs_persist *v = NULL;
	size_t k = 0;
	int r;

	*out = NULL;
	*n = 0;
	r = tfs_inst_list(&names);
	if (r)
		return r;
	strv_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		struct tfs_persist p;

		if (tfs_persist_get(names.v[i], &p))
			continue;
		v = xrealloc(v, (k + 1) * sizeof(*v));
		v[k++] = p;
	}
	strv_free(&names);
	*out = v;
	*n = k;
	return 0;
}
