// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User events and the kernel (see user.h): registration through
 * user_events_data, deletion, and the list put together from the three
 * places the kernel shows them:
 *
 *   dynamic_events       "u:NAME FIELDS" per event, the format as the kernel
 *                        matches it (but not the tracepoint of a
 *                        multi-format version);
 *   events/SYS/TP/format  the tracepoint's fields (names, sizes, signedness);
 *   user_events_status   "TP # Used by ftrace perf", and the counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "caps.h"
#include "tfs.h"
#include "user.h"
#include "user_abi.h"

struct uev_writer {
	int fd;
	uint32_t *word;		/* the enable bit's word; the kernel writes it */
	uint32_t write_index;
	char *name, *fields;
	struct uf_format fmt;
	size_t max_event;
};

/* The largest record the top-level ring buffer takes: a sub-buffer less its
 * 16-byte header, less the 8 bytes the ring buffer keeps for itself. */
static size_t max_event_size(void)
{
	char *kb = NULL;
	size_t sub = (size_t)sysconf(_SC_PAGESIZE);

	if (!tfs_read(NULL, "buffer_subbuf_size_kb", &kb) && atoi(kb) > 0)
		sub = (size_t)atoi(kb) * 1024;
	free(kb);
	return sub - 16 - 8;
}

static int open_data(void)
{
	char *p = tfs_path(NULL, "user_events_data");
	int fd = open(p, O_RDWR | O_CLOEXEC);
	int r = fd < 0 ? -errno : fd;

	if (fd < 0)
		tr_fail(r, "cannot open '%s': %s", p, strerror(errno));
	free(p);
	return r;
}

/*
 * Register desc on fd with the enable bit 0 of *word.  The kernel writes
 * *word at once (and whenever a tracer comes or goes) until unregistered.
 */
static int reg(int fd, const char *desc, unsigned flags, uint32_t *word, uint32_t *index)
{
	struct user_reg r = {
		.size = sizeof(r), .enable_bit = 0, .enable_size = sizeof(*word),
		.flags = (uint16_t)flags, .enable_addr = (uintptr_t)word,
		.name_args = (uintptr_t)desc,
	};

	if (ioctl(fd, DIAG_IOCSREG, &r) < 0)
		return -errno;
	*index = r.write_index;
	return 0;
}

static void unreg(int fd, uint32_t *word)
{
	struct user_unreg u = { .size = sizeof(u), .disable_bit = 0,
				.disable_addr = (uintptr_t)word };

	ioctl(fd, DIAG_IOCSUNREG, &u);
}

/* Check NAME and FIELDS; canonical gets the text the kernel will match. */
static int check_def(const char *name, const char *fields, struct uf_format *fmt,
		     char **canonical)
{
	struct uf_error e;
	const char *why = uf_name_problem(name);
	size_t n;

	if (why)
		return tr_fail(-EINVAL, "bad user event name '%.64s%s': %s", name,
			       strlen(name) > 64 ? "..." : "", why);
	if (uf_parse(fields, fmt, &e))
		return e.field < 0 ? tr_fail(-EINVAL, "bad format for user event '%s': %s", name, e.why)
				   : tr_fail(-EINVAL, "bad field '%.*s' of user event '%s': %s", e.len,
					     fields + e.off, name, e.why);
	n = uf_canonical(fields, fmt, NULL, 0);
	*canonical = xmalloc(n + 1);
	uf_canonical(fields, fmt, *canonical, n + 1);
	if (strlen(name) + 1 + n >= USER_EVENT_DESC_MAX) {
		free(*canonical);
		*canonical = NULL;
		return tr_fail(-E2BIG, "user event '%s' is too long to register: name and fields "
			       "must fit in %d bytes", name, USER_EVENT_DESC_MAX - 1);
	}
	return 0;
}

static char *describe(const char *name, const char *canonical)
{
	return *canonical ? xasprintf("%s %s", name, canonical) : xstrdup(name);
}

/* What tr reset appends to dynamic_events to take the event back. */
static char *undo_line(const char *name, const char *canonical, bool multi)
{
	return xasprintf("-:%s%s%s%s", multi ? USER_EVENTS_MULTI_SYSTEM "/" : "", name,
			 *canonical ? " " : "", canonical);
}

