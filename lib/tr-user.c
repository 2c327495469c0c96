// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libtr-user: user events for applications (see tr-user.h).
 *
 * Everything here runs on the slow path only: the first emit of an event
 * (which registers it), and emits while a tool traces it.  The fast path is
 * the inline test in tr-user.h of the state word the kernel keeps current.
 *
 * Note that the state word is shared with the kernel: it sets and clears
 * bit 0 atomically whenever a tracer comes or goes, so every change this
 * library makes to the word (bit 31) is atomic too.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tr-user.h"
#include "user_abi.h"
#include "userfmt.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int data_fd = -1;
static struct tr_user_event *registered;	/* newest first */
static bool hooks_installed;

static int open_data(void)
{
	const char *root = getenv("TR_TRACEFS");
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[4096];
	int fd = -1, err = ENOENT;

	if (root && *root) {
		snprintf(path, sizeof(path), "%s/user_events_data", root);
		fd = open(path, O_RDWR | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && fd < 0; i++) {
		snprintf(path, sizeof(path), "%s/user_events_data", roots[i]);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT)
			err = errno;
	}
	return fd < 0 ? -err : fd;
}

static void unregister_word(int fd, void *word, unsigned bit)
{
	struct user_unreg u = { .size = sizeof(u), .disable_bit = (uint8_t)bit,
				.disable_addr = (uintptr_t)word };

	ioctl(fd, DIAG_IOCSUNREG, &u);
}

/* Both of its enable bits: the state word's, and the caller's own if any.
 * The kernel clears each bit as it lets it go. */
static void unregister_one(int fd, struct tr_user_event *ev)
{
	unregister_word(fd, &ev->state, 0);
	if (ev->own_word)
		unregister_word(fd, ev->own_word, ev->own_bit);
}

void tr_user_unregister_all(void)
{
	pthread_mutex_lock(&lock);
	for (struct tr_user_event *ev = registered; ev; ev = ev->next) {
		if (data_fd >= 0)
			unregister_one(data_fd, ev);
		/* Off for good: the kernel no longer keeps the bits. */
		__atomic_store_n(&ev->state, 0, __ATOMIC_RELAXED);
	}
	registered = NULL;
	if (data_fd >= 0)
		close(data_fd);
	data_fd = -1;
	pthread_mutex_unlock(&lock);
}

static void at_exit(void)
{
	tr_user_unregister_all();
}

/*
 * In a child after fork(): the kernel copied our enable bits into the
 * child's memory and keeps them, and the descriptor is the parent's.  Give
 * the child its own: mark every event unregistered, so its next emit
 * unregisters the inherited bit and registers again on a descriptor of the
 * child's own.
 */
static void at_fork_child(void)
{
	pthread_mutex_init(&lock, NULL);
	for (struct tr_user_event *ev = registered; ev; ev = ev->next)
		__atomic_fetch_or(&ev->state, TR_USER_UNREGISTERED, __ATOMIC_RELAXED);
	if (data_fd >= 0)
		close(data_fd);
	data_fd = -1;
}

static bool on_list(const struct tr_user_event *ev)
{
	for (const struct tr_user_event *e = registered; e; e = e->next)
		if (e == ev)
			return true;
	return false;
}

