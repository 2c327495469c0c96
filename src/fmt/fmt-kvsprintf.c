// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's vsnprintf, one conversion at a time: lib/vsprintf.c's
 * number() and string() with their flags, and the pointer extensions trace
 * formats use (%p as %px, %pS/%ps/%pB, %pI4/%pI6/%pI6c/%pIS, %pU, %pM,
 * %ph, %*pb[l]).  The value comes from the argument's tree (fmt-kexpr.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "fmt-kernel-local.h"


/* ---- the kernel's vsnprintf ---- */


static void out_c(struct fmt_line *o, char c, int n)
{
	if (n <= 0)
		return;
	fmt_line_grow(o, n);
	memset(o->p + o->len, c, n);
	o->len += n;
}

/* lib/vsprintf.c's knumber(), the same steps in the same order. */
void knumber(struct fmt_line *o, uint64_t num, int base, int flags, int width, int prec)
{
	char tmp[66];
	char sign = 0;
	char locase = (flags & F_SMALL) ? 0x20 : 0;
	bool need_pfx = (flags & F_SPECIAL) && base != 10;
	bool is_zero = num == 0;
	int i = 0;

	if (flags & F_LEFT)
		flags &= ~F_ZEROPAD;
	if (flags & F_SIGN) {
		if ((int64_t)num < 0) {
			sign = '-';
			num = -num;
			width--;
		} else if (flags & F_PLUS) {
			sign = '+';
			width--;
		} else if (flags & F_SPACE) {
			sign = ' ';
			width--;
		}
	}
	if (need_pfx) {
		if (base == 16)
			width -= 2;
		else if (!is_zero)
			width--;
	}
	if (num < (uint64_t)base) {
		tmp[i++] = "0123456789ABCDEF"[num] | locase;
	} else if (base != 10) {
		int shift = base == 16 ? 4 : 3;

		do {
			tmp[i++] = "0123456789ABCDEF"[num & (base - 1)] | locase;
			num >>= shift;
		} while (num);
	} else {
		do {
			tmp[i++] = '0' + num % 10;
			num /= 10;
		} while (num);
	}
	if (i > prec)
		prec = i;
	width -= prec;
	fmt_line_grow(o, (width > 0 ? width : 0) + prec + 4);
	if (!(flags & (F_ZEROPAD | F_LEFT)))
		while (--width >= 0)
			o->p[o->len++] = ' ';
	if (sign)
		o->p[o->len++] = sign;
	if (need_pfx) {
		if (base == 16 || !is_zero)
			o->p[o->len++] = '0';
		if (base == 16)
			o->p[o->len++] = 'X' | locase;
	}
	if (!(flags & F_LEFT)) {
		char c = (flags & F_ZEROPAD) ? '0' : ' ';

		while (--width >= 0)
			o->p[o->len++] = c;
	}
	while (i <= --prec)
		o->p[o->len++] = '0';
	while (--i >= 0)
		o->p[o->len++] = tmp[i];
	while (--width >= 0)
		o->p[o->len++] = ' ';
}

/* kstring_fmt(): at most prec bytes, padded to width. */
void kstring_fmt(struct fmt_line *o, const char *s, size_t max, int flags, int width, int prec)
{
	size_t n;

	if (prec >= 0 && (size_t)prec < max)
		max = prec;
	n = strnlen(s, max);
	if (!(flags & F_LEFT))
		out_c(o, ' ', width - (int)n);
	kput(o, s, n);
	if (flags & F_LEFT)
		out_c(o, ' ', width - (int)n);
}

/* A number as the kernel prints "0x%lx" / pointer_string: 16 (8) zero-padded digits. */
static void pointer_string(struct fmt_line *o, uint64_t v, const struct kenv *env, int flags,
			   int width, int prec)
{
	if (width == -1) {
		width = 2 * env->long_size;
		flags |= F_ZEROPAD;
	}
	knumber(o, v, 16, flags | F_SMALL, width, prec);
}

