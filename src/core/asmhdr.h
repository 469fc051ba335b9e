/*
 * The Oracle ASM disk header, from bytes (issue #34).  Pure: the scanner
 * reads the blocks (src/scan/asm.c, or a dump's asm/ files) and hands them
 * in; nothing here does I/O or allocates.
 *
 * The layout, as kfed prints it (its kfdhdb offsets are relative to byte 32,
 * after the 32-byte block header kfbh) and as libblkid's oracleasm probe
 * finds it:
 *
 *   0x00 endian (1 little, 0 big: every number below in that order)
 *   0x01 hard (0x82)   0x02 type (1: disk header)   0x03 datfmt
 *   0x04 block.blk (0 in the first block)   0x08 block.obj (0x80000000 +
 *   disk number)   0x0c check (a checksum whose algorithm is not public:
 *   kept, never verified)
 *   0x20 provstr "ORCLDISK", then 24 bytes: the ASMLib label, if any
 *   0x40 compat   0x44 dsknum (u16)   0x46 grptyp   0x47 hdrsts (3 MEMBER)
 *   0x48 dskname   0x68 grpname   0x88 fgname (32 bytes each, NUL padded)
 *   0xd8 secsize (u16)   0xda blksize (u16)   0xdc ausize (u32)
 *   0xe4 dsksize (u32, in allocation units)
 *
 * ASM (11.1.0.7 and later) keeps a copy of the header in the second last
 * block of allocation unit 1: block ausize / blksize - 2 of AU 1, which
 * `kfed repair` writes back over a damaged first block.
 */
#ifndef PARTALIGN_ASMHDR_H
#define PARTALIGN_ASMHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What is read at each place: one ASM metadata block (ASM's blocks are 4 KiB). */
#define ASMHDR_BLOCK 4096
/* The header's values live in its first 512 bytes; a shorter buffer is refused. */
#define ASMHDR_MIN_LEN 512
#define ASMHDR_NAME_MAX 32
#define ASMHDR_LABEL_MAX 24

enum asmhdr_kind {
	ASMHDR_NONE,	/* nothing of ASM */
	ASMHDR_CLEARED, /* "ORCLCLRD": an ASMLib label deleted (oracleasm deletedisk) */
	ASMHDR_LABEL,	/* "ORCLDISK" but no disk header: an ASMLib-provisioned disk */
	ASMHDR_HEADER,	/* a disk header whose values are all in range */
	ASMHDR_DAMAGED, /* a disk header (endian, hard, type right) with a bad value */
};

/* kfdhdb.hdrsts, as kfed names them (KFDHDR_*). */
enum asmhdr_status {
	ASMHDR_ST_INVALID = 0,
	ASMHDR_ST_UNKNOWN = 1,
	ASMHDR_ST_CANDIDATE = 2,
	ASMHDR_ST_MEMBER = 3,
	ASMHDR_ST_FORMER = 4,
	ASMHDR_ST_CONFLICT = 5,
	ASMHDR_ST_INCOMPAT = 6,
	ASMHDR_ST_PROVISIONED = 7,
	ASMHDR_ST_FOREIGN = 8,
};

/* The first value out of range in a damaged header. */
enum asmhdr_bad {
	ASMHDR_BAD_NONE,
	ASMHDR_BAD_BLK,	    /* block.blk of the first block is not 0 */
	ASMHDR_BAD_OBJ,	    /* block.obj is not 0x80000000 + dsknum (a member) */
	ASMHDR_BAD_STATUS,  /* hdrsts unknown */
	ASMHDR_BAD_GRPTYP,  /* a member's grptyp is not 1 to 5 */
	ASMHDR_BAD_NAME,    /* a name holds a byte that is not printable ASCII */
	ASMHDR_BAD_NONAME,  /* a member without a disk or group name */
	ASMHDR_BAD_SECSIZE, /* not a power of two from 512 to 4096 */
	ASMHDR_BAD_BLKSIZE, /* not a power of two from 512 to 4096, or below secsize */
	ASMHDR_BAD_AUSIZE,  /* not a power of two, 4 blocks to 64 MiB */
	ASMHDR_BAD_DSKSIZE, /* a member of fewer than 2 allocation units */
};

