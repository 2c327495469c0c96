/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Persistent ring buffers (Linux 6.12+): an instance whose buffer lives in
 * memory reserved at boot (reserve_mem=SIZE:ALIGN:LABEL with
 * trace_instance=NAME@LABEL, or memmap= with trace_instance=NAME@ADDR:SIZE),
 * which the next boot validates and, if it survived, exposes as the previous
 * boot's data until it is read out or cleared.  Such an instance has a
 * last_boot_info file: "# Current" once it holds this boot's data, else the
 * previous boot's kernel text address ("ADDR\t[kernel]") and one line per
 * module loaded then ("ADDR\tNAME"), so that addresses recorded then can be
 * mapped to this boot's symbols (KASLR moves both).  A backup instance
 * (trace_instance=backup=NAME, newer kernels) is a read-only copy of one.
 *
 * The parser is pure and bounded (it reads files and trace.dat options a
 * peer may have written: a fuzz target); the listing reads tracefs.
 */
#ifndef TR_TFS_PERSIST_H
#define TR_TFS_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Caps: the kernel keeps the list in one scratch page or so. */
#define TFS_LAST_BOOT_MAX_MODS 4096
#define TFS_LAST_BOOT_MAX_TEXT (1u << 20)

struct tfs_boot_mod {
	uint64_t addr;		/* the module's text in the previous boot */
	char name[64];
};

struct tfs_last_boot {
	bool current;		/* "# Current": this boot's data, nothing to map */
	uint64_t text;		/* the previous boot's kernel text (when !current) */
	size_t nmods;
	struct tfs_boot_mod *mods;	/* sorted by addr */
};

/*
 * Parse last_boot_info's text (len bytes, need not end in NUL).  0, or
 * -EINVAL with tr_fail() naming the line; *lb is then empty.  Free with
 * tfs_last_boot_free().
 */
int tfs_last_boot_parse(const char *text, size_t len, struct tfs_last_boot *lb);
void tfs_last_boot_free(struct tfs_last_boot *lb);

/*
 * Map kallsyms text of this boot ("ADDR TYPE NAME [MOD]" lines) to the
 * previous boot's addresses, so that a symbol table built from the result
 * names what a persistent buffer recorded then: kernel symbols move by the
 * text delta (this boot's _text against lb->text); a module's by its own,
 * this boot's base taken from modules (/proc/modules text, may be NULL)
 * against the previous boot's in lb; symbols of modules not in both lists
 * are left out (nothing true can be said of them), absolute ones kept.
 * Returns the new text (malloc'd), or NULL with tr_fail() when the text has
 * no _text to measure the delta from.  *delta gets the text delta
 * (this boot minus the previous one).
 */
char *tfs_last_boot_rebase(const char *kallsyms, const char *modules,
			   const struct tfs_last_boot *lb, int64_t *delta);

/* One persistent instance of the running kernel. */
struct tfs_persist {
	char *name;
	bool backup;		/* read-only copy (no tracing_on): a backup instance */
	bool last_boot;		/* holds the previous boot's data */
	bool empty;		/* a previous boot's buffer with nothing in it */
	char *info;		/* last_boot_info as read */
	struct tfs_last_boot lb;	/* parsed; empty when it did not parse */
	char *bad;		/* NULL, or why lb is empty (the text did not parse) */
};

/*
 * The instances that have a last_boot_info file, sorted by name.  0 (also
 * when there is none), or a negative errno.  Free with tfs_persist_free().
 */
int tfs_persist_list(struct tfs_persist **out, size_t *n);
void tfs_persist_free(struct tfs_persist *p, size_t n);
/* Free what one holds (one tfs_persist_get() filled). */
void tfs_persist_clear(struct tfs_persist *p);
/* The one named, read now; -ENOENT if it is not persistent (no last_boot_info). */
int tfs_persist_get(const char *name, struct tfs_persist *out);
/* What it holds, in the words tr check and tr stat both print. */
const char *tfs_persist_what(const struct tfs_persist *p);

#endif
