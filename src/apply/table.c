/*
 * The shadow: a sparse in-memory file of the disk's size holding a copy of
 * the disk's label sectors.  libparted reads the table from it and writes
 * the new table into it; it never opens the real disk.  The shadow owns its
 * memfd, PedDevice and PedDisk.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <parted/parted.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "apply/apply.h"
#include "shared/fileio.h"
#include "core/label.h"
#include "core/marker.h"
#include "scan/scan.h"

#define HEAD_COPY (1u << 20)
#define MAX_EBRS 256
#define MAX_ATTRS 256

struct pa_shadow {
	int memfd;
	char fdpath[64];
	PedDevice *dev;
	PedDisk *disk;	 /* as read */
	PedDisk *staged; /* the new table (== disk when changed in place) */
	enum pa_label label;
	uint64_t size;
	uint32_t logical;
	struct pa_extent old[MAX_EBRS + 2]; /* label sectors of the table as read */
	size_t nold;
	/* GPT: each entry's attribute bits as the disk had them (attrs_known) */
	bool attrs_known;
	uint64_t attrs[MAX_ATTRS];
	/* dos: each partition's system id (primary 1-4, logical from 5), 0 none */
	unsigned char sysid[MAX_ATTRS];
	/* the move marker as the disk has it, before marker_reveal() showed the
	   hidden entries to libparted; found: it has one */
	struct pa_marker mk;
	bool mk_found;
};

/* libparted reports through one global handler: collect, never prompt or print. */
static struct pa_diags *cur_msgs;
static const char *cur_dev;
static bool cur_damaged;

static PedExceptionOption on_exception(PedException *ex)
{
	if (cur_msgs)
		diag_add(cur_msgs, cur_dev, 0, "libparted: %s", ex->message);
	/*
	 * One GPT copy torn by a power cut during its write (fix writes the
	 * backup copy first, so a torn primary sits next to a whole backup):
	 * use the whole one, as gdisk and the kernel do; the plan then writes
	 * the label again.  (No setlocale: libparted's messages are English.)
	 */
	if (ex->type == PED_EXCEPTION_ERROR && (ex->options & PED_EXCEPTION_OK) &&
	    strstr(ex->message, "GPT table is corrupt, but the")) {
		cur_damaged = true;
		return PED_EXCEPTION_OK;
	}
	/*
	 * A disk that grew (a LUN or vmdk made larger): libparted asks whether
	 * to use the new space.  Fix: the staged table then has its backup at
	 * the disk's real end and both copies agree, as 'sgdisk -e' leaves it.
	 */
	if ((ex->options & PED_EXCEPTION_FIX) &&
	    strstr(ex->message, "Not all of the space available"))
		return PED_EXCEPTION_FIX;
	switch (ex->type) {
	case PED_EXCEPTION_INFORMATION:
	case PED_EXCEPTION_WARNING:
		if (ex->options & PED_EXCEPTION_IGNORE)
			return PED_EXCEPTION_IGNORE;
		if (ex->options & PED_EXCEPTION_OK)
			return PED_EXCEPTION_OK;
		break;
	default:
		break;
	}
	return ex->options & PED_EXCEPTION_CANCEL ? PED_EXCEPTION_CANCEL
						  : PED_EXCEPTION_UNHANDLED;
}

static void parted_begin(struct pa_diags *msgs, const char *dev)
{
	ped_exception_set_handler(on_exception);
	cur_msgs = msgs;
	cur_dev = dev;
	cur_damaged = false;
}

static void parted_end(void)
{
	cur_msgs = NULL;
	cur_dev = NULL;
}

static int rd_fd(void *ctx, uint64_t off, void *buf, size_t len)
{
	return pread_zero(*(int *)ctx, buf, len, off);
}

/* Copy [off, off+len) of the disk into the shadow. */
static int copy_in(struct pa_disk *d, struct pa_shadow *sh, uint64_t off, uint64_t len)
{
	struct pa_extent r = {.off = off, .len = len};
	void *buf;
	int rc = apply_disk_read(d, &r, &buf);

	if (rc < 0)
		return rc;
	rc = pwrite_all(sh->memfd, buf, (size_t)len, off);
	free(buf);
	return rc;
}

