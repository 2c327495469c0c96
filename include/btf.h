/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Constants from BTF (/sys/kernel/btf/vmlinux): the values of enums and the
 * sizes of structs.  Event formats name enum constants the kernel did not
 * turn into numbers (HRTIMER_MODE_ABS, IOPRIO_CLASS_BE, I_DIRTY_SYNC, ...);
 * the kernel's printer looks them up here.  Only kinds needed are read; the
 * blob is checked as it is walked, so a bad one gives NULL, never a crash.
 *
 *   b = btf_load(data, len);        // NULL: not BTF, or damaged
 *   btf_enum(b, "I_DIRTY_SYNC", &v);
 *   btf_struct_size(b, "page");     // 0: unknown
 *   btf_func_args(b, "vfs_read", args, 6, true, buf, n);
 *   btf_func_proto(b, "vfs_read", buf, n);   // "ssize_t vfs_read(struct file *file, ...)"
 *   btf_free(b);
 */
#ifndef TR_BTF_H
#define TR_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

struct btf *btf_load(const void *data, size_t len);
bool btf_enum(const struct btf *b, const char *name, int64_t *v);
unsigned btf_struct_size(const struct btf *b, const char *name);
/*
 * A function's arguments as the kernel's print_function_args() writes them
 * for funcgraph-args, without the parentheses: "name=value" for each
 * parameter from func's BTF prototype, pointers in hex, ints in decimal
 * (unsigned ones in hex when uint_hex, as newer kernels do), enums in
 * decimal, anything else as "(STRUCT)[0x..:0x..]", "..." past nargs.
 * False (buf "") when func has no prototype here.
 */
bool btf_func_args(const struct btf *b, const char *func, const uint64_t *args, int nargs,
		   bool uint_hex, char *buf, size_t n);
/*
 * func's prototype as C declares it, "ssize_t vfs_read(struct file *file,
 * char *buf, size_t count, loff_t *pos)", into buf (cut at n); false (buf
 * "") when func has none here.
 */
bool btf_func_proto(const struct btf *b, const char *func, char *buf, size_t n);
/* fn for each function BTF declares, once a name, in the blob's order. */
void btf_each_func(const struct btf *b, void (*fn)(void *arg, const char *name), void *arg);
void btf_free(struct btf *b);

#endif
