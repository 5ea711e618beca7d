/* Tokenising CSV input with libcsv, and the small text helpers every CSV reader shares:
 * trimming, missing-value markers, exact number parsing, delimiter detection.
 *
 * The scanner reads a file in fixed-size chunks (or a buffer at once), skips a UTF-8 byte
 * order mark, detects the delimiter from the first line, and reports each field with the
 * line it began on and each non-blank row.  Line numbers count every line feed, those
 * inside quoted fields included, so that messages name the real line of the file. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <csv.h>

#include "fedbn/core.h"
#include "csv-private.h"

/* Bytes read from a file at a time. */
#define CHUNK_SIZE (64 * 1024)
/* Smallest growth of libcsv's field buffer (libcsv's own default). */
#define FIELD_BLOCK 128

/* Exact powers of ten that a double holds without rounding. */
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* Strip blanks from both ends of (*s, *len). */
void fb_csv_trim(const char **s, size_t *len)
{
	const char *p = *s;
	size_t n = *len;

	while (n > 0 && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) {
		p++;
		n--;
	}
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' ||
	                 p[n - 1] == '\n'))
		n--;
	*s = p;
	*len = n;
}

/* True for the missing-value markers. */
bool fb_csv_is_missing(const char *s, size_t len)
{
	if (len == 0)
		return true;
	if (len == 1)
		return s[0] == '?';
	if (len == 2)
		return s[0] == 'N' && s[1] == 'A';
	if (len == 3)
		return (s[0] == 'n' || s[0] == 'N') && (s[1] == 'a' || s[1] == 'A') &&
		       (s[2] == 'n' || s[2] == 'N');
	return false;
}

#ifdef __SIZEOF_INT128__
/* The powers of ten an exact 64-bit decimal mantissa is scaled by without strtod. */
#define POW10_MIN (-64)
#define POW10_MAX 64

/* 10^e for e from POW10_MIN to POW10_MAX as 128-bit mantissas (high word, low word), the
 * top bit set, rounded down: 10^e = mantissa x 2^(floor(e log2 10) - 127). */