/* ---- the list ---- */

void uev_list_free(struct uev_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].system);
		free(l->v[i].tracepoint);
		free(l->v[i].fields);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A field's (name, size, signed) as a format file gives them, one per line. */
static char *format_signature(const char *system, const char *tp)
{
	char *rel = xasprintf("events/%s/%s/format", system, tp), *buf = NULL, *line, *save = NULL;
	char *sig = xstrdup("");

	if (!tfs_read(NULL, rel, &buf)) {
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *f = strstr(line, "field:"), *semi, *sz = strstr(line, "size:");
			char *sg = strstr(line, "signed:");
			size_t nlen;

			if (!f || !(semi = strchr(f, ';')) || !sz || !sg)
				continue;
			/* The name is the last word before ';', less any "[N]". */
			char *end = semi, *start;

			if (memchr(f, '[', semi - f))
				end = memchr(f, '[', semi - f);
			start = end;
			while (start > f && start[-1] != ' ')
				start--;
			nlen = end - start;
			if (!strncmp(start, "common_", 7))
				continue;
			char *t = xasprintf("%s%.*s %d %d\n", sig, (int)nlen, start, atoi(sz + 5),
					    atoi(sg + 7));

			free(sig);
			sig = t;
		}
	}
	free(buf);
	free(rel);
	return sig;
}

static char *fields_signature(const char *fields)
{
	struct uf_format *fmt = xmalloc(sizeof(*fmt));
	struct uf_error e;
	char *sig = xstrdup(""), name[128];

	if (!uf_parse(fields, fmt, &e)) {
		for (uint32_t i = 0; i < fmt->n; i++) {
			uf_name(fields, &fmt->f[i], name, sizeof(name));
			char *t = xasprintf("%s%s %u %d\n", sig, name, fmt->f[i].size,
					    fmt->f[i].is_signed);

			free(sig);
			sig = t;
		}
	}
	free(fmt);
	return sig;
}

int uev_list(struct uev_list *out)
{
	struct strv events = { 0 }, names = { 0 }, defs = { 0 };
	struct uev_status st = { 0 };
	char *dyn = NULL, *text = NULL, *line, *save = NULL;
	bool *used;
	int r;

	memset(out, 0, sizeof(*out));
	r = caps_require(CAP_USER_EVENTS);
	if (r)
		return r;
	/* "u:NAME FIELDS" lines: the formats. */
	if (!tfs_read(NULL, "dynamic_events", &dyn)) {
		for (line = strtok_r(dyn, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *sp;

			if (strncmp(line, USER_EVENTS_PREFIX, 2))
				continue;
			sp = strchr(line + 2, ' ');
			strv_push_owned(&names, sp ? xasprintf("%.*s", (int)(sp - line - 2), line + 2)
						   : xstrdup(line + 2));
			strv_push(&defs, sp ? sp + 1 : "");
		}
	}
	free(dyn);
	used = xcalloc(names.n + 1, sizeof(*used));
	r = tfs_read(NULL, "user_events_status", &text);
	if (!r)
		r = uev_status_parse(text, &st);
	free(text);
	if (r) {
		r = tr_fail(r, "cannot read user_events_status: %s", strerror(-r));
		goto out;
	}
	out->active = st.active;
	out->busy = st.busy;
	tfs_events(NULL, &events);
	for (size_t i = 0; i < events.n; i++) {
		const char *colon = strchr(events.v[i], ':'), *tp;
		char *system, name[256];
		bool multi;
		size_t pick = names.n;

		if (!colon)
			continue;
		system = xasprintf("%.*s", (int)(colon - events.v[i]), events.v[i]);
		tp = colon + 1;
		multi = !strcmp(system, USER_EVENTS_MULTI_SYSTEM);
		if (!multi && strcmp(system, USER_EVENTS_SYSTEM)) {
			free(system);
			continue;
		}
		if (multi)
			uev_multi_split(tp, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "%s", tp);
		/* Its dynamic_events line: the one of that name, or which fits its format. */
		size_t cands = 0;

		for (size_t k = 0; k < names.n; k++)
			cands += !used[k] && !strcmp(names.v[k], name);
		if (cands > 1) {
			char *sig = format_signature(system, tp);

			for (size_t k = 0; k < names.n && pick == names.n; k++) {
				if (used[k] || strcmp(names.v[k], name))
					continue;
				char *s2 = fields_signature(defs.v[k]);

				if (!strcmp(sig, s2))
					pick = k;
				free(s2);
			}
			free(sig);
		}
		for (size_t k = 0; k < names.n && pick == names.n; k++)
			if (!used[k] && !strcmp(names.v[k], name))
				pick = k;
		if (pick < names.n)
			used[pick] = true;

		struct uev_info *u;

		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		u = &out->v[out->n++];
		memset(u, 0, sizeof(*u));
		u->name = xstrdup(name);
		u->system = system;
		u->tracepoint = xstrdup(tp);
		u->fields = xstrdup(pick < names.n ? defs.v[pick] : "");
		for (size_t k = 0; k < st.n; k++)
			if (!strcmp(st.v[k].tracepoint, tp))
				u->used_by = st.v[k].used_by;
		char *undo = undo_line(name, u->fields, multi);

		u->by_tr = tfs_state_has(undo);
		free(undo);
	}
out:
	free(used);
	strv_free(&events);
	strv_free(&names);
	strv_free(&defs);
	uev_status_free(&st);
	return r;
}

/* The listed event SYSTEM:TP, or NULL. */
static const struct uev_info *list_find(const struct uev_list *l, bool multi, const char *name,
					const char *fields)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name) &&
		    !strcmp(l->v[i].system, multi ? USER_EVENTS_MULTI_SYSTEM : USER_EVENTS_SYSTEM) &&
		    (!fields || !strcmp(l->v[i].fields, fields)))
			return &l->v[i];
	return NULL;
}

