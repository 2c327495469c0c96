// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Synthetic events (see synth.h).  synthetic_events is used rather than
 * dynamic_events' "s:" form because every kernel with synthetic events has
 * it (dynamic_events came later) and it lists the events without a prefix.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "caps.h"
#include "parse.h"
#include "tfs.h"

/* "TYPE NAME" or "TYPE NAME[N]" or "TYPE[] NAME": the last word, less [..], is a name. */
static int check_field(const char *f, size_t n, const char *all)
{
	while (n && isspace((unsigned char)*f))
		f++, n--;
	while (n && isspace((unsigned char)f[n - 1]))
		n--;
	if (!n)
		return tr_fail(-EINVAL, "empty field in '%s'", all);
	const char *sp = NULL;

	for (size_t i = 0; i < n; i++)
		if (isspace((unsigned char)f[i]))
			sp = f + i;
	if (!sp)
		return tr_fail(-EINVAL, "field '%.*s' in '%s' needs a type and a name", (int)n, f,
			       all);
	const char *name = sp + 1, *end = f + n, *br = memchr(name, '[', end - name);

	if (!is_ident(name, (br ? br : end) - name) || (br && end[-1] != ']'))
		return tr_fail(-EINVAL, "bad field name '%.*s' in '%s'", (int)(end - name), name,
			       all);
	return 0;
}

int synth_def(const char *name, const char *fields, char **line)
{
	const char *p = fields;
	int r;

	*line = NULL;
	if (!is_ident(name, strlen(name)))
		return tr_fail(-EINVAL, "bad synthetic event name '%s' (letters, digits and _)",
			       name);
	if (!fields || !*fields)
		return tr_fail(-EINVAL, "synthetic event '%s' needs fields: 'TYPE NAME[; ...]'",
			       name);
	for (;;) {
		const char *semi = strchr(p, ';');
		size_t n = semi ? (size_t)(semi - p) : strlen(p);

		r = check_field(p, n, fields);
		if (r)
			return r;
		if (!semi || !semi[1 + strspn(semi + 1, " \t")])
			break;	/* a ';' may end the list, as in the kernel's examples */
		p = semi + 1;
	}
	*line = xasprintf("%s %s", name, fields);
	return 0;
}

int synth_add(const char *name, const char *fields)
{
	char *line, *undo;
	int r = synth_def(name, fields, &line);

	if (r)
		return r;
	r = caps_require(CAP_SYNTHETIC);
	if (r) {
		free(line);
		return r;
	}
	undo = xasprintf("!%s", name);
	r = tfs_append_undo(NULL, "synthetic_events", line, undo);
	if (r == -EBUSY || r == -EEXIST)
		r = tr_fail(r, "cannot add synthetic event '%s': there is one by that name", name);
	else if (r)
		r = tr_fail(r, "cannot add synthetic event '%s': %s", line, strerror(-r));
	free(undo);
	free(line);
	return r;
}

int synth_list(struct strv *out)
{
	char *raw = NULL, *l, *save = NULL;
	int r = caps_require(CAP_SYNTHETIC);

	if (r)
		return r;
	r = tfs_read(NULL, "synthetic_events", &raw);
	if (r)
		return tr_fail(r, "cannot read synthetic_events: %s", strerror(-r));
	for (l = strtok_r(raw, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		strv_push(out, l);
	free(raw);
	return 0;
}

int synth_del(const char *name)
{
	struct strv all = { 0 };
	bool found = false;
	char *line;
	int r = synth_list(&all);

	if (r)
		return r;
	/* The kernel says only EINVAL or ENOENT for a missing one: name it ourselves. */
	for (size_t i = 0; i < all.n && !found; i++) {
		size_t n = strcspn(all.v[i], " \t");

		found = n == strlen(name) && !strncmp(all.v[i], name, n);
	}
	strv_free(&all);
	if (!found)
		return tr_fail(-ENOENT, "no synthetic event '%s' (tr synth list shows them)", name);
	line = xasprintf("!%s", name);
	r = tfs_write(NULL, "synthetic_events", line, true);
	if (r == -EBUSY)
		r = tr_fail(r, "cannot remove synthetic event '%s': it is in use (enabled, or "
			    "used by a hist trigger)", name);
	else if (r)
		r = tr_fail(r, "cannot remove synthetic event '%s': %s", name, strerror(-r));
	else
		tfs_state_forget(line);	/* tr reset has nothing left to take back */
	free(line);
	return r;
}
