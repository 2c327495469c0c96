/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User-space symbols for `tr report --user-syms`: a user stack's address,
 * already named by object (sym-userobj, from the recording's memory maps),
 * named by the function of that object's ELF symbol tables (.symtab and
 * .dynsym) that holds it.
 *
 * The ELF is read at report time from the path the map names, which may
 * be gone or another file on this machine: every offset and size in it is
 * checked against the file's size, and what cannot be read is remembered
 * with why, to be said once (usym_cache_unread).  64-bit ELF of this
 * machine's byte order only.  A file changed since the recording cannot be
 * told (the map stores no build-id): an address outside its loadable
 * segments, or between its functions, is simply not named.
 */
#ifndef TR_FMT_USYM_H
#define TR_FMT_USYM_H

#include <stddef.h>
#include <stdint.h>

struct usym_elf;

/*
 * Read the function symbols of an ELF image of size bytes: 0 and *out, or
 * -ENOEXEC with why (a phrase) when it is no ELF tr reads.
 */
int usym_elf_parse(const uint8_t *img, size_t size, struct usym_elf **out, const char **why);
/* The same from a file: -errno when it cannot be opened or read. */
int usym_elf_load(const char *path, struct usym_elf **out, const char **why);
/*
 * The link-time address the object's lowest mapping starts at: its first
 * loadable segment's, down to the page (0 for PIEs and libraries).
 */
uint64_t usym_elf_base(const struct usym_elf *e);
/* The function holding link-time address vaddr and *off into it, or NULL. */
const char *usym_elf_find(const struct usym_elf *e, uint64_t vaddr, uint64_t *off);
size_t usym_elf_count(const struct usym_elf *e);
void usym_elf_free(struct usym_elf *e);

/* Objects read once each, by path. */
struct usym_cache;
struct usym_cache *usym_cache_new(void);
/*
 * The function at ip of the object at path whose lowest mapping in the
 * process starts at low, and *off into it; NULL when none (or the object
 * cannot be read: remembered).
 */
const char *usym_cache_find(struct usym_cache *c, const char *path, uint64_t low, uint64_t ip,
			    uint64_t *off);
/* "'PATH' (why), ..." of the objects that could not be read, or NULL; the caller's. */
char *usym_cache_unread(const struct usym_cache *c);
void usym_cache_free(struct usym_cache *c);

#endif