/* ---- add and delete ---- */

static int reg_error(int r, const char *name, const char *canonical, bool persist)
{
	switch (r) {
	case -EPERM:
		return persist ? tr_fail(r, "cannot add user event '%s': persistent events need "
					 "CAP_PERFMON", name)
			       : tr_fail(r, "cannot register user event '%s': %s", name, strerror(-r));
	case -EADDRINUSE:
		return tr_fail(r, "user event '%s' exists with another format (tr user list shows it; "
			       "--multi adds a format of its own)", name);
	case -EMFILE:
		return tr_fail(r, "cannot register user event '%s': too many user events "
			       "(/proc/sys/kernel/user_events_max)", name);
	case -EINVAL:
		return tr_fail(r, "the kernel refuses user event '%s' '%s' (Invalid argument)", name,
			       canonical);
	default:
		return tr_fail(r, "cannot register user event '%s': %s", name, strerror(-r));
	}
}

int uev_dyn_parse(const char *def, char **name, char **fields)
{
	const char *p = def, *end;

	*name = *fields = NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, USER_EVENTS_PREFIX, 2))
		return tr_fail(-EINVAL, "bad user event '%s': it starts with u:", def);
	p += 2;
	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strcspn(p, " \t");
	if (end == p)
		return tr_fail(-EINVAL, "bad user event '%s': no name after u:", def);
	/* The kernel's create takes "NAME[:FLAGS]" and refuses every flag. */
	if (memchr(p, ':', end - p))
		return tr_fail(-EINVAL, "bad user event '%s': the kernel takes no flags after the "
			       "name (u:NAME FIELDS)", def);
	if (memchr(p, '/', end - p))
		return tr_fail(-EINVAL, "bad user event '%s': user events have no group (the kernel "
			       "puts them in %s)", def, USER_EVENTS_SYSTEM);
	*name = xasprintf("%.*s", (int)(end - p), p);
	while (*end == ' ' || *end == '\t')
		end++;
	*fields = xstrdup(end);
	return 0;
}

bool uev_dyn_by_tr(const char *line)
{
	char *single, *multi;
	bool r;

	if (strncmp(line, USER_EVENTS_PREFIX, 2))
		return false;
	/* undo_line()'s text for either kind: "-:NAME FIELDS", "-:user_events_multi/NAME FIELDS". */
	single = xasprintf("-:%s", line + 2);
	multi = xasprintf("-:%s/%s", USER_EVENTS_MULTI_SYSTEM, line + 2);
	r = tfs_state_has(single) || tfs_state_has(multi);
	free(single);
	free(multi);
	return r;
}