static const uint64_t pow10_128[][2] = {
	{ UINT64_C(0xa87fea27a539e9a5), UINT64_C(0x3f2398d747b36224) }, /* 1e-64 */
	{ UINT64_C(0xd29fe4b18e88640e), UINT64_C(0x8eec7f0d19a03aad) }, /* 1e-63 */
	{ UINT64_C(0x83a3eeeef9153e89), UINT64_C(0x1953cf68300424ac) }, /* 1e-62 */
	{ UINT64_C(0xa48ceaaab75a8e2b), UINT64_C(0x5fa8c3423c052dd7) }, /* 1e-61 */
	{ UINT64_C(0xcdb02555653131b6), UINT64_C(0x3792f412cb06794d) }, /* 1e-60 */
	{ UINT64_C(0x808e17555f3ebf11), UINT64_C(0xe2bbd88bbee40bd0) }, /* 1e-59 */
	{ UINT64_C(0xa0b19d2ab70e6ed6), UINT64_C(0x5b6aceaeae9d0ec4) }, /* 1e-58 */
	{ UINT64_C(0xc8de047564d20a8b), UINT64_C(0xf245825a5a445275) }, /* 1e-57 */
	{ UINT64_C(0xfb158592be068d2e), UINT64_C(0xeed6e2f0f0d56712) }, /* 1e-56 */
	{ UINT64_C(0x9ced737bb6c4183d), UINT64_C(0x55464dd69685606b) }, /* 1e-55 */
	{ UINT64_C(0xc428d05aa4751e4c), UINT64_C(0xaa97e14c3c26b886) }, /* 1e-54 */
	{ UINT64_C(0xf53304714d9265df), UINT64_C(0xd53dd99f4b3066a8) }, /* 1e-53 */
	{ UINT64_C(0x993fe2c6d07b7fab), UINT64_C(0xe546a8038efe4029) }, /* 1e-52 */
	{ UINT64_C(0xbf8fdb78849a5f96), UINT64_C(0xde98520472bdd033) }, /* 1e-51 */
	{ UINT64_C(0xef73d256a5c0f77c), UINT64_C(0x963e66858f6d4440) }, /* 1e-50 */
	{ UINT64_C(0x95a8637627989aad), UINT64_C(0xdde7001379a44aa8) }, /* 1e-49 */
	{ UINT64_C(0xbb127c53b17ec159), UINT64_C(0x5560c018580d5d52) }, /* 1e-48 */
	{ UINT64_C(0xe9d71b689dde71af), UINT64_C(0xaab8f01e6e10b4a6) }, /* 1e-47 */
	{ UINT64_C(0x9226712162ab070d), UINT64_C(0xcab3961304ca70e8) }, /* 1e-46 */
	{ UINT64_C(0xb6b00d69bb55c8d1), UINT64_C(0x3d607b97c5fd0d22) }, /* 1e-45 */
	{ UINT64_C(0xe45c10c42a2b3b05), UINT64_C(0x8cb89a7db77c506a) }, /* 1e-44 */
	{ UINT64_C(0x8eb98a7a9a5b04e3), UINT64_C(0x77f3608e92adb242) }, /* 1e-43 */
	{ UINT64_C(0xb267ed1940f1c61c), UINT64_C(0x55f038b237591ed3) }, /* 1e-42 */
	{ UINT64_C(0xdf01e85f912e37a3), UINT64_C(0x6b6c46dec52f6688) }, /* 1e-41 */
	{ UINT64_C(0x8b61313bbabce2c6), UINT64_C(0x2323ac4b3b3da015) }, /* 1e-40 */
	{ UINT64_C(0xae397d8aa96c1b77), UINT64_C(0xabec975e0a0d081a) }, /* 1e-39 */
	{ UINT64_C(0xd9c7dced53c72255), UINT64_C(0x96e7bd358c904a21) }, /* 1e-38 */
	{ UINT64_C(0x881cea14545c7575), UINT64_C(0x7e50d64177da2e54) }, /* 1e-37 */
	{ UINT64_C(0xaa242499697392d2), UINT64_C(0xdde50bd1d5d0b9e9) }, /* 1e-36 */
	{ UINT64_C(0xd4ad2dbfc3d07787), UINT64_C(0x955e4ec64b44e864) }, /* 1e-35 */
	{ UINT64_C(0x84ec3c97da624ab4), UINT64_C(0xbd5af13bef0b113e) }, /* 1e-34 */
	{ UINT64_C(0xa6274bbdd0fadd61), UINT64_C(0xecb1ad8aeacdd58e) }, /* 1e-33 */
	{ UINT64_C(0xcfb11ead453994ba), UINT64_C(0x67de18eda5814af2) }, /* 1e-32 */
	{ UINT64_C(0x81ceb32c4b43fcf4), UINT64_C(0x80eacf948770ced7) }, /* 1e-31 */
	{ UINT64_C(0xa2425ff75e14fc31), UINT64_C(0xa1258379a94d028d) }, /* 1e-30 */
	{ UINT64_C(0xcad2f7f5359a3b3e), UINT64_C(0x096ee45813a04330) }, /* 1e-29 */
	{ UINT64_C(0xfd87b5f28300ca0d), UINT64_C(0x8bca9d6e188853fc) }, /* 1e-28 */
	{ UINT64_C(0x9e74d1b791e07e48), UINT64_C(0x775ea264cf55347d) }, /* 1e-27 */
	{ UINT64_C(0xc612062576589dda), UINT64_C(0x95364afe032a819d) }, /* 1e-26 */
	{ UINT64_C(0xf79687aed3eec551), UINT64_C(0x3a83ddbd83f52204) }, /* 1e-25 */
	{ UINT64_C(0x9abe14cd44753b52), UINT64_C(0xc4926a9672793542) }, /* 1e-24 */
	{ UINT64_C(0xc16d9a0095928a27), UINT64_C(0x75b7053c0f178293) }, /* 1e-23 */
	{ UINT64_C(0xf1c90080baf72cb1), UINT64_C(0x5324c68b12dd6338) }, /* 1e-22 */
	{ UINT64_C(0x971da05074da7bee), UINT64_C(0xd3f6fc16ebca5e03) }, /* 1e-21 */
	{ UINT64_C(0xbce5086492111aea), UINT64_C(0x88f4bb1ca6bcf584) }, /* 1e-20 */
	{ UINT64_C(0xec1e4a7db69561a5), UINT64_C(0x2b31e9e3d06c32e5) }, /* 1e-19 */
	{ UINT64_C(0x9392ee8e921d5d07), UINT64_C(0x3aff322e62439fcf) }, /* 1e-18 */
	{ UINT64_C(0xb877aa3236a4b449), UINT64_C(0x09befeb9fad487c2) }, /* 1e-17 */
	{ UINT64_C(0xe69594bec44de15b), UINT64_C(0x4c2ebe687989a9b3) }, /* 1e-16 */
	{ UINT64_C(0x901d7cf73ab0acd9), UINT64_C(0x0f9d37014bf60a10) }, /* 1e-15 */
	{ UINT64_C(0xb424dc35095cd80f), UINT64_C(0x538484c19ef38c94) }, /* 1e-14 */
	{ UINT64_C(0xe12e13424bb40e13), UINT64_C(0x2865a5f206b06fb9) }, /* 1e-13 */
	{ UINT64_C(0x8cbccc096f5088cb), UINT64_C(0xf93f87b7442e45d3) }, /* 1e-12 */
	{ UINT64_C(0xafebff0bcb24aafe), UINT64_C(0xf78f69a51539d748) }, /* 1e-11 */
	{ UINT64_C(0xdbe6fecebdedd5be), UINT64_C(0xb573440e5a884d1b) }, /* 1e-10 */
	{ UINT64_C(0x89705f4136b4a597), UINT64_C(0x31680a88f8953030) }, /* 1e-9 */
	{ UINT64_C(0xabcc77118461cefc), UINT64_C(0xfdc20d2b36ba7c3d) }, /* 1e-8 */
	{ UINT64_C(0xd6bf94d5e57a42bc), UINT64_C(0x3d32907604691b4c) }, /* 1e-7 */
	{ UINT64_C(0x8637bd05af6c69b5), UINT64_C(0xa63f9a49c2c1b10f) }, /* 1e-6 */
	{ UINT64_C(0xa7c5ac471b478423), UINT64_C(0x0fcf80dc33721d53) }, /* 1e-5 */
	{ UINT64_C(0xd1b71758e219652b), UINT64_C(0xd3c36113404ea4a8) }, /* 1e-4 */
	{ UINT64_C(0x83126e978d4fdf3b), UINT64_C(0x645a1cac083126e9) }, /* 1e-3 */
	{ UINT64_C(0xa3d70a3d70a3d70a), UINT64_C(0x3d70a3d70a3d70a3) }, /* 1e-2 */
	{ UINT64_C(0xcccccccccccccccc), UINT64_C(0xcccccccccccccccc) }, /* 1e-1 */
	{ UINT64_C(0x8000000000000000), UINT64_C(0x0000000000000000) }, /* 1e0 */
	{ UINT64_C(0xa000000000000000), UINT64_C(0x0000000000000000) }, /* 1e1 */
	{ UINT64_C(0xc800000000000000), UINT64_C(0x0000000000000000) }, /* 1e2 */
	{ UINT64_C(0xfa00000000000000), UINT64_C(0x0000000000000000) }, /* 1e3 */
	{ UINT64_C(0x9c40000000000000), UINT64_C(0x0000000000000000) }, /* 1e4 */
	{ UINT64_C(0xc350000000000000), UINT64_C(0x0000000000000000) }, /* 1e5 */
	{ UINT64_C(0xf424000000000000), UINT64_C(0x0000000000000000) }, /* 1e6 */
	{ UINT64_C(0x9896800000000000), UINT64_C(0x0000000000000000) }, /* 1e7 */
	{ UINT64_C(0xbebc200000000000), UINT64_C(0x0000000000000000) }, /* 1e8 */
	{ UINT64_C(0xee6b280000000000), UINT64_C(0x0000000000000000) }, /* 1e9 */
	{ UINT64_C(0x9502f90000000000), UINT64_C(0x0000000000000000) }, /* 1e10 */
	{ UINT64_C(0xba43b74000000000), UINT64_C(0x0000000000000000) }, /* 1e11 */
	{ UINT64_C(0xe8d4a51000000000), UINT64_C(0x0000000000000000) }, /* 1e12 */
	{ UINT64_C(0x9184e72a00000000), UINT64_C(0x0000000000000000) }, /* 1e13 */
	{ UINT64_C(0xb5e620f480000000), UINT64_C(0x0000000000000000) }, /* 1e14 */
	{ UINT64_C(0xe35fa931a0000000), UINT64_C(0x0000000000000000) }, /* 1e15 */
	{ UINT64_C(0x8e1bc9bf04000000), UINT64_C(0x0000000000000000) }, /* 1e16 */
	{ UINT64_C(0xb1a2bc2ec5000000), UINT64_C(0x0000000000000000) }, /* 1e17 */
	{ UINT64_C(0xde0b6b3a76400000), UINT64_C(0x0000000000000000) }, /* 1e18 */
	{ UINT64_C(0x8ac7230489e80000), UINT64_C(0x0000000000000000) }, /* 1e19 */
	{ UINT64_C(0xad78ebc5ac620000), UINT64_C(0x0000000000000000) }, /* 1e20 */
	{ UINT64_C(0xd8d726b7177a8000), UINT64_C(0x0000000000000000) }, /* 1e21 */
	{ UINT64_C(0x878678326eac9000), UINT64_C(0x0000000000000000) }, /* 1e22 */
	{ UINT64_C(0xa968163f0a57b400), UINT64_C(0x0000000000000000) }, /* 1e23 */
	{ UINT64_C(0xd3c21bcecceda100), UINT64_C(0x0000000000000000) }, /* 1e24 */
	{ UINT64_C(0x84595161401484a0), UINT64_C(0x0000000000000000) }, /* 1e25 */
	{ UINT64_C(0xa56fa5b99019a5c8), UINT64_C(0x0000000000000000) }, /* 1e26 */
	{ UINT64_C(0xcecb8f27f4200f3a), UINT64_C(0x0000000000000000) }, /* 1e27 */
	{ UINT64_C(0x813f3978f8940984), UINT64_C(0x4000000000000000) }, /* 1e28 */
	{ UINT64_C(0xa18f07d736b90be5), UINT64_C(0x5000000000000000) }, /* 1e29 */
	{ UINT64_C(0xc9f2c9cd04674ede), UINT64_C(0xa400000000000000) }, /* 1e30 */
	{ UINT64_C(0xfc6f7c4045812296), UINT64_C(0x4d00000000000000) }, /* 1e31 */
	{ UINT64_C(0x9dc5ada82b70b59d), UINT64_C(0xf020000000000000) }, /* 1e32 */
	{ UINT64_C(0xc5371912364ce305), UINT64_C(0x6c28000000000000) }, /* 1e33 */
	{ UINT64_C(0xf684df56c3e01bc6), UINT64_C(0xc732000000000000) }, /* 1e34 */
	{ UINT64_C(0x9a130b963a6c115c), UINT64_C(0x3c7f400000000000) }, /* 1e35 */
	{ UINT64_C(0xc097ce7bc90715b3), UINT64_C(0x4b9f100000000000) }, /* 1e36 */
	{ UINT64_C(0xf0bdc21abb48db20), UINT64_C(0x1e86d40000000000) }, /* 1e37 */
	{ UINT64_C(0x96769950b50d88f4), UINT64_C(0x1314448000000000) }, /* 1e38 */
	{ UINT64_C(0xbc143fa4e250eb31), UINT64_C(0x17d955a000000000) }, /* 1e39 */
	{ UINT64_C(0xeb194f8e1ae525fd), UINT64_C(0x5dcfab0800000000) }, /* 1e40 */
	{ UINT64_C(0x92efd1b8d0cf37be), UINT64_C(0x5aa1cae500000000) }, /* 1e41 */
	{ UINT64_C(0xb7abc627050305ad), UINT64_C(0xf14a3d9e40000000) }, /* 1e42 */
	{ UINT64_C(0xe596b7b0c643c719), UINT64_C(0x6d9ccd05d0000000) }, /* 1e43 */
	{ UINT64_C(0x8f7e32ce7bea5c6f), UINT64_C(0xe4820023a2000000) }, /* 1e44 */
	{ UINT64_C(0xb35dbf821ae4f38b), UINT64_C(0xdda2802c8a800000) }, /* 1e45 */
	{ UINT64_C(0xe0352f62a19e306e), UINT64_C(0xd50b2037ad200000) }, /* 1e46 */
	{ UINT64_C(0x8c213d9da502de45), UINT64_C(0x4526f422cc340000) }, /* 1e47 */
	{ UINT64_C(0xaf298d050e4395d6), UINT64_C(0x9670b12b7f410000) }, /* 1e48 */
	{ UINT64_C(0xdaf3f04651d47b4c), UINT64_C(0x3c0cdd765f114000) }, /* 1e49 */
	{ UINT64_C(0x88d8762bf324cd0f), UINT64_C(0xa5880a69fb6ac800) }, /* 1e50 */
	{ UINT64_C(0xab0e93b6efee0053), UINT64_C(0x8eea0d047a457a00) }, /* 1e51 */
	{ UINT64_C(0xd5d238a4abe98068), UINT64_C(0x72a4904598d6d880) }, /* 1e52 */
	{ UINT64_C(0x85a36366eb71f041), UINT64_C(0x47a6da2b7f864750) }, /* 1e53 */
	{ UINT64_C(0xa70c3c40a64e6c51), UINT64_C(0x999090b65f67d924) }, /* 1e54 */
	{ UINT64_C(0xd0cf4b50cfe20765), UINT64_C(0xfff4b4e3f741cf6d) }, /* 1e55 */
	{ UINT64_C(0x82818f1281ed449f), UINT64_C(0xbff8f10e7a8921a4) }, /* 1e56 */
	{ UINT64_C(0xa321f2d7226895c7), UINT64_C(0xaff72d52192b6a0d) }, /* 1e57 */
	{ UINT64_C(0xcbea6f8ceb02bb39), UINT64_C(0x9bf4f8a69f764490) }, /* 1e58 */
	{ UINT64_C(0xfee50b7025c36a08), UINT64_C(0x02f236d04753d5b4) }, /* 1e59 */
	{ UINT64_C(0x9f4f2726179a2245), UINT64_C(0x01d762422c946590) }, /* 1e60 */
	{ UINT64_C(0xc722f0ef9d80aad6), UINT64_C(0x424d3ad2b7b97ef5) }, /* 1e61 */
	{ UINT64_C(0xf8ebad2b84e0d58b), UINT64_C(0xd2e0898765a7deb2) }, /* 1e62 */
	{ UINT64_C(0x9b934c3b330c8577), UINT64_C(0x63cc55f49f88eb2f) }, /* 1e63 */
	{ UINT64_C(0xc2781f49ffcfa6d5), UINT64_C(0x3cbf6b71c76b25fb) }, /* 1e64 */
};