/* A partition table's signature in a first block (asmhdr_table). */
enum asmhdr_table {
	ASMHDR_TABLE_NONE,
	ASMHDR_TABLE_DOS, /* 0x55 0xaa at byte 510 */
	ASMHDR_TABLE_GPT, /* the same, with a protective entry (type 0xee) */
};

struct asm_hdr {
	enum asmhdr_kind kind;
	bool provstr;			   /* "ORCLDISK" at byte 32 */
	char label[ASMHDR_LABEL_MAX + 1];  /* ASMLib's, printable; "" none */
	bool big_endian;		   /* kfbh.endian 0 */
	uint8_t hard, type, datfmt;	   /* kfbh */
	uint32_t blk, obj, check;	   /* kfbh.block.blk, block.obj, check */
	uint32_t compat;		   /* kfdhdb.compat */
	uint16_t dsknum;		   /* disk number in its group */
	uint8_t grptyp, hdrsts;		   /* redundancy, header status */
	char dskname[ASMHDR_NAME_MAX + 1]; /* "DATA_0001" */
	char grpname[ASMHDR_NAME_MAX + 1]; /* "DATA" */
	char fgname[ASMHDR_NAME_MAX + 1];  /* failure group */
	uint16_t secsize, blksize;	   /* bytes */
	uint32_t ausize;		   /* bytes */
	uint32_t dsksize;		   /* allocation units */
	enum asmhdr_bad bad;		   /* ASMHDR_DAMAGED: which value */
	uint64_t bad_value;
};

/*
 * Parse the ASM traces in the block @buf of @len bytes (at least
 * ASMHDR_MIN_LEN) read at the start of a device (@first) or at the backup's
 * place: *h filled, h->kind says what was found.  The first block's
 * block.blk must be 0; the backup's is not checked (it is not publicly
 * documented).  Returns 0, or -EINVAL when @len is too short.
 */
int asmhdr_parse(const void *buf, size_t len, bool first, struct asm_hdr *h);

/* Whether @h is a disk header (intact or damaged) or only an ASMLib label. */
bool asmhdr_is_header(const struct asm_hdr *h);

/*
 * Where the backup of header @h is: byte ausize + (ausize / blksize - 2) *
 * blksize of the device, and its block number in AU 1.  -EINVAL unless
 * h->kind is ASMHDR_HEADER.
 */
int asmhdr_backup_offset(const struct asm_hdr *h, uint64_t *offset, uint32_t *block);

/* A partition table's signature in the first block @buf (@len >= 512). */
enum asmhdr_table asmhdr_table(const void *buf, size_t len);
const char *asmhdr_table_name(enum asmhdr_table t);

/* "MEMBER", "FORMER"...; NULL for a value kfed has no name for. */
const char *asmhdr_status_name(uint8_t hdrsts);
/* The status a device shows: its header's, "PROVISIONED" for an ASMLib label
   without a header, "damaged" for a damaged header, NULL for none. */
const char *asmhdr_shown_status(const struct asm_hdr *h);

/* The values two copies of a header must share (ASMHDR_F_*), for asmhdr_compare. */
#define ASMHDR_F_ENDIAN (1u << 0)
#define ASMHDR_F_KIND (1u << 1)
#define ASMHDR_F_LABEL (1u << 2)
#define ASMHDR_F_DSKNUM (1u << 3)
#define ASMHDR_F_GRPTYP (1u << 4)
#define ASMHDR_F_HDRSTS (1u << 5)
#define ASMHDR_F_DSKNAME (1u << 6)
#define ASMHDR_F_GRPNAME (1u << 7)
#define ASMHDR_F_FGNAME (1u << 8)
#define ASMHDR_F_SECSIZE (1u << 9)
#define ASMHDR_F_BLKSIZE (1u << 10)
#define ASMHDR_F_AUSIZE (1u << 11)
#define ASMHDR_F_DSKSIZE (1u << 12)
#define ASMHDR_F_COMPAT (1u << 13)
#define ASMHDR_F_OBJ (1u << 14)
#define ASMHDR_F_COUNT 15