/*
 * Add a persistent event: by the registration ioctl, or (dynline) by a
 * "u:NAME FIELDS" line written to dynamic_events, as the kernel's
 * dynamic_events takes user events.  Either way tr checks the definition
 * and what exists first: the kernel's dynamic_events path answers 0 to a
 * line naming an event that exists with the same format (even one a program
 * registered, which then does not become persistent).
 */
static int add_event(const char *name, const char *fields, bool multi, bool dynline,
		     char **tracepoint)
{
	struct uf_format *fmt = xmalloc(sizeof(*fmt));
	struct uev_list l = { 0 };
	const struct uev_info *have;
	char *canonical = NULL, *desc = NULL, *undo = NULL;
	uint32_t *word = NULL, index;
	int r, fd = -1;

	*tracepoint = NULL;
	r = caps_require(CAP_USER_EVENTS);
	if (!r && multi)
		r = caps_require(CAP_USER_MULTI);
	if (!r)
		r = check_def(name, fields, fmt, &canonical);
	if (!r)
		r = uev_list(&l);
	if (r)
		goto out;
	have = list_find(&l, multi, name, multi ? canonical : NULL);
	if (have && !strcmp(have->fields, canonical)) {
		r = tr_fail(-EEXIST, "user event '%s' already exists as %s:%s", name, have->system,
			    have->tracepoint);
		goto out;
	}
	if (have) {
		r = tr_fail(-EADDRINUSE, "user event '%s' already exists with the format '%s' "
			    "(--multi adds another format)", name, have->fields);
		goto out;
	}
	if (dynline) {
		char *line = xasprintf("%s%s%s%s", USER_EVENTS_PREFIX, name, *canonical ? " " : "",
				       canonical);

		undo = undo_line(name, canonical, false);
		r = tfs_append_undo(NULL, "dynamic_events", line, undo);
		tr_detail_clear();
		if (r)
			r = reg_error(r, name, canonical, true);
		else
			*tracepoint = xasprintf("%s:%s", USER_EVENTS_SYSTEM, name);
		free(line);
		goto out;
	}
	fd = open_data();
	if (fd < 0) {
		r = fd;
		goto out;
	}
	desc = describe(name, canonical);
	word = xcalloc(1, sizeof(*word));
	r = reg(fd, desc, USER_EVENT_REG_PERSIST | (multi ? USER_EVENT_REG_MULTI_FORMAT : 0), word,
		&index);
	if (r) {
		r = reg_error(r, name, canonical, true);
		goto out;
	}
	undo = undo_line(name, canonical, multi);
	tfs_undo_note(NULL, "dynamic_events", undo);
	if (!multi) {
		*tracepoint = xasprintf("%s:%s", USER_EVENTS_SYSTEM, name);
	} else {
		/* The kernel does not say which id it gave: find the version with this format. */
		uev_list_free(&l);
		if (!uev_list(&l) && (have = list_find(&l, true, name, canonical)))
			*tracepoint = xasprintf("%s:%s", have->system, have->tracepoint);
		else
			*tracepoint = xasprintf("%s:%s.?", USER_EVENTS_MULTI_SYSTEM, name);
	}
out:
	if (word && fd >= 0)
		unreg(fd, word);
	if (fd >= 0)
		close(fd);
	free(word);
	free(undo);
	free(desc);
	free(canonical);
	free(fmt);
	uev_list_free(&l);
	return r;
}

int uev_add(const char *name, const char *fields, bool multi, char **tracepoint)
{
	return add_event(name, fields, multi, false, tracepoint);
}

int uev_add_dyn(const char *def, char **tracepoint)
{
	char *name, *fields;
	int r = caps_require(CAP_USER_EVENTS);

	*tracepoint = NULL;
	if (!r)
		r = uev_dyn_parse(def, &name, &fields);
	if (r)
		return r;
	r = add_event(name, fields, false, true, tracepoint);
	free(name);
	free(fields);
	return r;
}