void apply_shadow_free(struct pa_shadow *sh)
{
	if (!sh)
		return;
	if (sh->staged && sh->staged != sh->disk)
		ped_disk_destroy(sh->staged);
	if (sh->disk)
		ped_disk_destroy(sh->disk);
	if (sh->dev)
		ped_device_destroy(
		    sh->dev); /* drop it from libparted's cache: fds get reused */
	if (sh->memfd >= 0)
		close(sh->memfd);
	free(sh);
}

/* Which sectors hold the label of the table in the shadow now. */
static int label_regions(struct pa_shadow *sh, enum pa_label label, struct pa_extent *r,
			 size_t max, size_t *n)
{
	uint64_t head, tail, ebrs[MAX_EBRS];
	int k, i;

	*n = 0;
	if (label == PA_LABEL_GPT) {
		k = label_gpt_extent(rd_fd, &sh->memfd, sh->logical, &head, &tail);
		if (k < 0)
			return k;
		r[(*n)++] = (struct pa_extent){.off = 0, .len = head};
		r[(*n)++] = (struct pa_extent){.off = sh->size - tail, .len = tail};
		return 0;
	}
	if (label != PA_LABEL_MSDOS)
		return 0;
	r[(*n)++] = (struct pa_extent){.off = 0, .len = sh->logical};
	k = label_dos_ebrs(rd_fd, &sh->memfd, sh->logical, ebrs, MAX_EBRS);
	if (k < 0)
		return k;
	for (i = 0; i < k && *n < max; i++)
		r[(*n)++] = (struct pa_extent){.off = ebrs[i], .len = sh->logical};
	return 0;
}

static char *flags_text(PedPartition *part)
{
	PedPartitionFlag f;
	char *s = NULL;

	for (f = ped_partition_flag_next(0); f; f = ped_partition_flag_next(f))
		if (ped_partition_is_flag_available(part, f) &&
		    ped_partition_get_flag(part, f))
			device_strlist_append(&s, ped_partition_flag_get_name(f), ',');
	return s;
}