/* %pS, %ps, %pB: "name+0xoff/0xsize [module]", or 0x%lx when no symbol covers it. */
void ksymbol(struct fmt_line *o, const struct kenv *env, uint64_t v, const char *ext,
		   int flags, int width, int prec)
{
	char buf[512];
	const char *name, *mod;
	uint64_t start, size, addr = v;
	int n;
	bool off = ext[0] != 's', back = ext[0] == 'B';

	if (back)
		addr--;
	if (!env->sym || !env->sym(env->ctx, addr, &name, &start, &size, &mod)) {
		n = snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	} else {
		n = snprintf(buf, sizeof(buf), "%s", name);
		if (off && n < (int)sizeof(buf)) {
			struct fmt_line t = { 0 };
			uint64_t ofs = addr - start + (back ? 1 : 0);

			n += snprintf(buf + n, sizeof(buf) - n, "+");
			knumber(&t, ofs, 16, F_SPECIAL | F_SMALL, -1, -1);
			kput(&t, "/", 1);
			knumber(&t, size, 16, F_SPECIAL | F_SMALL, -1, -1);
			if (n < (int)sizeof(buf))
				n += snprintf(buf + n, sizeof(buf) - n, "%.*s", (int)t.len, t.p);
			free(t.p);
		}
		if (mod && n < (int)sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, " [%s]", mod);
	}
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	kstring_fmt(o, buf, n, flags, width, prec);
}