/*
 * The values in which the first block's header @p and its backup @b differ
 * (ASMHDR_F_* bits; 0: the same disk of the same group, as kfed repair
 * would restore it).  block.blk and the checksum differ by nature and the
 * time stamps are not compared.
 */
unsigned int asmhdr_compare(const struct asm_hdr *p, const struct asm_hdr *b);
/* kfed's name of one ASMHDR_F_* bit: "dskname", "hdrsts"... */
const char *asmhdr_field_name(unsigned int bit);

/* The words of a damaged header's bad value: "ausize 3000 is not a power of two". */
void asmhdr_bad_text(const struct asm_hdr *h, char *buf, size_t len);

/*
 * The header blocks of one device as a dump carries them (asm/MAJ:MIN below
 * a `partalign dump` or partalign-collect directory; partalign-formats(5)):
 *
 *   partalign-asm 1
 *   block OFFSET LENGTH      then LENGTH bytes in hex, two digits each,
 *                            separated by blanks and newlines (od -An -v -tx1)
 *   error OFFSET TEXT        the block at OFFSET could not be read
 */
#define ASMHDR_DUMP_MAX 4
struct asmhdr_dump_block {
	uint64_t offset;
	bool error; /* not read */
	size_t len; /* bytes in @data (at most ASMHDR_BLOCK) */
	unsigned char data[ASMHDR_BLOCK];
};
struct asmhdr_dump {
	unsigned int n;
	struct asmhdr_dump_block b[ASMHDR_DUMP_MAX];
};

/*
 * Parse a dump file's text (@len bytes, need not end in NUL).  0, or
 * -EINVAL (no "partalign-asm 1" line first, an unknown line, a bad number
 * or hex byte, a block longer than ASMHDR_BLOCK or shorter than it says,
 * more than ASMHDR_DUMP_MAX blocks).
 */
int asmhdr_dump_parse(const char *text, size_t len, struct asmhdr_dump *d);

/*
 * The dump text of @d into @buf (asmhdr_dump_parse's format, 16 bytes a
 * line as od prints them).  Returns the length it needs (as snprintf; @buf
 * holds it all when that is below @len).  An error line's text is @why[i].
 */
size_t asmhdr_dump_text(const struct asmhdr_dump *d, const char *const *why, char *buf,
			size_t len);

/* The dump block at @offset, or NULL. */
const struct asmhdr_dump_block *asmhdr_dump_find(const struct asmhdr_dump *d,
						 uint64_t offset);

/* One copy of a device's header as the scan found it. */
struct pa_asm_copy {
	bool read;	 /* the block was read; else @err says why not */
	int err;	 /* -errno; -ETIMEDOUT: no answer in time */
	uint64_t offset; /* bytes from the start of the device */
	uint32_t block;	 /* the backup: its block number in AU 1 */
	struct asm_hdr h;
};

/*
 * What the scan found of ASM on one device (struct pa_dev.asm_hdr, owned by
 * it, freed with free()): the first block, a partition table's signature in
 * it, and, when the first block holds a header, the backup.
 */
struct pa_asm {
	struct pa_asm_copy first;
	enum asmhdr_table table;
	bool backup_tried;
	struct pa_asm_copy backup;
};

/*
 * Fill @a from the first block @buf (@len bytes; NULL with @err when it
 * could not be read): first.h parsed, the table signature, and
 * *backup_off where the backup is to be read (0: none to read).
 */
void asmhdr_take_first(struct pa_asm *a, const void *buf, size_t len, int err,
		       uint64_t *backup_off);
/* The backup block read at a->backup.offset (NULL with @err when it was not). */
void asmhdr_take_backup(struct pa_asm *a, const void *buf, size_t len, int err);

/* Whether the scan found anything of ASM on the device. */
bool asmhdr_found(const struct pa_asm *a);

#endif
