/*
 * The topology model: plain structs of integers and strings that the scanner
 * fills and everything else reads.  Nothing here knows about libudev,
 * libblkid or libparted.
 *
 * Ownership: a struct pa_devlist owns its devices, and each device owns its
 * strings.  devlist_free() releases everything.  Pointers between devices
 * (disk, map) are borrowed and stay valid as long as the list lives.
 */
#ifndef PARTALIGN_DEVICE_H
#define PARTALIGN_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pa_kind {
	PA_KIND_DISK,  /* whole disk: SCSI, virtio, NVMe namespace, ... */
	PA_KIND_PART,  /* kernel partition or kpartx partition of a map */
	PA_KIND_LOOP,  /* bound loop device */
	PA_KIND_MPATH, /* dm-multipath map (DM_UUID mpath-*) */
	PA_KIND_LVM,   /* dm device of LVM (DM_UUID LVM-*) */
	PA_KIND_CRYPT, /* dm-crypt (DM_UUID CRYPT-*) */
	PA_KIND_DM,    /* any other dm device */
	PA_KIND_MD,    /* md RAID */
};

/*
 * A device-mapper table as the scanner parsed it (issue #15): linear,
 * striped and crypt targets.  Bytes throughout; a crypt target has one
 * stripe, @crypt set, and its payload offset in to[0].offset.
 */
#define PA_DM_TARGETS_MAX 8
#define PA_DM_STRIPES_MAX 8

struct pa_dm_target {
	uint64_t start; /* on the dm device */
	uint64_t length;
	uint32_t stripes; /* 1: linear or crypt */
	uint64_t chunk;	  /* striped: chunk size; else 0 */
	bool crypt;
	struct {
		unsigned int major, minor;
		uint64_t offset; /* on the lower device */
	} to[PA_DM_STRIPES_MAX];
};

struct pa_dm_table {
	unsigned int n;
	struct pa_dm_target t[PA_DM_TARGETS_MAX];
};

/*
 * An md array's layout as sysfs md/ gives it (issue #15): one member per
 * raid slot, in slot order, each the kernel name of the member device (its
 * md/dev-NAME/block link) and where the array's data begins on it.
 */
#define PA_MD_MEMBERS_MAX 64

struct pa_asm; /* core/asmhdr.h */

struct pa_md_member {
	char *name;	      /* "vdb1" */
	uint64_t data_offset; /* bytes (md/dev-NAME/offset is in 512-byte sectors) */
};

/* All sizes in bytes. */
struct pa_topology {
	uint32_t logical;
	uint32_t physical;
	uint32_t min_io;
	uint32_t opt_io;
	int64_t align_off; /* first aligned byte; -1: the kernel says "cannot align" */
};

/*
 * An unfinished `fix --move-data` of a whole disk, as far as the audit can
 * tell without libparted (core/movestate.h): from udev's database (the
 * marked disk GUID, or a marked entry of an earlier build), from the disk's
 * own table (--probe), or from a journal named for the disk.
 */
enum pa_move_seen {
	PA_MOVE_SEEN_NONE = 0,
	PA_MOVE_SEEN_MARKER,	  /* the disk's table carries the move marker */
	PA_MOVE_SEEN_JOURNAL,	  /* only a journal named for the disk says so */
	PA_MOVE_SEEN_OLD_JOURNAL, /* a journal of partalign 0.1 (no marker) */
};

/* One moving partition: bytes; @to 0 when not known. */
struct pa_move_part {
	unsigned int num;
	uint64_t from, len, to;
};

struct pa_move_state {
	enum pa_move_seen seen;
	uint64_t id;   /* the move id; 0 unknown */
	bool id32;     /* only its low 32 bits are known (a dos disk) */
	bool disk;     /* read from the disk's own table (--probe) */
	char *journal; /* the journal file that says it, NULL */
	size_t n;
	struct pa_move_part *parts; /* what is known of the moving partitions */
};

struct pa_dev {
	char *name; /* kernel name: "sda1", "dm-3" */
	char *path; /* "/dev/sda1" */
	unsigned int major, minor;
	enum pa_kind kind;

	struct pa_dev
	    *disk; /* whole disk or map this partition lives on; NULL for wholes */
	struct pa_dev *map; /* multipath path device: the map over it */

	struct pa_topology topo; /* partitions: the disk's topology */
	uint64_t size;

	/* partitions */
	unsigned int partno;
	bool start_known;
	uint64_t start; /* bytes from the start of the disk */
	bool kalign_known;
	int64_t kernel_align; /* the kernel's own alignment_offset of this device */
	char *part_name;
	char *part_uuid;
	char *part_type;

	/* identity and contents */
	char *model;
	char *serial;
	char *wwn;
	char *fstype;
	char *pttype;
	char *pt_uuid; /* wholes: ID_PART_TABLE_UUID (a GPT disk GUID, a dos signature) */
	char *dm_uuid;
	char *dm_name;
	char *holders;	   /* space-separated kernel names */
	char *mountpoints; /* newline-separated, "[SWAP]" for swap */
	char *paths;	   /* maps: space-separated path devices */
	char *backing_file;
	char *parent_name; /* scan only: kernel name of the disk or map below */