static void ip4(char *buf, const uint8_t *a, char fmt)
{
	if (fmt == 'i')
		sprintf(buf, "%03u.%03u.%03u.%03u", a[0], a[1], a[2], a[3]);
	else
		sprintf(buf, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

/* ip6_compressed_string(): the longest run of zero words as "::", v4-mapped kept as v4. */
static void ip6c(char *p, const uint8_t *a)
{
	int zerolength[8] = { 0 }, longest = 1, colonpos = -1, i, j, range;
	bool needcolon = false, useIPv4;
	uint16_t word[8];

	for (i = 0; i < 8; i++)
		word[i] = a[2 * i] << 8 | a[2 * i + 1];
	/* ipv6_addr_v4mapped / is ISATAP */
	/* ipv6_addr_v4mapped() or ipv6_addr_is_isatap() */
	useIPv4 = (!word[0] && !word[1] && !word[2] && !word[3] && !word[4] && word[5] == 0xffff) ||
		  ((word[4] | 0x0200) == 0x0200 && word[5] == 0x5efe);
	range = useIPv4 ? 6 : 8;
	for (i = 0; i < range; i++)
		for (j = i; j < range; j++) {
			if (word[j] != 0)
				break;
			zerolength[i]++;
		}
	for (i = 0; i < range; i++)
		if (zerolength[i] > longest) {
			longest = zerolength[i];
			colonpos = i;
		}
	if (longest == 1)
		colonpos = -1;
	for (i = 0; i < range; i++) {
		if (i == colonpos) {
			if (needcolon || i == 0)
				*p++ = ':';
			*p++ = ':';
			needcolon = false;
			i += longest - 1;
			continue;
		}
		if (needcolon) {
			*p++ = ':';
			needcolon = false;
		}
		p += sprintf(p, "%x", word[i]);
		needcolon = true;
	}
	if (useIPv4) {
		if (needcolon)
			*p++ = ':';
		ip4(p, a + 12, 'I');
		p += strlen(p);
	}
	*p = '\0';
}

static void ip6(char *p, const uint8_t *a, char fmt)
{
	for (int i = 0; i < 8; i++) {
		p += sprintf(p, "%02x%02x", a[2 * i], a[2 * i + 1]);
		if (fmt == 'I' && i != 7)
			*p++ = ':';
	}
	*p = '\0';
}

/* %pI4 %pi4 %pI6 %pI6c %pi6 %pIS[pfsc]: false if the argument is not the record's. */
static bool ip_addr(struct fmt_line *o, const struct kval *k, const char *ext, int flags,
		    int width, int prec, const struct ectx *c)
{
	char buf[128];
	char fmt = ext[0];
	const uint8_t *a = k->p;

	if (!a)
		return false;
	if (ext[1] == '4') {
		if (k->n < 4)
			return false;
		ip4(buf, a, fmt);
	} else if (ext[1] == '6') {
		if (k->n < 16)
			return false;
		if (fmt == 'I' && ext[2] == 'c')
			ip6c(buf, a);
		else
			ip6(buf, a, fmt);
	} else if (ext[1] == 'S') {
		/* struct sockaddr: family, then the port and the address. */
		bool port = false, scope = false, flow = false, comp = false;
		uint16_t fam, pt;
		char *p = buf;

		for (int i = 2; ext[i]; i++) {
			port |= ext[i] == 'p';
			scope |= ext[i] == 's';
			flow |= ext[i] == 'f';
			comp |= ext[i] == 'c';
		}
		if (k->n < 2)
			return false;
		fam = (uint16_t)krd(c, a, 2, false);
		if (fam == 2) {
			if (k->n < 8)
				return false;
			pt = a[2] << 8 | a[3];
			ip4(p, a + 4, fmt);
			p += strlen(p);
			if (port)
				sprintf(p, ":%u", pt);
		} else if (fam == 10) {
			if (k->n < 28)
				return false;
			pt = a[2] << 8 | a[3];
			if (port)
				*p++ = '[';
			if (fmt == 'I' && comp)
				ip6c(p, a + 8);
			else
				ip6(p, a + 8, fmt);
			p += strlen(p);
			if (port)
				p += sprintf(p, "]:%u", pt);
			if (flow) {
				uint32_t fl = (uint32_t)a[4] << 24 | a[5] << 16 | a[6] << 8 | a[7];

				p += sprintf(p, "/%u", fl & 0x000fffff);
			}
			if (scope)
				p += sprintf(p, "%%%u", (unsigned)krd(c, a + 24, 4, false));
			*p = '\0';
		} else {
			snprintf(buf, sizeof(buf), "(invalid address)");
		}
	} else {
		return false;
	}
	kstring_fmt(o, buf, strlen(buf), flags, width, prec);
	return true;
}

void kput_bitmap(struct fmt_line *o, const uint8_t *p, uint32_t bytes,
		       const struct ectx *c)
{
	/* bitmap_string(): 32-bit chunks from the top, in hex, comma separated. */
	int nbits = bytes * 8, chunksz = nbits & 31 ? nbits & 31 : 32;
	bool first = true;
	int ls = c->env->long_size;

	for (int i = (nbits - 1) & ~31; i >= 0; i -= 32) {
		uint64_t word = 0;
		uint32_t val;
		int idx = i / (ls * 8), sh = i % (ls * 8);

		if ((uint32_t)(idx + 1) * ls <= bytes)
			word = krd(c, p + idx * ls, ls, false);
		val = (uint32_t)(word >> sh);
		if (!first)
			kput(o, ",", 1);
		fmt_line_printf(o, "%0*x", (chunksz + 3) / 4, val & (chunksz == 32 ? 0xffffffffu :
								  ((1u << chunksz) - 1)));
		chunksz = 32;
		first = false;
	}
}

/* %*pb / %*pbl: a bitmap of width bits. */
static bool bitmap(struct fmt_line *o, const struct kval *k, int nbits, bool list,
		   const struct ectx *c)
{
	int ls = c->env->long_size;

	if (!k->p || nbits < 0 || (uint64_t)(nbits + 7) / 8 > k->n)
		return false;
	if (!list) {
		int chunksz = nbits & 31 ? nbits & 31 : 32;
		bool first = true;

		for (int i = (nbits - 1) & ~31; i >= 0; i -= 32) {
			int idx = i / (ls * 8), sh = i % (ls * 8);
			uint64_t word = (uint32_t)(idx + 1) * ls <= k->n ? krd(c, k->p + idx * ls, ls, false) : 0;
			uint32_t val = (uint32_t)(word >> sh);

			if (chunksz < 32)
				val &= (1u << chunksz) - 1;
			if (!first)
				kput(o, ",", 1);
			fmt_line_printf(o, "%0*x", (chunksz + 3) / 4, val);
			chunksz = 32;
			first = false;
		}
		return true;
	}
	/* bitmap_list_string(): ranges "0-3,5". */
	{
		bool first = true;
		int b = 0;

		while (b < nbits) {
			int e;
#define BIT(n) (krd(c, k->p + ((n) / (ls * 8)) * ls, ls, false) >> ((n) % (ls * 8)) & 1)
			if (!BIT(b)) {
				b++;
				continue;
			}
			e = b;
			while (e + 1 < nbits && BIT(e + 1))
				e++;
#undef BIT
			if (!first)
				kput(o, ",", 1);
			first = false;
			if (e > b)
				fmt_line_printf(o, "%d-%d", b, e);
			else
				fmt_line_printf(o, "%d", b);
			b = e + 1;
		}
	}
	return true;
}

/* In decimal, no flags, width or precision: the common case, quickly. */
static inline void kdec(struct fmt_line *o, uint64_t v, bool sign)
{
	bool neg = sign && (int64_t)v < 0;
	int n;
	char *d;

	if (neg)
		v = -v;
	/* Straight into the line: see put_comm_pid() on copying digits. */
	n = fmt_u_len(v) + neg;
	fmt_line_grow(o, n);
	d = o->p + o->len;
	fmt_u_digits(d + n, v);
	if (neg)
		d[0] = '-';
	o->len += n;
}

bool kconv_quick(struct ectx *c, const struct conv *cv, struct fmt_line *o)
{
	const struct knode *a = cv->arg;
	struct kval k;

	switch (cv->quick) {
	case KQ_DYN_STR: {
		const uint8_t *p;
		uint32_t len;

		if (!kdyn_span(c, a, &p, &len))
			return false;
		kput(o, (const char *)p, strnlen((const char *)p, len));
		return true;
	}
	case KQ_CAST_DEC:
		if (!keval_field(c, a->a, &k))
			return false;
		k.v = kconv_to(k.v, a->t);
		break;
	default:
		if (!keval_field(c, a, &k))
			return false;
		if (cv->quick == KQ_STR) {
			kput(o, (const char *)k.p, strnlen((const char *)k.p, k.n));
			return true;
		}
	}
	kdec(o, kqual(k.v, cv->qual, cv->conv != 'u', c->env->long_size), cv->conv != 'u');
	return true;
}

bool kconv_run(struct ectx *c, const struct conv *cv, struct fmt_line *o)
{
	const struct kenv *env = c->env;
	int width = cv->width, prec = cv->prec, flags = cv->flags;
	struct kval k;
	uint64_t v;

	if (cv->warg) {
		if (!keval_num(c, cv->warg, &v))
			return false;
		width = (int)v;
		if (width < 0) {
			width = -width;
			flags |= F_LEFT;
		}
	}
	if (cv->parg) {
		if (!keval_num(c, cv->parg, &v))
			return false;
		prec = (int)v < 0 ? -1 : (int)v;
	}
	c->scratch->len = 0;
	if (cv->arg->op == N_FIELD) {
		/* The record's own bytes: never in the scratch line. */
		if (!keval_field(c, cv->arg, &k))
			return false;
	} else if (!keval(c, cv->arg, &k)) {
		return false;
	} else if (kin_scratch(c, &k)) {
		k.p = k.n ? (const uint8_t *)c->scratch->p + k.v : (const uint8_t *)"";
		k.v = 0;
	}
	switch (cv->conv) {
	case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
		int base = cv->conv == 'o' ? 8 : (cv->conv == 'x' || cv->conv == 'X') ? 16 : 10;
		bool sign = cv->conv == 'd' || cv->conv == 'i';

		if (k.p)
			return false;	/* the address of the record's data is the kernel's */
		v = k.v;
		if (cv->conv == 'c') {
			char ch = (char)(uint8_t)v;

			if (!(flags & F_LEFT))
				out_c(o, ' ', width - 1);
			kput(o, &ch, 1);
			if (flags & F_LEFT)
				out_c(o, ' ', width - 1);
			return true;
		}
		v = kqual(v, cv->qual, sign, env->long_size);
		if (flags == 0 && width < 0 && prec < 0 && base == 10) {
			kdec(o, v, sign);
			return true;
		}
		if (sign)
			flags |= F_SIGN;
		if (cv->conv == 'x')
			flags |= F_SMALL;
		knumber(o, v, base, flags, width, prec);
		return true;
	}
	case 's':
		if (!k.p) {
			const char *s;

			if (!k.v) {
				kstring_fmt(o, "(null)", 6, flags, width, prec);
				return true;
			}
			if (k.v < 4096 || k.v >= (uint64_t)-4095) {
				kstring_fmt(o, "(efault)", 8, flags, width, prec);
				return true;
			}
			/* A kernel string: printk_formats may have it. */
			s = env->string ? env->string(env->ctx, k.v) : NULL;
			if (!s)
				return false;
			kstring_fmt(o, s, strlen(s), flags, width, prec);
			return true;
		}
		kstring_fmt(o, (const char *)k.p, k.n, flags, width, prec);
		return true;
	case 'p':
		switch (cv->ext[0]) {
		case 'S': case 's': case 'B': case 'F': case 'f':
			if (k.p)
				return false;
			ksymbol(o, env, k.v, cv->ext[0] == 'f' ? "s" : cv->ext[0] == 'F' ? "S" : cv->ext,
			       flags, width, prec);
			return true;
		case 'I': case 'i':
			return ip_addr(o, &k, cv->ext, flags, width, prec, c);
		case 'U': {
			/* uuid_string(): b (default), B, l, L. */
			static const uint8_t be[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
			static const uint8_t le[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
			const uint8_t *ix = (cv->ext[1] == 'l' || cv->ext[1] == 'L') ? le : be;
			bool up = cv->ext[1] == 'B' || cv->ext[1] == 'L';
			char buf[40], *p = buf;

			if (!k.p || k.n < 16)
				return false;
			for (int i = 0; i < 16; i++) {
				p += sprintf(p, up ? "%02X" : "%02x", k.p[ix[i]]);
				if (i == 3 || i == 5 || i == 7 || i == 9)
					*p++ = '-';
			}
			*p = '\0';
			kstring_fmt(o, buf, strlen(buf), flags, width, prec);
			return true;
		}
		case 'M': case 'm': {
			char buf[32], *p = buf;
			bool rev = cv->ext[1] == 'R';
			char sep = cv->ext[0] == 'm' ? 0 : cv->ext[1] == 'F' ? '-' : ':';

			if (!k.p || k.n < 6)
				return false;
			for (int i = 0; i < 6; i++) {
				p += sprintf(p, "%02x", k.p[rev ? 5 - i : i]);
				if (sep && i != 5)
					*p++ = sep;
			}
			*p = '\0';
			kstring_fmt(o, buf, strlen(buf), flags, width, prec);
			return true;
		}
		case 'h': {
			/* hex_string(): width bytes (default 1), separated. */
			char sep = cv->ext[1] == 'C' ? ':' : cv->ext[1] == 'D' ? '-' :
				   cv->ext[1] == 'N' ? 0 : ' ';
			int len = width < 0 ? 1 : width;

			if (!k.p)
				return false;
			if (len > 64)
				len = 64;
			if ((uint32_t)len > k.n)
				return false;
			for (int i = 0; i < len; i++) {
				fmt_line_printf(o, "%02x", k.p[i]);
				if (sep && i != len - 1)
					kput(o, &sep, 1);
			}
			return true;
		}
		case 'b':
			return bitmap(o, &k, width, cv->ext[1] == 'l', c);
		case 'x':
			if (k.p)
				return false;
			pointer_string(o, k.v, env, flags, width, prec);
			return true;
		case 'K':
		case '\0':
			if (k.p)
				return false;
			/*
			 * Plain %p: with hash-ptr set the kernel prints a keyed
			 * hash of the address, which cannot be computed here;
			 * what it prints with hash-ptr clear is the address.
			 */
			pointer_string(o, k.v, env, flags, width, prec);
			return true;
		case 'e':
			return false;
		default:
			if (isalnum((unsigned char)cv->ext[0]))
				return false;
			if (k.p)
				return false;
			pointer_string(o, k.v, env, flags, width, prec);
			return true;
		}
	default:
		return false;
	}
}