static int fill_entries(struct pa_disk *d, struct pa_shadow *sh, struct pa_table *t)
{
	bool names =
	    ped_disk_type_check_feature(sh->disk->type, PED_DISK_TYPE_PARTITION_NAME);
	PedPartition *part;
	int rc;

	for (part = ped_disk_next_partition(sh->disk, NULL); part;
	     part = ped_disk_next_partition(sh->disk, part)) {
		struct pa_entry e = {0};
		char type[37], uuid[37];
		int sys;

		if (part->num <= 0 ||
		    (part->type & (PED_PARTITION_METADATA | PED_PARTITION_FREESPACE)))
			continue;
		e.num = (unsigned int)part->num;
		e.start = (uint64_t)part->geom.start * sh->logical;
		e.size = (uint64_t)part->geom.length * sh->logical;
		e.logical = part->type & PED_PARTITION_LOGICAL;
		e.extended = part->type & PED_PARTITION_EXTENDED;
		if (names && ped_partition_get_name(part) &&
		    *ped_partition_get_name(part))
			e.name = strdup(ped_partition_get_name(part));
		if (sh->label == PA_LABEL_GPT &&
		    label_gpt_entry_guids(rd_fd, &sh->memfd, sh->logical, sh->size, e.num,
					  type, uuid) == 0) {
			e.type = strdup(type);
			e.uuid = strdup(uuid);
		} else if (sh->label == PA_LABEL_MSDOS &&
			   (sys = label_dos_system(rd_fd, &sh->memfd, e.num)) >= 0) {
			if (asprintf(&e.type, "0x%02x", sys) < 0)
				e.type = NULL;
		} else {
			e.type = flags_text(part);
		}
		if (!e.extended)
			e.signature = scan_probe_signature(d->fd, e.start, e.size);
		rc = plan_table_add(t, &e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int wr_fd(void *ctx, uint64_t off, const void *buf, size_t len)
{
	return pwrite_all(*(int *)ctx, buf, len, off);
}

static struct marker_io shadow_io(struct pa_shadow *sh)
{
	return (struct marker_io){rd_fd, wr_fd, &sh->memfd, sh->logical, sh->size};
}

/*
 * A marker this build wrote hides the moving entries from every reader,
 * libparted too: show them to libparted in the shadow, at their old place
 * (the disk keeps what it has; sh->mk is what it has).
 */
static int reveal_marker(struct pa_shadow *sh)
{
	struct marker_io io = shadow_io(sh);
	int rc = marker_find(&io, &sh->mk);

	if (rc <= 0)
		return rc;
	sh->mk_found = true;
	return sh->mk.hidden || sh->mk.guid_marked ? marker_reveal(&io) : 0;
}

/* The move marker the table carries, into @t. */
static int read_marker(struct pa_shadow *sh, struct pa_table *t)
{
	struct label_id id;
	size_t i;

	if (label_identity(rd_fd, &sh->memfd, sh->logical, sh->size, &id) == 0 &&
	    label_identity_format(&id, t->ident, sizeof(t->ident)) < 0)
		t->ident[0] = '\0';
	if (!sh->mk_found)
		return 0;
	t->marked = true;
	t->move_id = sh->mk.move_id;
	t->move_id32 = sh->mk.id32;
	t->move_hidden = sh->mk.hidden;
	for (i = 0; i < t->n; i++) {
		const struct pa_marker_part *mp = marker_part(&sh->mk, t->v[i].num);

		if (mp && mp->from == t->v[i].start) {
			t->v[i].moving = mp->hidden;
			t->v[i].move_to = mp->to;
		}
	}
	if (sh->mk.journal[0] && !(t->move_journal = strdup(sh->mk.journal)))
		return -ENOMEM;
	return 0;
}

int apply_shadow_unmark(struct pa_shadow *sh, const struct pa_journal *j)
{
	struct marker_io io = shadow_io(sh);

	return marker_clear(&io, j);
}

/* Sector 0 and both GPT copies, checked raw on the disk itself, into @t. */
static int read_health(struct pa_disk *d, struct pa_table *t)
{
	struct label_health h;
	int rc = label_health(rd_fd, &d->fd, d->logical, d->size, &h);

	if (rc < 0)
		return rc;
	t->pmbr = h.pmbr;
	t->gpt_primary = (enum pa_gpt_copy)h.primary;
	t->gpt_backup = (enum pa_gpt_copy)h.backup;
	t->backup_parts = h.backup_parts;
	t->hybrid_entry = h.hybrid_entry;
	t->hybrid_type = h.hybrid_type;
	t->gpt_entries_lba = h.entries_lba;
	t->gpt_alternate_lba = h.alternate_lba;
	t->other_gpt = h.other_gpt;
	return 0;
}

/* libparted refused the table: why, if the entries or the two copies tell. */
static int read_broken(struct pa_disk *d, struct pa_table *t)
{
	char why[256];
	int rc =
	    label_check_entries(rd_fd, &d->fd, d->logical, d->size, why, sizeof(why));

	if (rc < 0)
		return rc;
	/* the primary points past the end: the plan refuses a shrunk disk */
	if (rc == 0 && plan_gpt_end(t) == PA_GPT_END_SHRUNK) {
		t->unreadable = true;
		return 0;
	}
	if (rc == 0 && !(t->label == PA_LABEL_GPT && t->gpt_primary && t->gpt_backup))
		return -EIO; /* nothing this code can name: libparted's messages say it */
	t->unreadable = true;
	if (rc > 0 && !(t->broken = strdup(why)))
		return -ENOMEM;
	return 0;
}

/*
 * A disk that grew since its GPT was written keeps the backup where its
 * end was: libparted reads it there, so the shadow holds it too.
 */
static int copy_alternate(struct pa_disk *d, struct pa_shadow *sh)
{
	struct label_health h;
	uint64_t head, tail, nsec = d->size / d->logical, end;
	int rc = label_health(rd_fd, &d->fd, d->logical, d->size, &h);

	if (rc < 0 || h.primary != LABEL_GPT_OK || h.backup_lba + 1 >= nsec ||
	    label_gpt_extent(rd_fd, &d->fd, d->logical, &head, &tail) < 0)
		return rc;
	end = (h.backup_lba + 1) * d->logical;
	if (end < tail + HEAD_COPY)
		return 0; /* inside the first MiB: copied already */
	return copy_in(d, sh, end - tail, tail);
}

/*
 * The system id of every dos partition, as libparted numbers them: the
 * primary entries 1-4, then each EBR's first entry from 5 on.
 */
static int dos_sysids(struct pa_disk *d, struct pa_shadow *sh)
{
	uint64_t ebrs[MAX_EBRS];
	unsigned char s[512];
	unsigned int num = 5;
	int k, i, rc = rd_fd(&d->fd, 0, s, sizeof(s));

	if (rc < 0 || s[510] != 0x55 || s[511] != 0xaa)
		return rc;
	for (i = 0; i < 4; i++)
		sh->sysid[i] = s[446 + 16 * i + 4];
	k = label_dos_ebrs(rd_fd, &d->fd, d->logical, ebrs, MAX_EBRS);
	for (i = 0; i < k && num <= MAX_ATTRS; i++) {
		rc = rd_fd(&d->fd, ebrs[i], s, sizeof(s));
		if (rc < 0)
			return rc;
		if (s[446 + 4])
			sh->sysid[num++ - 1] = s[446 + 4];
	}
	return 0;
}

/* The sparse copy libparted works on: the label sectors (the first and last
 * MiB, and the dos EBR chain) of the disk, in a memfd of the disk's size. */
static int shadow_fill(struct pa_disk *d, struct pa_shadow *sh)
{
	uint64_t head = d->size < HEAD_COPY ? d->size : HEAD_COPY;
	uint64_t ebrs[MAX_EBRS];
	int k, i, rc;

	/* the EBR chain and libblkid read through the page cache: drop what it kept */
	posix_fadvise(d->fd, 0, 0, POSIX_FADV_DONTNEED);
	sh->size = d->size;
	sh->logical = d->logical;
	sh->memfd = memfd_create("partalign-shadow", MFD_CLOEXEC);
	if (sh->memfd < 0 || ftruncate(sh->memfd, (off_t)d->size) < 0)
		return -errno;
	rc = copy_in(d, sh, 0, head);
	if (rc == 0)
		rc = copy_in(d, sh, d->size - head, head);
	if (rc < 0)
		return rc;
	if (rc == 0)
		rc = copy_alternate(d, sh);
	/* before libparted reads (and may rewrite) the shadow */
	sh->attrs_known = label_gpt_attrs(rd_fd, &d->fd, d->logical, d->size, sh->attrs,
					  MAX_ATTRS) == 0;
	if (rc == 0)
		rc = dos_sysids(d, sh);
	if (rc < 0)
		return rc;
	k = label_dos_ebrs(rd_fd, &d->fd, d->logical, ebrs, MAX_EBRS);
	for (i = 0; i < k && rc == 0; i++)
		if (ebrs[i] + d->logical <= d->size)
			rc = copy_in(d, sh, ebrs[i], d->logical);
	snprintf(sh->fdpath, sizeof(sh->fdpath), "/proc/self/fd/%d", sh->memfd);
	return rc;
}

/* libparted's device on the shadow, with the disk's geometry. */
static int shadow_device(const struct pa_disk *d, struct pa_shadow *sh)
{
	sh->dev = ped_device_get(sh->fdpath);
	if (!sh->dev)
		return -EIO;
	/* a file looks like 512/512 to libparted: give it the disk's geometry */
	sh->dev->sector_size = d->logical;
	sh->dev->phys_sector_size = d->physical;
	sh->dev->length = (PedSector)(d->size / d->logical);
	sh->dev->bios_geom.heads = 4;
	sh->dev->bios_geom.sectors = 32;
	/*
	 * libparted keeps cylinders in an int: beyond 128 TiB of 512-byte
	 * sectors the quotient does not fit.  Only CHS fields use it, and they
	 * saturate long before, so the largest int says the same.
	 */
	sh->dev->bios_geom.cylinders = sh->dev->length / 4 / 32 > INT_MAX
					   ? INT_MAX
					   : (int)(sh->dev->length / 4 / 32);
	sh->dev->hw_geom = sh->dev->bios_geom;
	return 0;
}

/* What libparted found in the shadow: its label, entries, damage and marker. */
static int table_parse(struct pa_disk *d, struct pa_shadow *sh, struct pa_table *t)
{
	PedDiskType *type = ped_disk_probe(sh->dev);
	int rc;

	if (!type || strcmp(type->name, "loop") == 0) {
		/* none, or libparted's "loop" label: a file system on the whole device */
		t->label = PA_LABEL_NONE;
		t->signature = scan_probe_signature(d->fd, 0, d->size);
		return 0;
	}
	if (strcmp(type->name, "gpt") == 0)
		t->label = PA_LABEL_GPT;
	else if (strcmp(type->name, "msdos") == 0)
		t->label = PA_LABEL_MSDOS;
	else
		t->label = PA_LABEL_OTHER;
	sh->label = t->label;
	sh->disk = ped_disk_new(sh->dev);
	if (!sh->disk)
		/* libparted gives up; say why, from the raw table, and refuse it (plan)
		 */
		return read_broken(d, t);
	/* a copy libparted took without a word (a wrong backup array CRC) is damage too
	 */
	t->damaged = cur_damaged ||
		     (t->label == PA_LABEL_GPT && (t->gpt_primary || t->gpt_backup));
	rc = label_regions(sh, t->label, sh->old, sizeof(sh->old) / sizeof(sh->old[0]),
			   &sh->nold);
	if (rc == -EOPNOTSUPP && t->label == PA_LABEL_GPT) {
		/* entries away from LBA 2: shown, and refused by the plan */
		t->gpt_odd_layout = true;
		sh->nold = 0;
		rc = 0;
	}
	if (rc == 0)
		rc = fill_entries(d, sh, t);
	if (rc == 0)
		rc = read_marker(sh, t);
	return rc;
}

/* The sectors of @n regions over the shadow (a table backup, say), as if written. */
static int overlay(struct pa_shadow *sh, const struct pa_extent *regs, void *const *bufs,
		   size_t n)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && rc == 0; i++)
		if (regs[i].off + regs[i].len <= sh->size)
			rc = pwrite_all(sh->memfd, bufs[i], (size_t)regs[i].len,
					regs[i].off);
	return rc;
}

int apply_table_read(struct pa_disk *d, struct pa_shadow **out, struct pa_table *t,
		     struct pa_diags *msgs)
{
	return apply_table_read_over(d, NULL, NULL, 0, out, t, msgs);
}

int apply_table_read_over(struct pa_disk *d, const struct pa_extent *regs,
			  void *const *bufs, size_t n, struct pa_shadow **out,
			  struct pa_table *t, struct pa_diags *msgs)
{
	struct pa_shadow *sh = calloc(1, sizeof(*sh));
	int rc;

	memset(t, 0, sizeof(*t));
	if (!sh)
		return -ENOMEM;
	rc = shadow_fill(d, sh);
	if (rc == 0 && n)
		rc = overlay(sh, regs, bufs, n);
	if (rc == 0)
		rc = reveal_marker(sh);
	if (rc == 0)
		rc = read_health(d, t);
	if (rc < 0)
		goto fail;
	t->disk_size = d->size;
	t->logical = d->logical;
	parted_begin(msgs, d->path);
	rc = shadow_device(d, sh);
	if (rc == 0)
		rc = table_parse(d, sh, t);
	parted_end();
	if (rc < 0)
		goto fail;
	*out = sh;
	return 0;
fail:
	plan_table_free(t);
	apply_shadow_free(sh);
	return rc;
}

static int add_part(PedDisk *disk, PedPartition *part, PedSector start, PedSector len)
{
	PedConstraint *c;
	int ok;

	if (!ped_geometry_set(&part->geom, start, len))
		return -EINVAL;
	c = ped_constraint_exact(&part->geom);
	if (!c)
		return -ENOMEM;
	ok = ped_disk_add_partition(disk, part, c);
	ped_constraint_destroy(c);
	return ok ? 0 : -EINVAL;
}

/* The GPT type of a dos system id, through libparted's flags. */
static void carry_type(PedPartition *from, PedPartition *to)
{
	static const PedPartitionFlag carried[] = {PED_PARTITION_LVM, PED_PARTITION_RAID,
						   PED_PARTITION_SWAP};
	size_t i;

	if (!from)
		return;
	for (i = 0; i < sizeof(carried) / sizeof(carried[0]); i++)
		if (ped_partition_is_flag_available(from, carried[i]) &&
		    ped_partition_get_flag(from, carried[i]) &&
		    ped_partition_is_flag_available(to, carried[i]))
			ped_partition_set_flag(to, carried[i], 1);
}

static int stage_fresh(struct pa_shadow *sh, const struct pa_plan *p, const char *name)
{
	PedSector l = sh->logical;
	size_t i;
	int rc;

	sh->staged = ped_disk_new_fresh(sh->dev, ped_disk_type_get("gpt"));
	if (!sh->staged)
		return -EIO;
	for (i = 0; i < p->n; i++) {
		const struct pa_step *s = &p->v[i];
		PedPartition *old =
		    sh->disk ? ped_disk_get_partition(sh->disk, (int)s->num) : NULL;
		PedPartition *part;

		if (s->kind == PA_STEP_DROP)
			continue;
		part = ped_partition_new(
		    sh->staged, PED_PARTITION_NORMAL, NULL, (PedSector)(s->new_start / l),
		    (PedSector)((s->new_start + s->new_size) / l) - 1);
		if (!part)
			return -ENOMEM;
		part->num = (int)s->num; /* GPT keeps a number that is set */
		carry_type(old, part);
		if (s->kind == PA_STEP_CREATE && name)
			ped_partition_set_name(part, name);
		else if (old && old->disk->type &&
			 ped_disk_type_check_feature(old->disk->type,
						     PED_DISK_TYPE_PARTITION_NAME) &&
			 ped_partition_get_name(old))
			ped_partition_set_name(part, ped_partition_get_name(old));
		rc = add_part(sh->staged, part, (PedSector)(s->new_start / l),
			      (PedSector)(s->new_size / l));
		if (rc < 0) {
			ped_partition_destroy(part);
			return rc;
		}
	}
	return 0;
}

/* Same label: move the partitions of the table as read, keeping each one's GUIDs. */
static int stage_in_place(struct pa_shadow *sh, const struct pa_plan *p)
{
	PedPartition **moved = calloc(p->n ? p->n : 1, sizeof(*moved));
	PedSector l = sh->logical;
	size_t i;
	int rc = 0;

	if (!moved)
		return -ENOMEM;
	sh->staged = sh->disk;
	for (i = 0; i < p->n; i++) {
		if (p->v[i].kind != PA_STEP_RECREATE)
			continue;
		moved[i] = ped_disk_get_partition(sh->disk, (int)p->v[i].num);
		if (!moved[i] || !ped_disk_remove_partition(sh->disk, moved[i])) {
			rc = -EIO;
			goto out;
		}
		/* libparted 3.5 leaves a removed partition's list links set; adding it
		 * back with stale links corrupts the list ("overlapping partitions") */
		moved[i]->prev = moved[i]->next = NULL;
	}
	for (i = 0; i < p->n; i++) {
		if (!moved[i])
			continue;
		rc = add_part(sh->disk, moved[i], (PedSector)(p->v[i].new_start / l),
			      (PedSector)(p->v[i].new_size / l));
		if (rc < 0)
			goto out;
	}
out:
	free(moved);
	return rc;
}

/* The GPT type of a dos system id partalign carries over; NULL for the default. */
static const char *gpt_type_of_dos(unsigned char sys)
{
	switch (sys) {
	case 0x82:
		return "0657FD6D-A4AB-43C4-84E5-0933C84B4F4F"; /* Linux swap */
	case 0x8e:
		return "E6D6D379-F507-44C2-A23C-238F2A3DF928"; /* Linux LVM */
	case 0xfd:
		return "A19D880F-05FC-4D3B-A006-743F0F84911E"; /* Linux RAID */
	default:
		return NULL;
	}
}

/*
 * What libparted before 3.5 (EL8's 3.2) does not write itself, put into the
 * staged GPT: a kept GPT's attribute bits (3.2 writes only the bits it has
 * flags for, and drops bit 1 and bits 48-63), and the type of a converted
 * dos partition (3.2 has no swap flag).
 */
static int edit_staged(struct pa_shadow *sh, const struct pa_plan *p, bool fresh)
{
	struct label_gpt_edit e[MAX_ATTRS];
	bool any = false;
	size_t i;

	memset(e, 0, sizeof(e));
	for (i = 0; i < p->n; i++) {
		const struct pa_step *s = &p->v[i];
		struct label_gpt_edit *x;
		const char *guid;

		if (!s->old || s->kind == PA_STEP_DROP || s->num < 1 ||
		    s->num > MAX_ATTRS)
			continue;
		x = &e[s->num - 1];
		if (!fresh && sh->label == PA_LABEL_GPT && sh->attrs_known) {
			x->attrs_set = true;
			x->attrs = sh->attrs[s->num - 1];
			any = true;
		} else if (fresh && sh->label == PA_LABEL_MSDOS &&
			   (guid = gpt_type_of_dos(sh->sysid[s->num - 1])) &&
			   label_guid_parse(guid, x->type) == 0) {
			x->type_set = true;
			any = true;
		}
	}
	if (!any || p->new_label != PA_LABEL_GPT)
		return 0;
	return label_gpt_edit(rd_fd, wr_fd, &sh->memfd, sh->logical, sh->size, e,
			      MAX_ATTRS);
}

int apply_table_stage(struct pa_shadow *sh, const struct pa_plan *p, const char *name,
		      struct pa_diags *msgs)
{
	int rc;

	unsigned char s0[512], n0[512];
	bool fresh = p->new_label != p->table.label || p->v[0].kind == PA_STEP_CREATE;
	/*
	 * A dos table kept as dos keeps its boot code and disk signature (the
	 * PARTUUIDs): libparted 3.5 puts in its own boot code and a new random
	 * signature when the boot code area is empty.
	 */
	bool keep0 = !fresh && p->table.label == PA_LABEL_MSDOS &&
		     rd_fd(&sh->memfd, 0, s0, sizeof(s0)) == 0;

	parted_begin(msgs, NULL);
	if (fresh)
		rc = stage_fresh(sh, p, name);
	else
		rc = stage_in_place(sh, p);
	if (rc == 0 && !ped_disk_commit_to_dev(sh->staged))
		rc = -EIO;
	parted_end();
	if (rc == 0)
		rc = edit_staged(sh, p, fresh);
	if (rc == 0 && keep0) {
		rc = rd_fd(&sh->memfd, 0, n0, sizeof(n0));
		memcpy(n0, s0, 446);
		if (rc == 0)
			rc = wr_fd(&sh->memfd, 0, n0, sizeof(n0));
	}
	if (rc == 0)
		sh->label = p->new_label;
	return rc;
}

static int cmp_region(const void *a, const void *b)
{
	const struct pa_extent *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

int apply_shadow_regions(struct pa_shadow *sh, struct pa_extent **regs, size_t *n)
{
	struct pa_extent now[MAX_EBRS + 2];
	struct pa_extent *all;
	size_t nnow = 0, i, j, k = 0;
	int rc;

	rc = label_regions(sh, sh->label, now, sizeof(now) / sizeof(now[0]), &nnow);
	if (rc < 0)
		return rc;
	all = calloc(nnow + sh->nold + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	/* old label sectors the new label does not reuse are cleared */
	for (i = 0; i < sh->nold; i++) {
		bool covered = false;
		static const char zero[4096];

		for (j = 0; j < nnow && !covered; j++)
			covered =
			    sh->old[i].off >= now[j].off &&
			    sh->old[i].off + sh->old[i].len <= now[j].off + now[j].len;
		if (covered)
			continue;
		if (sh->old[i].len <= sizeof(zero) &&
		    pwrite(sh->memfd, zero, sh->old[i].len, (off_t)sh->old[i].off) < 0) {
			free(all);
			return -errno;
		}
		/* cleared only once the new label is in force (after sector 0) */
		all[k] = sh->old[i];
		all[k++].late = true;
	}
	memcpy(all + k, now, nnow * sizeof(*now));
	k += nnow;
	qsort(all, k, sizeof(*all), cmp_region);
	/* merge overlaps (an old region inside a new one was skipped above) */
	for (i = 0, j = 0; i < k; i++) {
		if (j && all[i].late == all[j - 1].late &&
		    all[i].off <= all[j - 1].off + all[j - 1].len) {
			uint64_t end = all[i].off + all[i].len;

			if (end > all[j - 1].off + all[j - 1].len)
				all[j - 1].len = end - all[j - 1].off;
		} else {
			all[j++] = all[i];
		}
	}
	*regs = all;
	*n = j;
	return 0;
}

int apply_shadow_identity(struct pa_shadow *sh, struct label_id *id)
{
	return label_identity(rd_fd, &sh->memfd, sh->logical, sh->size, id);
}

int apply_shadow_read(struct pa_shadow *sh, const struct pa_extent *r, void **buf)
{
	void *b = malloc(r->len ? r->len : 1);
	int rc;

	if (!b)
		return -ENOMEM;
	rc = rd_fd(&sh->memfd, r->off, b, r->len);
	if (rc < 0) {
		free(b);
		return rc;
	}
	*buf = b;
	return 0;
}