/* Called with the lock held, when bit 31 of the state is set. */
static int register_locked(struct tr_user_event *ev)
{
	struct uf_format *fmt = ev->format;
	struct uf_error err;
	struct user_reg reg;
	char desc[USER_EVENT_DESC_MAX];
	size_t nlen = strlen(ev->name), len;
	bool again = on_list(ev);	/* after fork: the kernel still has the parent's bit */
	int r;

	if (!(__atomic_load_n(&ev->state, __ATOMIC_RELAXED) & TR_USER_UNREGISTERED))
		return ev->error;
	if (!fmt) {
		fmt = malloc(sizeof(*fmt));
		if (!fmt)
			return -ENOMEM;
		if (uf_name_problem(ev->name) || uf_parse(ev->fields ? ev->fields : "", fmt, &err)) {
			free(fmt);
			r = -EINVAL;
			goto failed;
		}
		ev->format = fmt;
	}
	if (nlen + 1 >= sizeof(desc)) {
		r = -E2BIG;
		goto failed;
	}
	memcpy(desc, ev->name, nlen);
	desc[nlen] = ' ';
	len = uf_canonical(ev->fields ? ev->fields : "", fmt, desc + nlen + 1, sizeof(desc) - nlen - 1);
	if (nlen + 1 + len >= sizeof(desc)) {
		r = -E2BIG;
		goto failed;
	}
	if (!len)
		desc[nlen] = '\0';
	if (data_fd < 0) {
		data_fd = open_data();
		if (data_fd < 0) {
			r = data_fd;
			data_fd = -1;
			goto failed;
		}
	}
	if (again)
		unregister_one(data_fd, ev);
	/* Only bit 31 stays ours: the kernel sets bit 0 as it registers. */
	__atomic_fetch_and(&ev->state, TR_USER_UNREGISTERED, __ATOMIC_RELAXED);
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.enable_bit = 0;
	reg.enable_size = sizeof(ev->state);
	reg.enable_addr = (uintptr_t)&ev->state;
	reg.name_args = (uintptr_t)desc;
	reg.flags = (ev->flags & TR_USER_MULTI) ? USER_EVENT_REG_MULTI_FORMAT : 0;
	r = ioctl(data_fd, DIAG_IOCSREG, &reg) < 0 ? -errno : 0;
	/* A kernel before multi-format answers EINVAL to the flag: go without. */
	if (r == -EINVAL && reg.flags) {
		reg.flags = 0;
		r = ioctl(data_fd, DIAG_IOCSREG, &reg) < 0 ? -errno : 0;
	}
	if (r)
		goto failed;
	if (ev->own_word) {
		/*
		 * A second enabler of the same event on the same descriptor: the
		 * kernel keeps one bit per (address, bit) and gives the same
		 * write index.
		 */
		struct user_reg own = reg;

		own.enable_bit = ev->own_bit;
		own.enable_size = ev->own_size;
		own.enable_addr = (uintptr_t)ev->own_word;
		r = ioctl(data_fd, DIAG_IOCSREG, &own) < 0 ? -errno : 0;
		if (r) {
			unregister_word(data_fd, &ev->state, 0);
			goto failed;
		}
	}
	ev->write_index = reg.write_index;
	if (!again) {
		ev->next = registered;
		registered = ev;
	}
	if (!hooks_installed) {
		atexit(at_exit);
		pthread_atfork(NULL, NULL, at_fork_child);
		hooks_installed = true;
	}
	__atomic_fetch_and(&ev->state, ~TR_USER_UNREGISTERED, __ATOMIC_RELEASE);
	return 0;
failed:
	ev->error = r;
	if (again) {
		/* Off the list: nothing of it is registered in this process now. */
		struct tr_user_event **p = &registered;

		while (*p && *p != ev)
			p = &(*p)->next;
		if (*p)
			*p = ev->next;
	}
	__atomic_store_n(&ev->state, 0, __ATOMIC_RELAXED);
	return r;
}

int tr_user_register(struct tr_user_event *ev)
{
	int r;

	pthread_mutex_lock(&lock);
	r = register_locked(ev);
	pthread_mutex_unlock(&lock);
	return r;
}

int tr_user_register_bit(struct tr_user_event *ev, void *word, unsigned size, unsigned bit)
{
	uint32_t st;
	int r;

	/* The kernel's own checks (user_reg_get), made here to name the cause. */
	if (!word || (size != 4 && size != 8) || (uintptr_t)word % size || bit >= size * 8)
		return -EINVAL;
	pthread_mutex_lock(&lock);
	st = __atomic_load_n(&ev->state, __ATOMIC_RELAXED);
	if (!(st & TR_USER_UNREGISTERED) || on_list(ev)) {
		pthread_mutex_unlock(&lock);
		return ev->error ? ev->error : -EALREADY;
	}
	ev->own_word = word;
	ev->own_size = (uint8_t)size;
	ev->own_bit = (uint8_t)bit;
	r = register_locked(ev);
	if (r)
		ev->own_word = NULL;
	pthread_mutex_unlock(&lock);
	return r;
}

