/*
 * Unit tests of core/lvmmeta.c: the PV label, mda_header and VG text readers
 * on PVs and VGs made by the real pvcreate and vgcreate on a loop device
 * (root; skipped without it or without lvm), with pe_start and the extent
 * size taken from pvs and vgs (never from partalign), a VG text that wraps
 * around its ring buffer (vgchange --addtag until it does), and hostile
 * buffers: truncated, bad checksums and magic, offsets out of range or
 * wrapping, damaged text.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "unit.h"

#include "core/crc32.h"
#include "core/lvmmeta.h"
#include "shared/endian.h"

#define LVMCONF                                                                          \
	"--config 'devices { obtain_device_list_from_udev = 0 } activation { "           \
	"udev_sync = 0 udev_rules = 0 }'"

static char dir[256], img[300], loopdev[64], vgname[64];

__attribute__((format(printf, 1, 2))) static int sh(const char *fmt, ...)
{
	char cmd[1024], c[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c, sizeof(c), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "PATH=$PATH:/sbin:/usr/sbin; %s", c);
	return system(cmd);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/pa-lvmmeta-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	snprintf(vgname, sizeof(vgname), "pa_lvmmeta_%ld", (long)getpid());
	return mkdtemp(dir) ? 0 : -1;
}

static void detach(void)
{
	if (!loopdev[0])
		return;
	sh("vgremove " LVMCONF " -f %s >/dev/null 2>&1; true", vgname);
	sh("pvremove " LVMCONF " -ff -y %s >/dev/null 2>&1; losetup -d %s", loopdev,
	   loopdev);
	loopdev[0] = '\0';
}

/* after each test of a real PV, also a failed one: its loop device goes */
static int detach_teardown(void **state)
{
	(void)state;
	detach();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	detach();
	return sh("rm -rf '%s'", dir) == 0 ? 0 : -1;
}

/* The number on the first line a command prints. */
__attribute__((format(printf, 1, 2))) static uint64_t number_of(const char *fmt, ...)
{
	char cmd[1024], c[900], line[256] = "";
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(c, sizeof(c), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "PATH=$PATH:/sbin:/usr/sbin; %s 2>/dev/null", c);
	f = popen(cmd, "r");
	assert_non_null(f);
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	pclose(f);
	if (!strpbrk(line, "0123456789"))
		print_error("'%s' printed '%s'\n", c, line);
	assert_non_null(strpbrk(line, "0123456789"));
	return strtoull(line + strspn(line, " \t"), NULL, 10);
}

/*
 * A 64 MiB loop device with a PV made by pvcreate @pvopts, in a VG by
 * vgcreate @vgopts.  false (the test skips, saying why) only when this is
 * not root or the tools are missing; anything else that fails fails the
 * test, so a skip never hides a broken setup.
 */
static bool make_pv(const char *pvopts, const char *vgopts)
{
	char cmd[700];
	FILE *f;
	int i;

	if (geteuid() != 0) {
		print_message("skipped: a loop device and pvcreate need root\n");
		return false;
	}
	if (sh("command -v pvcreate >/dev/null && command -v vgcreate >/dev/null && "
	       "command -v losetup >/dev/null") != 0) {
		print_message("skipped: pvcreate, vgcreate or losetup not installed\n");
		return false;
	}
	snprintf(img, sizeof(img), "%s/pv.img", dir);
	assert_int_equal(sh("truncate -s 64M '%s'", img), 0);
	snprintf(cmd, sizeof(cmd), "PATH=$PATH:/sbin:/usr/sbin; losetup -f --show '%s'",
		 img);
	/* losetup -f races with other attaches: try again, as tests/lib does */
	for (i = 0; i < 20 && !loopdev[0]; i++) {
		f = popen(cmd, "r");
		assert_non_null(f);
		if (!fgets(loopdev, sizeof(loopdev), f))
			loopdev[0] = '\0';
		pclose(f);
		loopdev[strcspn(loopdev, "\n")] = '\0';
		if (!loopdev[0])
			usleep(100 * 1000);
	}
	if (!loopdev[0])
		fail_msg("losetup -f --show %s attached nothing", img);
	assert_int_equal(
	    sh("pvcreate " LVMCONF " -q %s %s >/dev/null 2>&1", pvopts, loopdev), 0);
	assert_int_equal(sh("vgcreate " LVMCONF " -q %s %s %s >/dev/null 2>&1 </dev/null",
			    vgopts, vgname, loopdev),
			 0);
	return true;
}