/* 2^e x the first 53 bits of the 128-bit product p (its top bit at 127 or 126), rounded to
 * nearest with ties to even, as a double's bits; false when that cannot be told from p's
 * bits alone or when the result is not a normal double. */
static bool number_round(unsigned __int128 p, int64_t e, uint64_t *bits)
{
	uint64_t hi = (uint64_t)(p >> 64), lo = (uint64_t)p, msb = hi >> 63;
	uint64_t r = hi >> (msb + 9);

	e -= (int64_t)(1 ^ msb);
	/* exactly halfway as far as p tells (its truncation may hide more): undecided */
	if (lo == 0 && (hi & 0x1FF) == 0 && (r & 3) == 1)
		return false;
	r += r & 1;
	r >>= 1;
	if (r >> 53) {
		r >>= 1;
		e++;
	}
	if (e < 1 || e >= 0x7FF)
		return false;
	*bits = (uint64_t)e << 52 | (r & ((UINT64_C(1) << 52) - 1));
	return true;
}

/* m x 10^e10 correctly rounded (m > 0, at most 19 digits), by the Eisel-Lemire algorithm
 * (Lemire, "Number parsing at a gigabyte per second", 2021): the normalised m times the
 * 128-bit mantissa of 10^e10, widened when the truncated product could carry into the bits
 * that decide; false (leave it to strtod) when the product cannot decide, or e10 is out of
 * the table's range. */