/* Register if needed; then 1 if the kernel wants the event now, 0 if not, or -errno. */
static int ready(struct tr_user_event *ev)
{
	uint32_t st = __atomic_load_n(&ev->state, __ATOMIC_ACQUIRE);

	if (st & TR_USER_UNREGISTERED) {
		int r = tr_user_register(ev);

		if (r)
			return r;
		st = __atomic_load_n(&ev->state, __ATOMIC_ACQUIRE);
	}
	return (st & 1) && data_fd >= 0;
}

static int write_iov(struct iovec *iov, int n)
{
	if (writev(data_fd, iov, n) >= 0)
		return 1;
	/* EBADF: the last tracer went away since the bit was read. */
	return errno == EBADF ? 0 : -errno;
}

int tr_user_writev_slow(struct tr_user_event *ev, const struct iovec *iov, int n)
{
	struct iovec all[64];
	int r = ready(ev);

	if (r <= 0)
		return r;
	if (n < 0 || n > 63)
		return -EINVAL;
	all[0].iov_base = &ev->write_index;
	all[0].iov_len = sizeof(ev->write_index);
	memcpy(all + 1, iov, (size_t)n * sizeof(*iov));
	return write_iov(all, n + 1);
}

int tr_user_emit_slow(struct tr_user_event *ev, ...)
{
	const struct uf_format *fmt;
	struct iovec iov[2 + UF_MAX_FIELDS];
	uint8_t small[256], *fixed;
	uint32_t tail;
	int n = 2, r = ready(ev);
	va_list ap;

	if (r <= 0)
		return r;
	fmt = ev->format;
	fixed = fmt->size <= sizeof(small) ? small : malloc(fmt->size);
	if (!fixed)
		return -ENOMEM;
	memset(fixed, 0, fmt->size);
	tail = fmt->size;
	va_start(ap, ev);
	for (uint32_t i = 0; i < fmt->n; i++) {
		const struct uf_field *f = &fmt->f[i];
		uint8_t *p = fixed + f->offset;

		switch (f->kind) {
		case UF_INT:
			if (f->size == 8) {
				uint64_t v = va_arg(ap, uint64_t);

				memcpy(p, &v, 8);
			} else {
				unsigned v = va_arg(ap, unsigned);

				if (f->size == 1)
					*p = (uint8_t)v;
				else if (f->size == 2)
					memcpy(p, &(uint16_t){ (uint16_t)v }, 2);
				else
					memcpy(p, &v, 4);
			}
			break;
		case UF_ARRAY: {
			const char *s = va_arg(ap, const char *);
			size_t l = s ? strnlen(s, f->size - 1) : 0;

			if (l)
				memcpy(p, s, l);
			break;
		}
		case UF_STRUCT: {
			const void *s = va_arg(ap, const void *);

			if (s)
				memcpy(p, s, f->size);
			break;
		}
		case UF_DYN: {
			const void *d = va_arg(ap, const void *);
			size_t l = f->str ? (d ? strlen(d) + 1 : 1) : va_arg(ap, size_t);
			uint32_t off;

			if (!d)
				d = "";
			if (!f->str && !l)
				d = NULL;
			if (tail + l > 0xffff) {
				r = -E2BIG;
				goto out;
			}
			/* __data_loc counts from the record's start (8 bytes of header
			 * come before the payload), __rel_loc from the end of the word. */
			off = f->rel ? tail - (f->offset + 4) : tail + 8;
			uint32_t loc = (uint32_t)l << 16 | (off & 0xffff);

			memcpy(p, &loc, 4);
			if (l) {
				iov[n].iov_base = (void *)d;
				iov[n].iov_len = l;
				n++;
			}
			tail += (uint32_t)l;
			break;
		}
		}
	}
	iov[0].iov_base = &ev->write_index;
	iov[0].iov_len = sizeof(ev->write_index);
	iov[1].iov_base = fixed;
	iov[1].iov_len = fmt->size;
	r = write_iov(iov, n);
out:
	va_end(ap);
	if (fixed != small)
		free(fixed);
	return r;
}