/* Why a delete met EBUSY: who traces it, from the list. */
static int busy_error(const char *what, const struct uev_list *l, const char *name)
{
	unsigned used = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			used |= l->v[i].used_by;
	if (used)
		return tr_fail(-EBUSY, "cannot delete user event '%s': in use by %s (disable it first)",
			       what, uev_used_by_text(used));
	return tr_fail(-EBUSY, "cannot delete user event '%s': in use (a process has it registered)",
		       what);
}

int uev_delete(const char *what)
{
	struct uev_list l = { 0 };
	const char *colon = strchr(what, ':');
	int r = uev_list(&l);
	bool found = false;

	if (r)
		return r;
	if (colon) {
		/* One tracepoint: through dynamic_events, by its name and format. */
		const struct uev_info *u = NULL;

		for (size_t i = 0; i < l.n && !u; i++)
			if (!strncmp(what, l.v[i].system, colon - what) &&
			    !l.v[i].system[colon - what] && !strcmp(colon + 1, l.v[i].tracepoint))
				u = &l.v[i];
		if (!u) {
			r = tr_fail(-ENOENT, "no user event '%s' (tr user list shows them)", what);
			goto out;
		}
		if (u->used_by) {
			r = tr_fail(-EBUSY, "cannot delete user event '%s': in use by %s (disable it "
				    "first)", what, uev_used_by_text(u->used_by));
			goto out;
		}
		/*
		 * The kernel deletes every event of that name and format, in
		 * either system: a twin would go too.
		 */
		for (size_t i = 0; i < l.n; i++)
			if (&l.v[i] != u && !strcmp(l.v[i].name, u->name) &&
			    !strcmp(l.v[i].fields, u->fields)) {
				r = tr_fail(-EINVAL, "cannot delete '%s' alone: the kernel would delete "
					    "%s:%s (the same format) with it", what, l.v[i].system,
					    l.v[i].tracepoint);
				goto out;
			}
		bool multi = !strcmp(u->system, USER_EVENTS_MULTI_SYSTEM);
		char *line = undo_line(u->name, u->fields, multi);

		r = tfs_write(NULL, "dynamic_events", line, true);
		tr_detail_clear();
		if (r == -EBUSY)
			r = busy_error(what, &l, u->name);
		else if (r == -EPERM)
			r = tr_fail(r, "deleting persistent user event '%s' needs CAP_PERFMON", what);
		else if (r)
			r = tr_fail(r, "cannot delete user event '%s': %s", what, strerror(-r));
		else
			tfs_state_forget(line);
		free(line);
		goto out;
	}
	unsigned used = 0;

	for (size_t i = 0; i < l.n; i++)
		if (!strcmp(l.v[i].name, what))
			found = true, used |= l.v[i].used_by;
	if (!found) {
		r = uf_name_problem(what) ? tr_fail(-EINVAL, "bad user event name '%s': %s", what,
						    uf_name_problem(what))
					  : tr_fail(-ENOENT, "no user event '%s' (tr user list shows them)",
						    what);
		goto out;
	}
	/*
	 * The kernel deletes the formats of a name one by one and stops at the
	 * first busy one: check them all first, so a traced event is left whole.
	 */
	if (used) {
		r = busy_error(what, &l, what);
		goto out;
	}
	/* The ABI: delete on a descriptor that holds no reference to the event. */
	int fd = open_data();

	if (fd < 0) {
		r = fd;
		goto out;
	}
	r = ioctl(fd, DIAG_IOCSDEL, what) < 0 ? -errno : 0;
	close(fd);
	if (r == -EBUSY)
		r = busy_error(what, &l, what);
	else if (r == -EPERM)
		r = tr_fail(r, "deleting persistent user event '%s' needs CAP_PERFMON", what);
	else if (r)
		r = tr_fail(r, "cannot delete user event '%s': %s", what, strerror(-r));
	for (size_t i = 0; !r && i < l.n; i++) {
		if (strcmp(l.v[i].name, what))
			continue;
		char *line = undo_line(what, l.v[i].fields,
				       !strcmp(l.v[i].system, USER_EVENTS_MULTI_SYSTEM));

		tfs_state_forget(line);
		free(line);
	}
out:
	uev_list_free(&l);
	return r;
}