static bool number_parse_wide(uint64_t m, long e10, double *out)
{
	const uint64_t *t;
	unsigned __int128 x;
	uint64_t bits;
	int clz;
	int64_t e;

	if (e10 < POW10_MIN || e10 > POW10_MAX || m == 0)
		return false;
	t = pow10_128[e10 - POW10_MIN];
	clz = __builtin_clzll(m);
	m <<= clz;
	e = ((217706 * (int64_t)e10) >> 16) + 64 + 1023 - clz;
	x = (unsigned __int128)m * t[0];
	if (((uint64_t)(x >> 64) & 0x1FF) == 0x1FF && (uint64_t)x + m < m) {
		unsigned __int128 y = (unsigned __int128)m * t[1];
		uint64_t xlo = (uint64_t)x, ylo = (uint64_t)y, mlo = xlo + (uint64_t)(y >> 64);
		uint64_t mhi = (uint64_t)(x >> 64) + (mlo < xlo);

		if ((mhi & 0x1FF) == 0x1FF && mlo + 1 == 0 && ylo + m < m)
			return false;
		x = (unsigned __int128)mhi << 64 | mlo;
	}
	if (!number_round(x, e, &bits))
		return false;
	memcpy(out, &bits, sizeof *out);
	return true;
}
#endif