static void read_at(uint64_t off, void *buf, size_t len)
{
	int fd = open(loopdev, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
}

/* The whole path, as src/scan/lvm.c takes it; the text's range in *t. */
static void read_pv(struct lvmmeta_pv *pv, struct lvmmeta_text *t, struct lvmmeta_vg *vg)
{
	unsigned char *label = malloc(LVMMETA_LABEL_LEN), *mda = malloc(512);
	char *text;
	unsigned int i;
	uint64_t at = 0;

	read_at(0, label, LVMMETA_LABEL_LEN);
	assert_int_equal(lvmmeta_pv_parse(label, LVMMETA_LABEL_LEN, pv), 0);
	read_at(pv->mda_offset, mda, 512);
	assert_int_equal(lvmmeta_mda_parse(mda, 512, pv, t), 0);
	text = malloc(t->total);
	for (i = 0; i < t->n; i++) {
		read_at(t->off[i], text + at, t->len[i]);
		at += t->len[i];
	}
	assert_int_equal(lvmmeta_vg_parse(text, t->total, t, vg), 0);
	free(text);
	free(label);
	free(mda);
}

static void real_case(const char *pvopts, const char *vgopts)
{
	struct lvmmeta_pv pv;
	struct lvmmeta_text t;
	struct lvmmeta_vg vg;

	if (!make_pv(pvopts, vgopts))
		skip();
	read_pv(&pv, &t, &vg);
	assert_int_equal(pv.pe_start, number_of("pvs " LVMCONF " --noheadings --nosuffix "
						"--units b -o pe_start %s",
						loopdev));
	assert_int_equal(vg.extent_size,
			 number_of("vgs " LVMCONF " --noheadings --nosuffix --units b -o "
				   "vg_extent_size %s",
				   vgname));
	assert_string_equal(vg.name, vgname);
	assert_int_equal(pv.device_size, 64 * MiB);
	assert_int_equal(t.n, 1);
	detach();
}

static void test_real_1m_4m(void **state)
{
	(void)state;
	real_case("--dataalignment 1m", "-s 4m");
}

static void test_real_192k_6m(void **state)
{
	(void)state;
	real_case("--dataalignment 192k", "-s 6m");
}

static void test_real_defaults(void **state)
{
	(void)state;
	real_case("", "");
}

/* A small metadata area and many updates: the text wraps around the ring. */
static void test_real_wrap(void **state)
{
	struct lvmmeta_pv pv;
	struct lvmmeta_text t = {0};
	struct lvmmeta_vg vg;
	char tag[32];
	int i;

	(void)state;
	if (!make_pv("--metadatasize 8k --dataalignment 64k", "-s 1m"))
		skip();
	for (i = 0; i < 400; i++) {
		read_pv(&pv, &t, &vg);
		if (t.n == 2)
			break;
		snprintf(tag, sizeof(tag), "tag%d", i);
		assert_int_equal(sh("vgchange " LVMCONF
				    " -q --addtag %s %s >/dev/null 2>&1",
				    tag, vgname),
				 0);
	}
	assert_int_equal(t.n, 2);
	assert_int_equal(t.off[1], pv.mda_offset + 512);
	assert_int_equal(t.off[0] + t.len[0], pv.mda_offset + pv.mda_size);
	assert_int_equal(vg.extent_size, 1 * MiB);
	assert_string_equal(vg.name, vgname);
	detach();
}

/* ---- hand-made metadata ---- */

static uint32_t lvm_crc(const void *b, size_t n)
{
	return ~crc32_update(~0xf597a6cfu, b, n);
}

/* A label in sector @s: pe_start, one metadata area at 4096 of @mda bytes. */
static void mk_label(unsigned char *b, unsigned int s, uint64_t pe_start, uint64_t mda)
{
	unsigned char *l = b + s * 512, *p;

	memset(b, 0, LVMMETA_LABEL_LEN);
	memcpy(l, "LABELONE", 8);
	put_le64(l + 8, s);
	put_le32(l + 20, 32);
	memcpy(l + 24, "LVM2 001", 8);
	memset(l + 32, 'u', 32);
	p = l + 64;
	put_le64(p, 64 * MiB);
	put_le64(p + 8, pe_start); /* data area */
	put_le64(p + 40, 4096);	   /* after the zero entry: metadata area */
	put_le64(p + 48, mda);
	put_le32(l + 16, lvm_crc(l + 20, 512 - 20));
}

static void mk_mda(unsigned char *b, uint64_t start, uint64_t size, uint64_t off,
		   uint64_t len, uint32_t ck)
{
	memset(b, 0, 512);
	memcpy(b + 4, " LVM2 x[5A%r0N*>", 16);
	put_le32(b + 20, 1);
	put_le64(b + 24, start);
	put_le64(b + 32, size);
	put_le64(b + 40, off);
	put_le64(b + 48, len);
	put_le32(b + 56, ck);
	put_le32(b, lvm_crc(b + 4, 508));
}

static void test_hostile_label(void **state)
{
	unsigned char b[LVMMETA_LABEL_LEN];
	struct lvmmeta_pv pv;
	unsigned int s;
	size_t n;

	(void)state;
	for (s = 0; s < 4; s++) {
		mk_label(b, s, 7 * MiB, 1020 * KiB);
		assert_int_equal(lvmmeta_pv_parse(b, sizeof(b), &pv), 0);
		assert_int_equal(pv.sector, s);
		assert_int_equal(pv.pe_start, 7 * MiB);
		assert_int_equal(pv.mda_offset, 4096);
		assert_int_equal(pv.mda_size, 1020 * KiB);
		/* truncated inside the label's sector: not found; in a buffer of
		   exactly that size, so a read past it is a heap error */
		for (n = 0; n < (s + 1) * 512; n += 7) {
			unsigned char *t = malloc(n ? n : 1);

			memcpy(t, b, n);
			assert_int_equal(lvmmeta_pv_parse(n ? t : NULL, n, &pv), -ENOENT);
			free(t);
		}
	}
	/* one flipped bit anywhere in the checksummed part, the sector number,
	   the type */
	mk_label(b, 1, MiB, 1020 * KiB);
	for (n = 512 + 16; n < 1024; n += 13) {
		b[n] ^= 4;
		assert_int_equal(lvmmeta_pv_parse(b, sizeof(b), &pv), -EINVAL);
		b[n] ^= 4;
	}
	put_le64(b + 512 + 8, 2);
	assert_int_equal(lvmmeta_pv_parse(b, sizeof(b), &pv), -EINVAL);
	/* a pv_header offset outside the sector, with a good checksum */
	mk_label(b, 0, MiB, 1020 * KiB);
	put_le32(b + 20, 0xfffffff0u);
	put_le32(b + 16, lvm_crc(b + 20, 492));
	assert_int_equal(lvmmeta_pv_parse(b, sizeof(b), &pv), -EINVAL);
	put_le32(b + 20, 8);
	put_le32(b + 16, lvm_crc(b + 20, 492));
	assert_int_equal(lvmmeta_pv_parse(b, sizeof(b), &pv), -EINVAL);
	/* a data-area list that never ends inside the sector */
	mk_label(b, 0, MiB, 1020 * KiB);
	memset(b + 72, 0x11, 512 - 72);
	put_le32(b + 16, lvm_crc(b + 20, 492));
	assert_int_equal(lvmmeta_pv_parse(b, sizeof(b), &pv), -EINVAL);
	/* a metadata area that wraps the 64-bit offsets */
	mk_label(b, 0, MiB, UINT64_MAX - 100);
	assert_int_equal(lvmmeta_pv_parse(b, sizeof(b), &pv), -EINVAL);
	/* no label at all */
	memset(b, 0, sizeof(b));
	assert_int_equal(lvmmeta_pv_parse(b, sizeof(b), &pv), -ENOENT);
}

static void test_hostile_mda(void **state)
{
	struct lvmmeta_pv pv = {.pe_start = MiB, .mda_offset = 4096, .mda_size = 8192};
	unsigned char b[512];
	struct lvmmeta_text t;

	(void)state;
	mk_mda(b, 4096, 8192, 512, 1000, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.off[0], 4096 + 512);
	assert_int_equal(t.len[0], 1000);
	assert_int_equal(t.checksum, 7);
	/* wraps: 7680..8192 then from 512 */
	mk_mda(b, 4096, 8192, 7680, 1000, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.off[0], 4096 + 7680);
	assert_int_equal(t.len[0], 512);
	assert_int_equal(t.off[1], 4096 + 512);
	assert_int_equal(t.len[1], 488);
	assert_int_equal(t.total, 1000);
	/* the largest text the ring holds, and one byte more */
	mk_mda(b, 4096, 8192, 512, 8192 - 512, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), 0);
	mk_mda(b, 4096, 8192, 512, 8192 - 511, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -EINVAL);
	/* offsets inside the header, past the area, near 2^64 */
	mk_mda(b, 4096, 8192, 100, 10, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -EINVAL);
	mk_mda(b, 4096, 8192, 8192, 10, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -EINVAL);
	mk_mda(b, 4096, 8192, UINT64_MAX - 5, 10, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -EINVAL);
	mk_mda(b, 4096, 8192, 512, UINT64_MAX, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -EINVAL);
	/* a header for another area than the label's */
	mk_mda(b, 8192, 8192, 512, 10, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -EINVAL);
	/* an orphan PV: no text */
	mk_mda(b, 4096, 8192, 0, 0, 0);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -ENOENT);
	/* checksum, magic, version, truncation */
	mk_mda(b, 4096, 8192, 512, 10, 7);
	b[300] ^= 1;
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -EINVAL);
	mk_mda(b, 4096, 8192, 512, 10, 7);
	assert_int_equal(lvmmeta_mda_parse(b, 511, &pv, &t), -EINVAL);
	b[5] = 'X';
	put_le32(b, lvm_crc(b + 4, 508));
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -EINVAL);
	/* too big a text for us */
	pv.mda_size = 64 * MiB;
	mk_mda(b, 4096, 64 * MiB, 512, LVMMETA_TEXT_MAX + 1ull, 7);
	assert_int_equal(lvmmeta_mda_parse(b, sizeof(b), &pv, &t), -E2BIG);
}