/* ---- writing ---- */

const char *uev_writer_fields(const struct uev_writer *w)
{
	return w->fields;
}

const struct uf_format *uev_writer_format(const struct uev_writer *w)
{
	return &w->fmt;
}

size_t uev_writer_max_event(const struct uev_writer *w)
{
	return w->max_event;
}

bool uev_enabled(const struct uev_writer *w)
{
	return __atomic_load_n(w->word, __ATOMIC_RELAXED) & 1;
}

int uev_open(const char *name, const char *fields, bool multi, struct uev_writer **out)
{
	struct uev_writer *w = xcalloc(1, sizeof(*w));
	struct uev_list l = { 0 };
	char *canonical = NULL, *desc = NULL;
	int r;

	*out = NULL;
	w->fd = -1;
	r = caps_require(CAP_USER_EVENTS);
	if (!r && multi && fields)
		r = caps_require(CAP_USER_MULTI);
	if (!r && uf_name_problem(name))
		r = tr_fail(-EINVAL, "bad user event name '%.64s%s': %s", name,
			    strlen(name) > 64 ? "..." : "", uf_name_problem(name));
	if (!r)
		r = uev_list(&l);
	if (r)
		goto fail;
	if (fields) {
		r = check_def(name, fields, &w->fmt, &canonical);
		if (r)
			goto fail;
	} else {
		const struct uev_info *single = list_find(&l, false, name, NULL), *m = NULL;
		size_t versions = 0;

		for (size_t i = 0; i < l.n; i++)
			if (!strcmp(l.v[i].name, name) &&
			    !strcmp(l.v[i].system, USER_EVENTS_MULTI_SYSTEM))
				versions++, m = &l.v[i];
		if (!single && versions > 1) {
			r = tr_fail(-EINVAL, "user event '%s' has %zu formats: --format says which",
				    name, versions);
			goto fail;
		}
		if (!single && !m) {
			r = tr_fail(-ENOENT, "no user event '%s' (tr user add defines one; --format "
				    "registers it for this emit)", name);
			goto fail;
		}
		multi = !single;
		r = check_def(name, (single ? single : m)->fields, &w->fmt, &canonical);
		if (r)
			goto fail;
	}
	w->name = xstrdup(name);
	w->fields = xstrdup(canonical);
	w->max_event = max_event_size();
	w->word = xcalloc(1, sizeof(*w->word));
	r = open_data();
	if (r < 0)
		goto fail;
	w->fd = r;
	desc = describe(name, canonical);
	r = reg(w->fd, desc, multi ? USER_EVENT_REG_MULTI_FORMAT : 0, w->word, &w->write_index);
	if (r) {
		r = reg_error(r, name, canonical, false);
		free(w->word);
		w->word = NULL;
		goto fail;
	}
	*out = w;
	free(desc);
	free(canonical);
	uev_list_free(&l);
	return 0;
fail:
	free(desc);
	free(canonical);
	uev_list_free(&l);
	uev_close(w);
	return r;
}

int uev_write(struct uev_writer *w, const struct uev_buf *b)
{
	struct iovec io[2] = {
		{ &w->write_index, sizeof(w->write_index) },
		{ b->p, b->len },
	};
	ssize_t n = writev(w->fd, io, b->len ? 2 : 1);

	if (n >= 0)
		return 1;
	/* The kernel's answer when no tracer has the event enabled (any more). */
	if (errno == EBADF)
		return 0;
	if (errno == EFAULT)
		return tr_fail(-EFAULT, "the kernel refused an event of '%s': a string or array "
			       "does not fit the record", w->name);
	return tr_fail(-errno, "cannot write user event '%s': %s", w->name, strerror(errno));
}

void uev_close(struct uev_writer *w)
{
	if (!w)
		return;
	/* Unregister before the word is freed: the kernel would go on writing it. */
	if (w->fd >= 0 && w->word)
		unreg(w->fd, w->word);
	if (w->fd >= 0)
		close(w->fd);
	free(w->word);
	free(w->name);
	free(w->fields);
	free(w);
}
