// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Dynamic events (see dynev.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynev.h"
#include "parse.h"
#include "caps.h"
#include "tfs.h"

void dynev_free(struct dynev *d)
{
	free(d->group);
	free(d->event);
	free(d->place);
	free(d->args);
	memset(d, 0, sizeof(*d));
}

static bool valid_name(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
			return false;
	return true;
}

int dynev_parse(const char *def, struct dynev *d)
{
	const char *p = def, *sp;
	char *head;

	memset(d, 0, sizeof(*d));
	while (*p == ' ')
		p++;
	/* One way to make synthetic events, the one that tr reset and tr synth list know. */
	if (*p == 's' && p[1] == ':')
		return tr_fail(-EINVAL, "'%s' is a synthetic event: tr synth add NAME 'FIELDS' "
			       "makes those", def);
	if (!strchr("prefta", *p) || !*p)
		return tr_fail(-EINVAL, "bad probe '%s': it starts with p, r, e, f, t or u", def);
	d->type = *p;
	sp = strchr(p, ' ');
	if (!sp)
		return tr_fail(-EINVAL, "bad probe '%s': no place to probe", def);
	head = xasprintf("%.*s", (int)(sp - p), p);
	/* "p", "r5", "p:ev", "p:grp/ev", "r10:grp/ev", "f%return"? (the kernel checks the rest). */
	char *colon = strchr(head, ':');

	if (colon) {
		char *name = colon + 1, *slash = strchr(name, '/');

		if (slash) {
			*slash = '\0';
			d->group = xstrdup(name);
			name = slash + 1;
		}
		d->event = xstrdup(name);
		if ((d->group && !valid_name(d->group)) || !valid_name(d->event)) {
			free(head);
			dynev_free(d);
			return tr_fail(-EINVAL, "bad probe name in '%s'", def);
		}
	}
	free(head);
	while (*sp == ' ')
		sp++;
	const char *end = strchr(sp, ' ');

	d->place = end ? xasprintf("%.*s", (int)(end - sp), sp) : xstrdup(sp);
	d->args = xstrdup(end ? end + 1 : "");
	if (!*d->place) {
		dynev_free(d);
		return tr_fail(-EINVAL, "bad probe '%s': no place to probe", def);
	}
	/* A uprobe's place is /path/to/file:offset. */
	d->uprobe = (d->type == 'p' || d->type == 'r') && strchr(d->place, '/') &&
		    strchr(d->place, ':');
	return 0;
}

static int type_capability(const struct dynev *d)
{
	switch (d->type) {
	case 'p':
	case 'r':
		return d->uprobe ? CAP_UPROBES : CAP_KPROBES;
	case 'e':
		return CAP_EPROBES;
	case 'f':
	case 't':
		return CAP_FPROBES;
	default:
		return CAP_TRACEFS;
	}
}

/* dynamic_events where the kernel has it, else the per-type file. */
static const char *control_file(const struct dynev *d)
{
	if (tfs_exists(NULL, "dynamic_events"))
		return "dynamic_events";
	return d->uprobe ? "uprobe_events" : "kprobe_events";
}

int dynev_add(const char *def)
{
	struct dynev d;
	char *undo;
	int r = dynev_parse(def, &d);

	if (r)
		return r;
	r = caps_require(type_capability(&d));
	if (r) {
		dynev_free(&d);
		return r;
	}
	if (!d.event) {
		dynev_free(&d);
		/* The kernel would name it itself, but tr must know the name to take it back. */
		return tr_fail(-EINVAL, "probe '%s' needs a name: %c:[GROUP/]EVENT ...", def, def[0]);
	}
	undo = d.group ? xasprintf("-:%s/%s", d.group, d.event) : xasprintf("-:%s", d.event);
	r = tfs_append_undo(NULL, control_file(&d), def, undo);
	if (r)
		r = tr_fail(r, "cannot add probe '%s': %s", def, strerror(-r));
	free(undo);
	dynev_free(&d);
	return r;
}