/* The slow, always correct conversion through strtod of a number already checked. */
static bool number_parse_slow(const char *s, size_t len, double *out)
{
	char small[128];
	char *copy = len < sizeof small ? small : fb_xmalloc(len + 1);
	char *end;
	bool ok;

	memcpy(copy, s, len);
	copy[len] = '\0';
	errno = 0;
	*out = strtod(copy, &end);
	ok = *end == '\0' && isfinite(*out);
	if (copy != small)
		free(copy);
	return ok;
}

/* Below this, one more digit still fits in the 19 significant digits kept. */
#define DIGITS_ROOM UINT64_C(1000000000000000000)

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The value of the 8 decimal digits at p into *v; false when any of the 8 bytes is not a
 * digit.  The bytes are combined as one 64-bit word: pairs, then quads, then the 8. */
static bool digits8(const unsigned char *p, uint64_t *v)
{
	uint64_t x;

	memcpy(&x, p, sizeof x);
	if (((x & UINT64_C(0xF0F0F0F0F0F0F0F0)) |
	     (((x + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4)) !=
	    UINT64_C(0x3333333333333333))
		return false;
	x -= UINT64_C(0x3030303030303030);
	x = x * 10 + (x >> 8);
	x = ((x & UINT64_C(0x000000FF000000FF)) * (100 + (UINT64_C(1000000) << 32)) +
	     ((x >> 16) & UINT64_C(0x000000FF000000FF)) * (1 + (UINT64_C(10000) << 32))) >> 32;
	*v = x;
	return true;
}
#else
/* Without a little-endian word the digits go one at a time. */
static bool digits8(const unsigned char *p, uint64_t *v)
{
	(void)p;
	(void)v;
	return false;
}
#endif

/* Append the run of digits at p to *m, keeping the first 19 significant ones (*lost is set
 * when any further digit is dropped); returns the end of the run.  Eight digits go at once
 * while they all fit. */
static const unsigned char *digit_run(const unsigned char *p, const unsigned char *end,
                                      uint64_t *m, int *lost)
{
	uint64_t v, acc = *m;

	/* eight at a time while all eight are kept: acc < 10^11 keeps acc below 10^19 */
	while (end - p >= 8 && acc < UINT64_C(100000000000) && digits8(p, &v)) {
		acc = acc * 100000000 + v;
		p += 8;
	}
	for (; p < end && (unsigned)(*p - '0') < 10; p++) {
		if (acc < DIGITS_ROOM)
			acc = acc * 10 + (unsigned)(*p - '0');
		else
			*lost = 1;
	}
	*m = acc;
	return p;
}

/* The digits of a decimal number: the first 19 significant digits in m, whether any were lost,
 * the count after the point; NULL when there is no digit at all. */
static const unsigned char *number_digits(const unsigned char *p, const unsigned char *end,
                                          uint64_t *m, int *lost, long *nfrac)
{
	const unsigned char *digits = p;

	*m = 0;
	*lost = 0;
	*nfrac = 0;
	p = digit_run(p, end, m, lost);
	if (p < end && *p == '.') {
		const unsigned char *f = ++p;

		p = digit_run(p, end, m, lost);
		*nfrac = p - f;
		if (*nfrac == 0 && f - 1 == digits)
			return NULL;
	} else if (p == digits) {
		return NULL;
	}
	return p;
}

/* An exponent e[+-]digits at p into *e (0 when there is none); NULL when malformed. */
static const unsigned char *number_exponent(const unsigned char *p, const unsigned char *end,
                                            long *e)
{
	bool eneg = false;

	*e = 0;
	if (p == end || (*p != 'e' && *p != 'E'))
		return p;
	if (++p < end && (*p == '+' || *p == '-'))
		eneg = *p++ == '-';
	if (p == end || (unsigned)(*p - '0') >= 10)
		return NULL;
	for (; p < end && (unsigned)(*p - '0') < 10; p++)
		if (*e < 100000)
			*e = *e * 10 + (*p - '0');
	*e = eneg ? -*e : *e;
	return p;
}

/* Scan a decimal number: the exact fast path (Clinger) when the digits fit in 53 bits and
 * the power of ten is exact, then Eisel-Lemire's 128-bit product for up to 19 digits and
 * powers of ten from 1e-64 to 1e64, else strtod. */
bool fb_csv_number_scan(const char *s, const char *end, const char **stop, double *out)
{
	const unsigned char *p = (const unsigned char *)s, *e_end = (const unsigned char *)end;
	uint64_t m;
	int lost;
	long nfrac, e, e10;
	bool neg = false;

	if (p < e_end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	p = number_digits(p, e_end, &m, &lost, &nfrac);
	if (p == NULL || (p = number_exponent(p, e_end, &e)) == NULL)
		return false;
	*stop = (const char *)p;
	e10 = e - nfrac;
	if (lost)
		return number_parse_slow(s, (size_t)((const char *)p - s), out);
	if ((m <= (UINT64_C(1) << 53) || e10 == 0) && e10 >= -22 && e10 <= 22)
		*out = e10 < 0 ? (double)m / pow10_exact[-e10] : (double)m * pow10_exact[e10];
#ifdef __SIZEOF_INT128__
	else if (!number_parse_wide(m, e10, out))
		return number_parse_slow(s, (size_t)((const char *)p - s), out);
#else
	else
		return number_parse_slow(s, (size_t)((const char *)p - s), out);
#endif
	if (neg)
		*out = -*out;
	return true;
}

/* Parse exactly the len bytes at s as a decimal number. */
bool fb_csv_number_parse(const char *s, size_t len, double *out)
{
	const char *stop;

	return fb_csv_number_scan(s, s + len, &stop, out) && stop == s + len;
}

/* The delimiter of the first non-blank line of buf, by counting outside quotes. */
char fb_csv_delim_detect(const char *buf, size_t len, bool *complete)
{
	size_t comma = 0, semi = 0, tab = 0, i = 0;
	bool quoted = false;

	while (i < len && (buf[i] == '\r' || buf[i] == '\n' || buf[i] == ' ' || buf[i] == '\t'))
		i++;
	*complete = false;
	for (; i < len; i++) {
		char c = buf[i];

		if (c == '"')
			quoted = !quoted;
		else if (quoted)
			continue;
		else if (c == '\n' || c == '\r') {
			*complete = true;
			break;
		} else if (c == ',')
			comma++;
		else if (c == ';')
			semi++;
		else if (c == '\t')
			tab++;
	}
	if (semi > comma && semi >= tab)
		return ';';
	if (tab > comma && tab > semi)
		return '\t';
	return ',';
}

/* A short copy of a field for a message. */
const char *fb_csv_excerpt(char *out, const char *s, size_t len)
{
	size_t keep = FB_CSV_EXCERPT_MAX - 4;

	if (len < FB_CSV_EXCERPT_MAX) {
		memcpy(out, s, len);
		out[len] = '\0';
		return out;
	}
	/* do not cut a UTF-8 sequence in two */
	while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
		keep--;
	memcpy(out, s, keep);
	memcpy(out + keep, "...", 4);
	return out;
}

/* Number of line feeds in a field (only quoted fields can hold any). */
static size_t count_newlines(const char *s, size_t len)
{
	size_t count = 0;
	const char *p;

	/* most fields are short: a plain loop beats a call to memchr */
	if (len < 32) {
		for (size_t i = 0; i < len; i++)
			count += s[i] == '\n';
		return count;
	}
	while (len > 0 && (p = memchr(s, '\n', len)) != NULL) {
		count++;
		len -= (size_t)(p + 1 - s);
		s = p + 1;
	}
	return count;
}

/* Prepare a scanner for the input called name; delim 0 detects it. */
void fb_csv_scan_init(fb_csv_scan *sc, const char *name, char delim, fb_error *err)
{
	memset(sc, 0, sizeof *sc);
	sc->name = name != NULL ? name : "(buffer)";
	sc->delim = delim;
	sc->err = err;
	sc->line = 1;
}

/* Keep a copy of a field, growing the array as needed. */
bool fb_csv_keep_field(fb_csv_scan *sc, char ***fields, size_t *n, size_t *cap, const char *s,
                       size_t len, size_t line)
{
	char *copy;

	if (*n == *cap) {
		size_t room = *cap > 0 ? 2 * *cap : 16;
		char **grown = reallocarray(*fields, room, sizeof **fields);

		if (grown == NULL) {
			fb_csv_scan_fail(sc, "line %zu: out of memory", line);
			return false;
		}
		*fields = grown;
		*cap = room;
	}
	if ((copy = malloc(len + 1)) == NULL) {
		fb_csv_scan_fail(sc, "line %zu: out of memory", line);
		return false;
	}
	memcpy(copy, s, len);
	copy[len] = '\0';
	(*fields)[(*n)++] = copy;
	return true;
}

/* Record "cannot read 'name': ..." once; later failures keep the first message. */
void fb_csv_scan_fail(fb_csv_scan *sc, const char *fmt, ...)
{
	char what[FB_ERROR_MAX];
	va_list ap;

	if (sc->failed)
		return;
	sc->failed = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	fb_fail(sc->err, "cannot read '%s': %s", sc->name, what);
}

/* libcsv field callback: pass the field on with the line it began on. */
static void scan_field(void *s, size_t len, void *data)
{
	fb_csv_scan *sc = data;
	size_t line = sc->line;

	if (sc->failed)
		return;
	sc->after_cr = false;
	sc->line += count_newlines(s, len);
	if (sc->nfield == 0)
		sc->row_line = line;
	sc->field(sc, s, len, line);
	sc->nfield++;
}

/* libcsv row callback: c is the line ending (-1 at the end of input); blank rows vanish.
 * A carriage return ends a line, and so does a line feed unless it completes a CR LF pair;
 * with CSV_REPALL_NL libcsv reports that line feed as an empty row right after the CR. */
static void scan_row(int c, void *data)
{
	fb_csv_scan *sc = data;

	if (sc->failed)
		return;
	if (c == '\r' || (c == '\n' && !(sc->after_cr && sc->nfield == 0)))
		sc->line++;
	sc->after_cr = c == '\r';
	if (sc->nfield == 0)
		return;
	sc->row(sc);
	sc->nfield = 0;
}

/* Report a libcsv error in the input just parsed. */
static void scan_parse_fail(fb_csv_scan *sc, struct csv_parser *p)
{
	size_t line = sc->line, column = sc->nfield + 1;

	if (csv_error(p) != CSV_EPARSE) {
		fb_csv_scan_fail(sc, "%s", csv_strerror(csv_error(p)));
		return;
	}
	/* the bad quote is in the field being read: count the lines it spans so far */
	if (p->entry_buf != NULL)
		line += count_newlines((const char *)p->entry_buf, p->entry_pos);
	if (p->quoted)
		fb_csv_scan_fail(sc, "line %zu, column %zu: unexpected text after a closing quote",
		                 line, column);
	else
		fb_csv_scan_fail(sc, "line %zu, column %zu: quote inside an unquoted field", line,
		                 column);
}

/* Feed len bytes to the tokeniser, a chunk at a time.  libcsv grows its field buffer by a
 * fixed block (FIELD_BLOCK bytes by default), copying the field so far each time realloc
 * moves it: quadratic in a long field's length wherever realloc moves (always, under
 * AddressSanitizer).  Before each chunk the block is set to the buffer's size, so that the
 * buffer doubles and the chunk after it needs at most one more growth. */
static void scan_feed(fb_csv_scan *sc, struct csv_parser *p, const char *buf, size_t len)
{
	while (!sc->failed && len > 0) {
		size_t n = len < CHUNK_SIZE ? len : CHUNK_SIZE;

		csv_set_blk_size(p, p->entry_size > FIELD_BLOCK ? p->entry_size : FIELD_BLOCK);
		if (csv_parse(p, buf, n, scan_field, scan_row, sc) != n) {
			if (!sc->failed)
				scan_parse_fail(sc, p);
			return;
		}
		buf += n;
		len -= n;
	}
}

/* End the input: flush the last row and catch an unterminated quote. */
static void scan_end(fb_csv_scan *sc, struct csv_parser *p)
{
	if (sc->failed)
		return;
	if (csv_fini(p, scan_field, scan_row, sc) != 0 && !sc->failed) {
		if (csv_error(p) == CSV_EPARSE)
			fb_csv_scan_fail(sc, "line %zu, column %zu: unterminated quote", sc->line,
			                 sc->nfield + 1);
		else
			fb_csv_scan_fail(sc, "%s", csv_strerror(csv_error(p)));
	}
}

/* Choose the delimiter from the first bytes of the input and start the tokeniser. */
static int scan_start(fb_csv_scan *sc, struct csv_parser *p, const char *buf, size_t len)
{
	bool complete;

	if (sc->delim == 0)
		sc->delim = fb_csv_delim_detect(buf, len, &complete);
	if (sc->delim == '"' || sc->delim == '\r' || sc->delim == '\n' || sc->delim == ' ') {
		fb_csv_scan_fail(sc, "the delimiter cannot be a quote, a space or a line end");
		return FB_ERR;
	}
	if (csv_init(p, CSV_STRICT | CSV_STRICT_FINI | CSV_REPALL_NL | CSV_APPEND_NULL) != 0) {
		fb_csv_scan_fail(sc, "cannot start the CSV tokeniser");
		return FB_ERR;
	}
	csv_set_delim(p, (unsigned char)sc->delim);
	return FB_OK;
}

/* Length of a UTF-8 byte order mark at the start of buf (0 or 3). */
static size_t bom_length(const char *buf, size_t len)
{
	return len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* Scan a whole buffer. */
int fb_csv_scan_buffer(fb_csv_scan *sc, const char *buf, size_t len)
{
	struct csv_parser p;
	size_t skip = bom_length(buf, len);

	if (scan_start(sc, &p, buf + skip, len - skip) != FB_OK)
		return FB_ERR;
	scan_feed(sc, &p, buf + skip, len - skip);
	scan_end(sc, &p);
	csv_free(&p);
	return sc->failed ? FB_ERR : FB_OK;
}

/* Count the len bytes at buf, just read from the file, into the line being read (those after
 * the last line end); false once that line is longer than FB_LINE_MAX. */
static bool scan_line_room(fb_csv_scan *sc, const char *buf, size_t len)
{
	size_t i = len;

	while (i > 0 && buf[i - 1] != '\n' && buf[i - 1] != '\r')
		i--;
	sc->line_bytes = i > 0 ? len - i : sc->line_bytes + len;
	return sc->line_bytes <= FB_LINE_MAX;
}

/* Record that line is longer than FB_LINE_MAX. */
static void scan_line_fail(fb_csv_scan *sc, size_t line)
{
	fb_csv_scan_fail(sc, "line %zu is longer than " FB_LINE_MAX_TEXT ", the longest line "
	                 "fedbn reads", line);
}

/* Whether the caller asked to stop; records FB_CANCELLED_MSG as the failure when so. */
static bool scan_cancelled(fb_csv_scan *sc)
{
	if (!fb_cancel_requested(sc->cancel))
		return false;
	fb_csv_scan_fail(sc, FB_CANCELLED_MSG);
	return true;
}

/* Read whole chunks of fp into pre until the first line is complete (or the input ends, a
 * line is too long, or the caller asks to stop). */
static void scan_prefix(fb_csv_scan *sc, FILE *fp, char *chunk, fb_buf *pre)
{
	bool complete = false;
	size_t got;

	fb_buf_append(pre, "", 0); /* an empty file gives an empty string, not NULL */
	while (!complete && !scan_cancelled(sc) && (got = fread(chunk, 1, CHUNK_SIZE, fp)) > 0) {
		if (!scan_line_room(sc, chunk, got)) {
			size_t line = 1;

			for (const char *c = pre->data; (c = memchr(c, '\n', pre->len -
			                                              (size_t)(c - pre->data))) != NULL;
			     c++)
				line++;
			scan_line_fail(sc, line);
			return;
		}
		fb_buf_append(pre, chunk, got);
		if (sc->delim != 0)
			complete = pre->len >= 3;
		else if (memchr(chunk, '\n', got) != NULL || memchr(chunk, '\r', got) != NULL)
			/* only a chunk with a line end can complete the line: a long first line
			 * is not scanned again for every chunk */
			fb_csv_delim_detect(pre->data, pre->len, &complete);
	}
}

/* Stream fp through the tokeniser in fixed-size chunks. */
static void scan_stream(fb_csv_scan *sc, FILE *fp)
{
	char *chunk = fb_xmalloc(CHUNK_SIZE);
	fb_buf pre = { 0 };
	struct csv_parser p;
	size_t skip, got;
	char why[128];

	scan_prefix(sc, fp, chunk, &pre);
	skip = bom_length(pre.data, pre.len);
	if (!sc->failed && scan_start(sc, &p, pre.data + skip, pre.len - skip) == FB_OK) {
		scan_feed(sc, &p, pre.data + skip, pre.len - skip);
		fb_buf_release(&pre);
		while (!sc->failed && !scan_cancelled(sc) &&
		       (got = fread(chunk, 1, CHUNK_SIZE, fp)) > 0) {
			if (!scan_line_room(sc, chunk, got))
				scan_line_fail(sc, sc->line);
			else
				scan_feed(sc, &p, chunk, got);
		}
		if (ferror(fp))
			fb_csv_scan_fail(sc, "%s", fb_strerror(errno, why, sizeof why));
		scan_end(sc, &p);
		csv_free(&p);
	}
	fb_buf_release(&pre);
	free(chunk);
}

/* Scan a file. */
int fb_csv_scan_file(fb_csv_scan *sc, const char *path)
{
	FILE *fp = fopen(path, "rb");
	char why[128];

	if (fp == NULL) {
		fb_csv_scan_fail(sc, "%s", fb_strerror(errno, why, sizeof why));
		return FB_ERR;
	}
	scan_stream(sc, fp);
	fclose(fp);
	return sc->failed ? FB_ERR : FB_OK;
}
