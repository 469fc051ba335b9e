/*
 * Raw label layout, for the few things libparted 3.5 does not expose: where
 * the GPT arrays and dos EBRs lie, the GPT type GUID and unique GUID of
 * each entry, and the on-disk identity of a label (label_identity).  Pure:
 * every read goes through a label_read_fn, so the same code parses a disk,
 * the in-memory shadow, a backup file's regions or a test's image.
 */
#ifndef PARTALIGN_CORE_LABEL_H
#define PARTALIGN_CORE_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads @len bytes at byte @off of some image; 0 or -errno. */
typedef int (*label_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);
/* Writes @len bytes at byte @off of some image; 0 or -errno. */
typedef int (*label_write_fn)(void *ctx, uint64_t off, const void *buf, size_t len);

/* GPT: bytes of the header + entry array at the start; the same at the end. */
int label_gpt_extent(label_read_fn rd, void *ctx, uint32_t logical, uint64_t *head_len,
		     uint64_t *tail_len);

/*
 * dos: the byte offsets of every EBR in the chain (at most @max);
 * returns how many, 0 if there is no extended partition, or -errno.
 */
int label_dos_ebrs(label_read_fn rd, void *ctx, uint32_t logical, uint64_t *ebrs,
		   size_t max);

/*
 * GPT entry @num (1-based): type GUID and unique GUID as text, if in use,
 * from the copy libparted and the kernel read (the primary unless it is
 * damaged and the backup is whole) on a disk of @disk_size bytes.
 */
int label_gpt_entry_guids(label_read_fn rd, void *ctx, uint32_t logical,
			  uint64_t disk_size, unsigned int num, char type[37],
			  char uuid[37]);

/* dos primary entry @num (1..4): system id, or -ENOENT. */
int label_dos_system(label_read_fn rd, void *ctx, unsigned int num);

/*
 * The on-disk identity of a partition table: what the label itself says it
 * is, as opposed to what the disk reports (serial, WWN: the same on every
 * clone of a VM image).
 *
 *   kind   LABEL_ID_GPT: a GPT header with a valid signature, header CRC and
 *          entry-array CRC: the primary at LBA 1, or, when the primary is
 *          damaged, the backup header at the last LBA (then @backup_header
 *          is true).  A dos sector 0 with a 0xEE (protective) entry is
 *          never dos: without a valid GPT header it is LABEL_ID_NONE.
 *          LABEL_ID_DOS: sector 0 ends in 55 AA, every boot indicator is
 *          0x00 or 0x80 and no entry has type 0xEE.
 *          LABEL_ID_NONE: neither (blank, wiped, a file system, damaged).
 *   disk   gpt: the disk GUID, as sgdisk and sfdisk print it (upper case,
 *          "01234567-89AB-CDEF-0123-456789ABCDEF"); dos: the disk signature
 *          (le32 of bytes 440..443 of sector 0) as 8 lower-case hex digits,
 *          as sfdisk's label-id without "0x"; none: "".
 *   parts  gpt: the unique GUID of every used entry (type GUID not zero),
 *          by entry number, ascending; dos: none (a dos PARTUUID is only
 *          the disk signature and a number).
 */
enum label_id_kind {
	LABEL_ID_NONE = 0,
	LABEL_ID_DOS,
	LABEL_ID_GPT,
};

#define LABEL_ID_MAX_PARTS 256

struct label_id_part {
	unsigned int num; /* 1-based entry number */
	char guid[37];
};

struct label_id {
	enum label_id_kind kind;
	bool backup_header;	/* gpt: read from the backup header (primary damaged) */
	uint64_t entries_lba;	/* gpt: where the header read puts its entry array */
	uint64_t alternate_lba; /* gpt: where it says the other header is */
	char disk[37];
	size_t nparts;
	struct label_id_part parts[LABEL_ID_MAX_PARTS];
};

/*
 * Read the identity of the label on an image of @disk_size bytes with
 * @logical-byte sectors into @id.  Returns 0 (also for LABEL_ID_NONE),
 * -E2BIG when a GPT has more than LABEL_ID_MAX_PARTS used entries, or the
 * -errno of @rd.  Only @rd does I/O; nothing is allocated.
 */
int label_identity(label_read_fn rd, void *ctx, uint32_t logical, uint64_t disk_size,
		   struct label_id *id);