int dynev_list(struct strv *out)
{
	static const char *const files[] = { "dynamic_events", "kprobe_events", "uprobe_events" };
	bool have_dynamic = tfs_exists(NULL, "dynamic_events");

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *raw = NULL, *line, *save = NULL;

		if ((have_dynamic && i > 0) || tfs_read(NULL, files[i], &raw))
			continue;
		for (line = strtok_r(raw, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			strv_push(out, line);
		free(raw);
	}
	return 0;
}

int dynev_profile_parse(const char *text, char kind, struct dynev_hits **v, size_t *n)
{
	char *copy = xstrdup(text), *line, *save = NULL;
	int r = 0;

	for (line = strtok_r(copy, "\n", &save); line && !r; line = strtok_r(NULL, "\n", &save)) {
		char *tok[4], *ts = NULL, *t;
		size_t k = 0;
		struct dynev_hits h = { .kind = kind };

		for (t = strtok_r(line, " \t", &ts); t && k < 4; t = strtok_r(NULL, " \t", &ts))
			tok[k++] = t;
		if (!k)
			continue;
		if (k != 3 || (kind == 'k' ? parse_u64(tok[1], &h.hits) || parse_u64(tok[2], &h.missed)
					   : parse_u64(tok[2], &h.hits))) {
			r = tr_fail(-EINVAL, "unexpected line in %s: '%s'",
				    kind == 'k' ? "kprobe_profile" : "uprobe_profile", tok[0]);
			break;
		}
		h.event = xstrdup(kind == 'k' ? tok[0] : tok[1]);
		h.file = kind == 'u' ? xstrdup(tok[0]) : NULL;
		*v = xrealloc(*v, (*n + 1) * sizeof(**v));
		(*v)[(*n)++] = h;
	}
	free(copy);
	return r;
}

int dynev_profile(struct dynev_hits **v, size_t *n)
{
	static const struct { const char *file; char kind; } files[] = {
		{ "kprobe_profile", 'k' }, { "uprobe_profile", 'u' },
	};
	int r = 0;

	*v = NULL;
	*n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(files) && !r; i++) {
		char *raw = NULL;

		r = tfs_read(NULL, files[i].file, &raw);
		if (r == -ENOENT) {
			r = 0;
			continue;
		}
		if (r)
			r = tr_fail(r, "cannot read %s: %s", files[i].file, strerror(-r));
		else
			r = dynev_profile_parse(raw, files[i].kind, v, n);
		free(raw);
	}
	if (r) {
		dynev_profile_free(*v, *n);
		*v = NULL;
		*n = 0;
	}
	return r;
}

void dynev_profile_free(struct dynev_hits *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].event);
		free(v[i].file);
	}
	free(v);
}

int dynev_del(const char *name)
{
	struct strv all = { 0 };
	char *match = NULL;
	int r;

	/* Find it: the kernel's "-:EVENT" would also work, but tr names what it removes. */
	dynev_list(&all);
	for (size_t i = 0; i < all.n && !match; i++) {
		struct dynev d;

		if (dynev_parse(all.v[i], &d))
			continue;
		char *full = xasprintf("%s/%s", d.group ? d.group : "", d.event ? d.event : "");

		if (!strcmp(full, name) || (d.event && !strcmp(d.event, name)))
			match = xstrdup(full), r = d.uprobe;
		free(full);
		dynev_free(&d);
	}
	strv_free(&all);
	if (!match)
		return tr_fail(-ENOENT, "no probe '%s' (tr probe list shows them)", name);
	char *line = xasprintf("-:%s", match);
	const char *file = tfs_exists(NULL, "dynamic_events") ? "dynamic_events"
				: r ? "uprobe_events" : "kprobe_events";

	r = tfs_write(NULL, file, line, true);
	if (r == -EBUSY)
		r = tr_fail(r, "cannot remove probe '%s': it is in use (enabled, or used by a trigger)",
			    match);
	else if (r)
		r = tr_fail(r, "cannot remove probe '%s': %s", match, strerror(-r));
	free(line);
	free(match);
	return r;
}
