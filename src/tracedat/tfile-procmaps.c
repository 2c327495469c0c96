// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A traced process's memory map, as trace-cmd's `record --proc-map` stores
 * it in a PROCMAPS option (one option a process), so that user-space
 * addresses (the userstacktrace option's records) can be named by the
 * object that held them after the process is gone.  The option is text
 * ending with a NUL:
 *
 *   PID COUNT EXE\n                 pid and count in hex, EXE /proc/PID/exe
 *   START END NAME\n   (COUNT times) hex bounds of each named mapping of
 *                                   /proc/PID/maps, in its (ascending) order
 *
 * trace-cmd reads the names with sscanf's %s: a name with a blank reads
 * there up to the blank; here the whole rest of the line is the name.
 * Anonymous mappings have no name and are not stored.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfile.h"
#include "tfw.h"
#include "tr.h"

/* Longer lines than trace-cmd reads (STR_PROCMAP_LINE_MAX) are refused. */
#define LINE_MAX_LEN 4096
/* More mappings than the kernel allows a process (vm.max_map_count's default ×16). */
#define MAX_VMAS (1u << 20)

void tfile_procmap_free(struct tfile_procmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++)
		free(m->vmas[i].name);
	free(m->vmas);
	free(m->exe);
	*m = (struct tfile_procmap){ 0 };
}

/* Hex digits up to a blank: 1 to 16 of them, nothing else. */
static bool hex_word(const char **pp, const char *end, uint64_t *v)
{
	const char *p = *pp;
	uint64_t x = 0;
	int n = 0;

	for (; p < end && *p != ' '; p++, n++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return false;
		if (n == 16)
			return false;
		x = x << 4 | (unsigned)d;
	}
	if (!n || p == end)
		return false;
	*pp = p + 1;
	*v = x;
	return true;
}

static int bad(struct tfile_procmap *out, char *why, size_t whylen, const char *fmt, size_t line)
{
	snprintf(why, whylen, fmt, line);
	tfile_procmap_free(out);
	return -EBADMSG;
}

int tfile_procmap_parse(const char *p, size_t n, struct tfile_procmap *out, char *why,
			size_t whylen)
{
	const char *end, *nl;
	uint64_t pid, count, prev_end = 0;
	size_t line = 1;

	*out = (struct tfile_procmap){ 0 };
	if (!n || p[n - 1] != '\0')
		return bad(out, why, whylen, "the text does not end with a NUL", 0);
	end = p + strlen(p);
	nl = memchr(p, '\n', end - p);
	if (!nl || nl - p > LINE_MAX_LEN)
		return bad(out, why, whylen, "line %zu is not 'PID COUNT EXE'", line);
	if (!hex_word(&p, nl, &pid) || !hex_word(&p, nl, &count) || p == nl || !pid ||
	    pid > INT_MAX)
		return bad(out, why, whylen, "line %zu is not 'PID COUNT EXE'", line);
	if (count > MAX_VMAS)
		return bad(out, why, whylen, "line %zu counts too many mappings", line);
	out->pid = (int)pid;
	out->exe = xasprintf("%.*s", (int)(nl - p), p);
	out->vmas = xcalloc(count ? count : 1, sizeof(*out->vmas));
	for (p = nl + 1; out->n < count; p = nl + 1) {
		struct tfile_vma *v = &out->vmas[out->n];

		line++;
		nl = memchr(p, '\n', end - p);
		if (!nl)
			return bad(out, why, whylen, "the text ends before line %zu", line);
		if (nl - p > LINE_MAX_LEN || !hex_word(&p, nl, &v->start) ||
		    !hex_word(&p, nl, &v->end) || p == nl)
			return bad(out, why, whylen, "line %zu is not 'START END NAME'", line);
		/* The kernel's mappings neither overlap nor come out of order. */
		if (v->start >= v->end || (out->n && v->start < prev_end))
			return bad(out, why, whylen, "line %zu overlaps or precedes the one before",
				   line);
		prev_end = v->end;
		v->name = xasprintf("%.*s", (int)(nl - p), p);
		out->n++;
	}
	if (p != end)
		return bad(out, why, whylen, "text follows line %zu", line);
	return 0;
}

size_t tfile_procmap_log_parse(const char *p, size_t n, struct tfile_procmap **out)
{
	struct tfile_procmap *maps = NULL;
	size_t nmaps = 0;

	for (size_t at = 0; at < n;) {
		const char *z = memchr(p + at, '\0', n - at);
		struct tfile_procmap m;
		char why[80];
		size_t i, len;

		/* A last one cut short (a crash mid-append) has no NUL: left out. */
		if (!z)
			break;
		len = z + 1 - (p + at);
		if (tfile_procmap_parse(p + at, len, &m, why, sizeof(why))) {
			at += len;
			continue;
		}
		at += len;
		for (i = 0; i < nmaps && maps[i].pid != m.pid; i++)
			;
		if (i == nmaps)
			maps = xrealloc(maps, ++nmaps * sizeof(*maps));
		else
			tfile_procmap_free(&maps[i]);
		maps[i] = m;
	}
	*out = maps;
	return nmaps;
}

const struct tfile_vma *tfile_procmap_find(const struct tfile_procmap *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	/* The first mapping that ends above addr (the kernel's find_vma()). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->vmas[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < m->n ? &m->vmas[lo] : NULL;
}

void tfw_opt_procmap(struct tfw_opt *o, const struct tfile_procmap *m)
{
	char *s;

	*o = (struct tfw_opt){ .id = TFW_OPT_PROCMAPS };
	s = xasprintf("%x %zx %s\n", (unsigned)m->pid, m->n, m->exe);
	tfw_blob_append(&o->data, s, strlen(s));
	free(s);
	for (size_t i = 0; i < m->n; i++) {
		s = xasprintf("%llx %llx %s\n", (unsigned long long)m->vmas[i].start,
			      (unsigned long long)m->vmas[i].end, m->vmas[i].name);
		tfw_blob_append(&o->data, s, strlen(s));
		free(s);
	}
	tfw_blob_append(&o->data, "", 1);
}

int tfw_procmap_read(int pid, struct tfile_procmap *out)
{
	char path[64], exe[PATH_MAX];
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;
	int e;

	*out = (struct tfile_procmap){ .pid = pid };
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	e = read_file(path, &text, NULL);
	if (e)
		return e;
	/* A process whose memory is gone (a zombie) reads as empty: nothing to keep. */
	if (!*text) {
		free(text);
		return -ESRCH;
	}
	out->exe = xstrdup(exe);
	/* "start-end perms offset dev inode   name": the name after the fifth blank run. */
	for (char *l = text, *next; *l; l = next) {
		char *nl = l + strcspn(l, "\n");
		unsigned long long s, en;
		int at = 0;

		next = *nl ? nl + 1 : nl;
		*nl = '\0';
		if (sscanf(l, "%llx-%llx %*s %*s %*s %*s %n", &s, &en, &at) < 2 || !at ||
		    !l[at] || s >= en)
			continue;
		if (out->n == cap)
			out->vmas = xrealloc(out->vmas, (cap = cap ? 2 * cap : 64) *
							     sizeof(*out->vmas));
		out->vmas[out->n++] = (struct tfile_vma){ s, en, xstrdup(l + at) };
	}
	free(text);
	return 0;
}