/*
 * The stable text form of @id's kind and disk key: "gpt:<DISK-GUID>",
 * "dos:<8 hex digits>" or "none" (the partition GUIDs are not in it).
 * Returns the length written (as snprintf, NUL not counted) or -ENOSPC
 * when @len is too small (then @buf holds "" if @len > 0).
 */
int label_identity_format(const struct label_id *id, char *buf, size_t len);

/*
 * The reverse of label_identity_format for the kind and disk key (no
 * partitions): 0, or -EINVAL for text that label_identity_format cannot
 * produce.
 */
int label_identity_parse(const char *s, struct label_id *id);

/* Same kind and disk key (partition GUIDs are not compared). */
bool label_identity_same(const struct label_id *a, const struct label_id *b);

/*
 * The health of a GPT, each copy checked on its own: the protective MBR, the
 * primary header at LBA 1 and the backup where the primary says it is (the
 * last LBA when the primary is not valid), each with its
 * signature, header CRC and entry-array CRC (the checks label_identity()
 * makes), and dos entries in sector 0 beside the 0xEE one (a hybrid MBR).
 * A disk whose sector 0 has no 0xEE entry is no GPT: everything zero.
 */
enum label_gpt_state {
	LABEL_GPT_OK = 0,
	LABEL_GPT_NO_HEADER,  /* no "EFI PART" signature */
	LABEL_GPT_BAD_HEADER, /* signature, but a wrong header CRC or field */
	LABEL_GPT_BAD_ARRAY,  /* a valid header, its entry array's CRC wrong */
};

struct label_health {
	bool pmbr;		   /* sector 0 has a protective 0xEE entry */
	unsigned int hybrid_entry; /* 1-4: a dos entry beside it; 0: none */
	unsigned char hybrid_type; /* its system id */
	enum label_gpt_state primary, backup;
	uint64_t entries_lba;	/* the valid primary's entry array, else 0 */
	uint64_t backup_lba;	/* where the backup was looked for: the valid
				 * primary's alternate LBA, else the last LBA */
	uint64_t alternate_lba; /* the valid primary's alternate LBA as written
				 * (past the end on a shrunk disk), else 0 */
	size_t backup_parts;	/* primary not valid: used entries of the backup */
	/*
	 * Sector 0 is a dos table (no 0xEE entry), which the kernel, libblkid and
	 * libparted read, but a GPT header is valid too: at LBA 1 (@other_gpt 1)
	 * or at the last LBA (2) -- another tool's leftover, or a dos -> GPT
	 * conversion an earlier build left between its writes.
	 */
	unsigned int other_gpt;
};

/* Fill @h; 0, -ENOMEM or the -errno of @rd. */
int label_health(label_read_fn rd, void *ctx, uint32_t logical, uint64_t disk_size,
		 struct label_health *h);

/*
 * What makes a table unreadable for libparted, in words, into @why: a
 * partition past the end of the disk, outside the usable sectors of the
 * GPT, or two partitions that overlap (dos: primary entries).  Returns 1
 * when it found one, 0 when not (then @why is ""), or -errno.
 */
int label_check_entries(label_read_fn rd, void *ctx, uint32_t logical, uint64_t disk_size,
			char *why, size_t len);

/*
 * GPT attribute bits (the 64-bit field of each entry), by entry index (entry
 * 1 at [0]), from the valid primary array into @attrs (the rest zero).
 * libparted before 3.5 writes only the bits it has flags for.  0 or -errno.
 */
int label_gpt_attrs(label_read_fn rd, void *ctx, uint32_t logical, uint64_t disk_size,
		    uint64_t *attrs, size_t max);

/* A GUID's text form into its 16 on-disk bytes (mixed endian); -EINVAL. */
int label_guid_parse(const char *text, unsigned char g[16]);

/* What to set in one GPT entry. */
struct label_gpt_edit {
	bool type_set;
	unsigned char type[16]; /* the type GUID, on-disk bytes */
	bool attrs_set;
	uint64_t attrs;
};

/*
 * Apply e[i] to entry i + 1 in both copies of the GPT on an image (the backup
 * where the primary says it is), the arrays' and headers' CRCs made again:
 * what libparted 3.2 cannot set itself.  0 or -errno.
 */
int label_gpt_edit(label_read_fn rd, label_write_fn wr, void *ctx, uint32_t logical,
		   uint64_t disk_size, const struct label_gpt_edit *e, size_t n);

#endif
