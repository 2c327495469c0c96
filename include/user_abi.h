/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's user_events ABI (Linux 6.4 and later) as tr and libtr-user
 * use it: the registration structs and ioctls (tfs-user-abi.h, at the
 * bottom, where the capability probe uses them too), the systems the
 * kernel puts the events in and its limits.
 *
 * The protocol, in short:
 *   fd = open("<tracefs>/user_events_data", O_RDWR);
 *   ioctl(fd, DIAG_IOCSREG, &reg)     register "name field; field" and an
 *                                     enable bit the kernel keeps current;
 *   writev(fd, [write_index, payload]) one event, while the bit is set;
 *   ioctl(fd, DIAG_IOCSUNREG, &unreg) stop updating the bit;
 *   ioctl(fd2, DIAG_IOCSDEL, "name")  delete it, on a descriptor that holds
 *                                     no reference to it.
 * The kernel answers EINVAL to flags it does not know: try with, then
 * without.
 */
#ifndef TR_USER_ABI_H
#define TR_USER_ABI_H

#include <stdint.h>

#include "tfs-user-abi.h"

/* The systems the kernel puts user events in (it may choose others later). */
#define USER_EVENTS_SYSTEM "user_events"
#define USER_EVENTS_MULTI_SYSTEM "user_events_multi"
/* dynamic_events lists user events as "u:NAME FIELDS". */
#define USER_EVENTS_PREFIX "u:"

/* A __data_loc / __rel_loc word: length in the high half, offset in the low. */
#define USER_DYN_LOC(offset, size) ((uint32_t)(size) << 16 | (uint32_t)(offset))

/* The kernel's limits: the whole "NAME FIELDS" string, and char[N]. */
#define USER_EVENT_DESC_MAX 512
#define USER_EVENT_ARRAY_MAX 1024

#endif