static int vg(const char *text, struct lvmmeta_vg *v)
{
	/* exactly strlen bytes, no terminator: a read past it is a heap error */
	size_t n = strlen(text);
	char *c = malloc(n ? n : 1);
	int rc;

	memcpy(c, text, n);
	rc = lvmmeta_vg_parse(c, n, NULL, v);
	free(c);
	return rc;
}

static void test_hostile_text(void **state)
{
	static const char good[] =
	    "# comment\nvg-1_x.y+ {\nid = \"a\\\"b\"\nseqno = 3\nstatus = [\"READ\", "
	    "\"WRITE\"]\nflags = []\nphysical_volumes {\npv0 {\nextent_size = 1\n"
	    "pe_start = 2048\n}\n}\nextent_size = 8192 # 4 MiB\n}\ncontents = \"x\"\n";
	struct lvmmeta_text t = {.total = sizeof(good) - 1};
	struct lvmmeta_vg v;
	char deep[400];
	size_t n;

	(void)state;
	assert_int_equal(vg(good, &v), 0);
	assert_string_equal(v.name, "vg-1_x.y+");
	assert_int_equal(v.extent_size, 4 * MiB); /* the VG's, not a nested key's */
	t.checksum = lvm_crc(good, sizeof(good) - 1);
	assert_int_equal(lvmmeta_vg_parse(good, sizeof(good) - 1, &t, &v), 0);
	t.checksum ^= 1;
	assert_int_equal(lvmmeta_vg_parse(good, sizeof(good) - 1, &t, &v), -EINVAL);
	/* every truncation before the VG's closing brace */
	for (n = 0; n < sizeof(good) - 1; n++) {
		char *c = malloc(n ? n : 1);
		int rc;

		memcpy(c, good, n);
		rc = lvmmeta_vg_parse(n ? c : NULL, n, NULL, &v);
		free(c);
		if (n < (size_t)(strstr(good, "}\ncontents") - good) + 1)
			assert_int_equal(rc, -EINVAL);
	}
	assert_int_equal(vg("vg { extent_size = 0 }", &v), -EINVAL);
	assert_int_equal(vg("vg { seqno = 1 }", &v), -EINVAL);
	assert_int_equal(vg("vg { extent_size = 36028797018963968 }", &v), -EINVAL);
	assert_int_equal(vg("vg { extent_size = 99999999999999999999999 }", &v), -EINVAL);
	assert_int_equal(vg("vg { extent_size = 8x }", &v), -EINVAL);
	assert_int_equal(vg("vg { extent_size = \"8\" }", &v), -EINVAL);
	assert_int_equal(vg("vg { id = \"unterminated }", &v), -EINVAL);
	assert_int_equal(vg("vg { s = [\"a\", }", &v), -EINVAL);
	assert_int_equal(vg("vg { a { b = 1 }", &v), -EINVAL);
	assert_int_equal(vg("{ extent_size = 8 }", &v), -EINVAL);
	assert_int_equal(vg("vg extent_size = 8 }", &v), -EINVAL);
	assert_int_equal(vg("vg { = 8 }", &v), -EINVAL);
	memset(deep, 0, sizeof(deep));
	strcpy(deep, "vg { extent_size = 8 ");
	for (n = strlen(deep); n + 4 < sizeof(deep) - 80; n += 4)
		memcpy(deep + n, "a { ", 4);
	assert_int_equal(vg(deep, &v), -EINVAL);
	memset(deep, 'v', 129);
	strcpy(deep + 129, " { extent_size = 8 }");
	assert_int_equal(vg(deep, &v), -EINVAL);
	deep[128] = ' ';
	assert_int_equal(vg(deep + 1, &v), 0);
	assert_int_equal(strlen(v.name), 127);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_real_1m_4m, detach_teardown),
	    cmocka_unit_test_teardown(test_real_192k_6m, detach_teardown),
	    cmocka_unit_test_teardown(test_real_defaults, detach_teardown),
	    cmocka_unit_test_teardown(test_real_wrap, detach_teardown),
	    cmocka_unit_test(test_hostile_label),
	    cmocka_unit_test(test_hostile_mda),
	    cmocka_unit_test(test_hostile_text),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