	/*
	 * Exact udev property values, as a rules file matches them (NULL when
	 * the udev database has none).  Partitions inherit ID_SERIAL and ID_WWN
	 * from their disk in udev's own rules.
	 */
	char *id_serial;   /* ID_SERIAL */
	char *id_wwn;	   /* ID_WWN */
	char *id_wwn_ext;  /* ID_WWN_WITH_EXTENSION */
	char *part_scheme; /* ID_PART_ENTRY_SCHEME: "gpt", "dos" */

	/*
	 * The same identities from the device itself, to catch a stale udev
	 * database (device_udev_stale): the PARTUUID of the entry in the
	 * on-disk table (--probe, rules), and for whole disks the kernel's
	 * sysfs "serial" (virtio) and "wwid" / "device/wwid" (NVMe, SCSI).
	 */
	char *ondisk_uuid;
	bool ondisk_checked;  /* the on-disk table was read for this partition */
	bool ondisk_no_table; /* rules: its disk was read and holds no table */
	char *sys_serial;
	char *sys_wwid;

	/* dm devices (not multipath maps): the table, when it was read and parsed */
	bool dm_table_known;
	struct pa_dm_table *dm_table; /* owned; NULL unless dm_table_known */

	/*
	 * md arrays: level (0, 1, 4, 5, 6, 10), chunk in bytes, raid_disks and
	 * RAID10's near copies, and md_members[md_nmembers] (owned, in slot
	 * order), known when sysfs gave every slot exactly one member
	 */
	bool md_known;
	unsigned int md_level;
	uint64_t md_chunk;
	unsigned int md_raid_disks;
	unsigned int md_copies;
	unsigned int md_nmembers;
	struct pa_md_member *md_members;

	unsigned int nparts;	    /* wholes: number of partitions the kernel has */
	struct pa_move_state *move; /* wholes: an unfinished data move; NULL none */
	bool marker_read; /* wholes, --probe: the table was read for a move marker */
	bool is_path;	  /* a multipath path device or a partition of one */

	/* --probe: what the on-disk table says about this partition */
	bool probed;
	bool ondisk_found;
	uint64_t ondisk_start; /* bytes */
	uint64_t ondisk_size;
	bool kernel_missing; /* in the on-disk table, unknown to the kernel */

	/* --probe: the stripe geometry in the superblock of an xfs or ext4 file
	   system on this device (core/fsgeom.h), bytes; 0: none set */
	bool fs_geom_known;
	const char *fs_name; /* "XFS", "ext4": a static string, not freed */
	uint64_t fs_unit;    /* XFS sunit, ext4 stride */
	uint64_t fs_width;   /* XFS swidth, ext4 stripe_width */
	uint32_t fs_blocksize;

	/* --probe: an LVM2 physical volume on this device (core/lvmmeta.h) */
	bool lvm_pv_known;
	uint64_t lvm_pe_start;	  /* bytes from the start of this device to PE 0 */
	uint64_t lvm_extent_size; /* bytes, of its VG; 0: its metadata was not read */
	char *lvm_vg;		  /* the VG's name; NULL when not read */

	/* the udev database has an entry for this device (what it says is above) */
	bool udev_db;
	/* --asm, --probe: the Oracle ASM header blocks read from this device
	   (core/asmhdr.h); owned, NULL when not read */
	struct pa_asm *asm_hdr;
};

struct pa_devlist {
	struct pa_dev **v;
	size_t n;
	size_t cap;
};

/* Allocate a zeroed device (NULL on ENOMEM); the list takes it with devlist_add(). */
struct pa_dev *device_new(void);
void device_free(struct pa_dev *d);
int devlist_add(struct pa_devlist *l, struct pa_dev *d);
void devlist_free(struct pa_devlist *l);
struct pa_dev *devlist_find_name(const struct pa_devlist *l, const char *name);
struct pa_dev *devlist_find_devno(const struct pa_devlist *l, unsigned int major,
				  unsigned int minor);

/*
 * Does what udev's database says about @d disagree with the device itself?
 * Compared: the PARTUUID udev stored with the one in the on-disk entry
 * (when that entry was read: d->ondisk_checked; no entry at all is stale
 * too), ID_SERIAL with a virtio disk's sysfs
 * serial, ID_WWN with an NVMe wwid (equal) or a SCSI naa. wwid (its hex
 * digits start with the WWN's).  Partitions are compared with their disk's
 * sysfs.  Returns 1 and the line "the udev database says KEY X, WHERE says
 * Y: stale udev data; run 'udevadm trigger --action=change PATH' and
 * 'udevadm settle'" in @buf when they disagree, 0 when something was
 * compared and agrees, -1 when nothing could be compared.
 */
int device_udev_stale(const struct pa_dev *d, char *buf, size_t len);

const char *device_kind_name(enum pa_kind k);
bool device_is_whole(const struct pa_dev *d);

/*
 * Whether the analyzer looks at this device: partitions, and whole devices
 * that hold no partitions.  Multipath path devices never: their map is checked.
 */
bool device_is_checked(const struct pa_dev *d);

/* Append "s" to a space/newline separated list in *list (0 or -ENOMEM). */
int device_strlist_append(char **list, const char *s, char sep);
bool device_strlist_contains(const char *list, const char *s);

#endif
