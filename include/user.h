/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User events (the kernel's user_events ABI, see user_abi.h): events that a
 * process defines and writes into the same ring buffers as kernel events.
 * tr adds persistent ones, lists and deletes them, and emits events from
 * the command line.  The field format itself is userfmt.h.
 *
 * Every entry point first requires CAP_USER_EVENTS (caps.h), so on a
 * kernel without CONFIG_USER_EVENTS each fails with that one reason.
 * Errors are -errno with the message left by tr_fail().
 *
 * Emitting, in order:
 *   uev_open(name, fields, multi, &w)   register on a private descriptor
 *   uev_encode(w, assignments, &buf)    check and lay out the values
 *   uev_enabled(w)                      the kernel's enable bit
 *   uev_write(w, buf)                   one event (1), or 0 if nobody traces it
 *   uev_close(w)                        unregister the bit, close
 */
#ifndef TR_USER_H
#define TR_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tr.h"
#include "userfmt.h"

/* Who has a user event enabled, from user_events_status. */
enum {
	UEV_FTRACE = 1 << 0,
	UEV_PERF = 1 << 1,
	UEV_OTHER = 1 << 2,
};

/* ---- pure parts (unit-tested) ---- */

struct uev_status_ent {
	char *tracepoint;	/* "name", or "name.1a" for a multi-format version */
	unsigned used_by;	/* UEV_* */
};

struct uev_status {
	struct uev_status_ent *v;
	size_t n;
	int active, busy;	/* the kernel's own counts */
};

/* Parse the text of user_events_status.  0 or -EINVAL (tr_fail says where). */
int uev_status_parse(const char *text, struct uev_status *out);
void uev_status_free(struct uev_status *s);
/* "ftrace", "ftrace, perf", ... for used_by (static); "" when unused. */
const char *uev_used_by_text(unsigned used_by);

/*
 * "name" or "name.1a" under system user_events_multi: the registered name,
 * and whether the suffix is a multi-format version ('.' then hex digits).
 */
bool uev_multi_split(const char *tracepoint, char *name, size_t n);

/* A laid-out payload (what follows the write_index). */
struct uev_buf {
	uint8_t *p;
	size_t len;
};

/*
 * Lay out the values for an event with this format: assignments are
 * "FIELD=VALUE" (fields not named are zero or empty).  Integers take
 * decimal or 0x hex and must fit the type; char[N] takes text of at most
 * N-1 bytes; __data_loc/__rel_loc char[] take any text (without NUL
 * bytes); other arrays and struct fields take hex bytes ("01,02,ff" or
 * "0102ff"), a struct at most its size (zero-filled).  The event (8-byte
 * header plus payload) must be at most max_event bytes.  0, or -EINVAL /
 * -E2BIG / -ERANGE with tr_fail() naming the field and the value.
 */
int uev_encode_values(const char *event, const char *fields, const struct uf_format *fmt,
		      const struct strv *assignments, size_t max_event, struct uev_buf *out);
void uev_buf_free(struct uev_buf *b);

/*
 * Split one --stdin line into "FIELD=VALUE" words: blanks separate them,
 * a VALUE in double quotes keeps its blanks (\" and \\ inside).  -EINVAL on
 * an unclosed quote.
 */
int uev_split_line(const char *line, struct strv *out);

/* ---- the kernel ---- */

/* One user event (one tracepoint) as the kernel has it now. */
struct uev_info {
	char *name;		/* as registered */
	char *system;		/* user_events or user_events_multi */
	char *tracepoint;	/* name, or name.<hex> for a multi-format version */
	char *fields;		/* canonical format, as dynamic_events shows it */
	unsigned used_by;	/* UEV_* */
	bool by_tr;		/* added by tr user add (tr reset removes it) */
};

struct uev_list {
	struct uev_info *v;
	size_t n;
	int active, busy;
};

/* Every user event, sorted by system then tracepoint. */
int uev_list(struct uev_list *out);
void uev_list_free(struct uev_list *l);

/*
 * Add a persistent event (needs CAP_PERFMON): single-format, or with multi
 * one more format under its name.  Checks the name and the format first;
 * on success it is noted for tr reset (after tfs_keep()).  *tracepoint gets
 * "user_events:NAME" or "user_events_multi:NAME.<hex>".
 */
int uev_add(const char *name, const char *fields, bool multi, char **tracepoint);

/*
 * tr probe add's user events: "u:NAME [FIELDS]", the line the kernel's
 * dynamic_events takes, which makes a persistent single-format event (the
 * kernel refuses flags after the name, and has no multi-format form of the
 * line).  uev_dyn_parse() splits it (pure: -EINVAL with tr_fail() saying
 * what is wrong); uev_add_dyn() checks it as uev_add() does and writes it
 * to dynamic_events, noted for tr reset; *tracepoint as uev_add().
 */
int uev_dyn_parse(const char *def, char **name, char **fields);
int uev_add_dyn(const char *def, char **tracepoint);
/* Is this "u:NAME FIELDS" line of dynamic_events an event tr added? */
bool uev_dyn_by_tr(const char *line);

/*
 * Delete NAME (every format of it), with DIAG_IOCSDEL on a descriptor of its
 * own; or one version, "user_events_multi:NAME.<hex>", through
 * dynamic_events.  -EBUSY names who uses it; the event stays.
 */
int uev_delete(const char *what);

struct uev_writer;

/*
 * Register NAME for writing.  With fields NULL the event must exist: its
 * single-format version, or its only multi-format one.  With fields, the
 * event is registered with that format (multi: as a multi-format version)
 * for as long as the writer is open, unless it already exists with it.
 */
int uev_open(const char *name, const char *fields, bool multi, struct uev_writer **out);
const char *uev_writer_fields(const struct uev_writer *w);
const struct uf_format *uev_writer_format(const struct uev_writer *w);
/* The largest event this kernel's ring buffer takes (header included). */
size_t uev_writer_max_event(const struct uev_writer *w);
/* Is the event traced now (the kernel's enable bit)? */
bool uev_enabled(const struct uev_writer *w);
/* Write one event: 1 written, 0 nobody traces it, or -errno. */
int uev_write(struct uev_writer *w, const struct uev_buf *b);
void uev_close(struct uev_writer *w);

#endif
