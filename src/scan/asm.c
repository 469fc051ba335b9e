/*
 * The Oracle ASM header blocks (issue #34): check --asm and --probe, plan,
 * rules --from-asm and dump --asm read the first block of each device that
 * may hold an ASM disk header -- one udev's database (or libblkid, with
 * --probe) calls oracleasm, or one udev has no entry for -- and, when it
 * holds a header, the backup block in allocation unit 1.  Read-only, with
 * O_DIRECT where the device allows it (another RAC node may have written
 * the header: the page cache may be older than the disk).
 *
 * The reads happen in a child process that sends each block back through a
 * pipe.  A device that does not answer within PA_ASM_TIMEOUT_S (a dead SAN
 * path, a multipath map queueing without paths) is reported and skipped:
 * the child, stuck in the kernel, is killed and left behind, and a new one
 * goes on with the next device, so the audit never hangs.
 *
 * Below a root (check --sysroot) the blocks come from the dump's
 * asm/MAJ:MIN files (core/asmhdr.h) instead, and no device is opened.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/asmhdr.h"
#include "scan/scan.h"
#include "shared/fileio.h"

#define ALIGN 4096

struct req {
	const char *path;
	uint64_t off;
	size_t len;
	int err; /* 0, -errno, -ETIMEDOUT */
	size_t got;
	unsigned char buf[ASMHDR_BLOCK];
};

/* The record a child sends for each request. */
struct rec {
	uint32_t index;
	int32_t err;
	uint32_t len;
};

bool scan_asm_candidate(const struct pa_dev *d)
{
	if (d->kernel_missing || d->size < ASMHDR_BLOCK)
		return false;
	return (d->fstype && strcmp(d->fstype, "oracleasm") == 0) || !d->udev_db;
}

/* One block at @r->off into r->buf, through an aligned buffer for O_DIRECT. */
static int read_one(struct req *r, unsigned char *abuf)
{
	uint64_t base = r->off / ALIGN * ALIGN;
	size_t skip = (size_t)(r->off - base);
	ssize_t n;
	int fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_DIRECT);

	if (fd < 0 && errno == EINVAL)
		fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	n = pread(fd, abuf, ALIGN, (off_t)base);
	if (n < 0 && errno == EINVAL) {
		/* a device that takes O_DIRECT at open but not this read */
		close(fd);
		fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return -errno;
		n = pread(fd, abuf, ALIGN, (off_t)base);
	}
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	r->got = (size_t)n > skip ? (size_t)n - skip : 0;
	if (r->got > r->len)
		r->got = r->len;
	memcpy(r->buf, abuf + skip, r->got);
	return 0;
}

/*
 * The reader.  It keeps no descriptor but its pipe: one stuck on a dead path
 * outlives partalign, and a stdout it held (a pipe to jq, an ssh session)
 * would never see its end.
 */
static void child(struct req *v, size_t from, size_t n, int wfd)
{
	unsigned char *abuf = NULL;
	long fd, max = sysconf(_SC_OPEN_MAX);
	size_t i;

	for (fd = 0; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		if (fd != wfd)
			close((int)fd);
	signal(SIGPIPE, SIG_DFL);
	if (posix_memalign((void **)&abuf, ALIGN, ALIGN) != 0)
		_exit(1);
	for (i = from; i < n; i++) {
		struct rec h = {.index = (uint32_t)i};

		h.err = read_one(&v[i], abuf);
		h.len = h.err ? 0 : (uint32_t)v[i].got;
		if (write_all(wfd, &h, sizeof(h)) < 0 ||
		    (h.len && write_all(wfd, v[i].buf, h.len) < 0))
			_exit(1);
	}
	_exit(0);
}

/* @len bytes from @fd, each wait at most @ms; -ETIMEDOUT, -EPIPE at the end. */
static int recv_all(int fd, void *buf, size_t len, int ms)
{
	unsigned char *p = buf;

	while (len) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int rc = poll(&pfd, 1, ms);
		ssize_t n;

		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (rc == 0)
			return -ETIMEDOUT;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Every request of @v, in order, by children: a request not answered within
 * @ms is -ETIMEDOUT and its child is killed and left; the next child starts
 * after it.
 */
static int read_all(struct req *v, size_t n, int ms)
{
	size_t next = 0;

	while (next < n) {
		int fds[2];
		pid_t pid;
		bool stuck = false;

		if (pipe2(fds, O_CLOEXEC) < 0)
			return -errno;
		pid = fork();
		if (pid < 0) {
			close(fds[0]);
			close(fds[1]);
			return -errno;
		}
		if (pid == 0) {
			close(fds[0]);
			child(v, next, n, fds[1]);
		}
		close(fds[1]);
		while (next < n) {
			struct rec h;
			int rc = recv_all(fds[0], &h, sizeof(h), ms);

			if (rc == 0 && (h.index != next || h.len > v[next].len))
				rc = -EPROTO;
			if (rc == 0 && h.len)
				rc = recv_all(fds[0], v[next].buf, h.len, ms);
			if (rc < 0) {
				/* no answer: this device is stuck (or the child died) */
				v[next].err = rc == -EPIPE    ? -EIO
					      : rc == -EPROTO ? -EIO
							      : rc;
				next++;
				stuck = true;
				break;
			}
			v[next].err = h.err;
			v[next].got = h.len;
			next++;
		}
		close(fds[0]);
		if (stuck) {
			/* it may sleep in the kernel for good: never wait for it */
			kill(pid, SIGKILL);
			(void)waitpid(pid, NULL, WNOHANG);
		} else {
			(void)waitpid(pid, NULL, 0);
		}
	}
	return 0;
}

static int report(struct pa_diags *diags, const struct pa_dev *d, const struct req *r,
		  bool backup)
{
	if (r->err == -ETIMEDOUT)
		return diag_add(diags, d->path, 0,
				"no answer within %d s (a dead path?): its ASM %s is not "
				"read",
				PA_ASM_TIMEOUT_S, backup ? "backup header" : "header");
	if (backup)
		return diag_add(diags, d->path, -r->err,
				"cannot read the backup of its ASM header at byte %llu",
				(unsigned long long)r->off);
	return diag_add(diags, d->path, -r->err, "cannot read its first block (--asm)");
}

/* The dump's copy of @d's blocks into @dd; 0, -ENOENT (none), or a diagnostic. */
static int dump_load(const char *root, const struct pa_dev *d, struct asmhdr_dump *dd,
		     struct pa_diags *diags)
{
	char path[4096];
	void *text = NULL;
	size_t len = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/asm/%u:%u", root, d->major, d->minor);
	rc = read_file(path, 1u << 20, &text, &len);
	if (rc == -ENOENT)
		return rc;
	if (rc == 0)
		rc = asmhdr_dump_parse(text, len, dd);
	free(text);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return diag_add(diags, path, rc == -EINVAL ? 0 : -rc,
				"%s: not a partalign-asm block file",
				rc == -EINVAL ? "unreadable" : "cannot read it")
			   ?: -EINVAL;
	return 0;
}

/* Below a root: each device's blocks from the dump. */
static int read_root(struct pa_devlist *l, const char *root, struct pa_diags *diags)
{
	struct asmhdr_dump *dd = malloc(sizeof(*dd));
	size_t i;
	int rc = 0;

	if (!dd)
		return -ENOMEM;
	for (i = 0; i < l->n && rc != -ENOMEM; i++) {
		struct pa_dev *d = l->v[i];
		const struct asmhdr_dump_block *b;
		uint64_t boff;

		rc = dump_load(root, d, dd, diags);
		if (rc < 0)
			continue;
		d->asm_hdr = calloc(1, sizeof(*d->asm_hdr));
		if (!d->asm_hdr) {
			rc = -ENOMEM;
			break;
		}
		b = asmhdr_dump_find(dd, 0);
		asmhdr_take_first(d->asm_hdr, b && !b->error ? b->data : NULL,
				  b ? b->len : 0, -EIO, &boff);
		if (!b || b->error)
			rc = diag_add(diags, d->path, 0,
				      "the collection could not read its first block");
		if (!boff)
			continue;
		b = asmhdr_dump_find(dd, boff);
		asmhdr_take_backup(d->asm_hdr, b && !b->error ? b->data : NULL,
				   b ? b->len : 0, -EIO);
		if (!b || b->error)
			rc = diag_add(diags, d->path, 0,
				      "the collection holds no backup of its ASM header "
				      "(byte %llu)",
				      (unsigned long long)boff);
	}
	free(dd);
	return rc == -ENOMEM ? rc : 0;
}

/* Keep request @r in dumps[i] (allocated on first use). */
static int keep(struct asmhdr_dump **dumps, size_t i, const struct req *r)
{
	struct asmhdr_dump_block *b;

	if (!dumps)
		return 0;
	if (!dumps[i] && !(dumps[i] = calloc(1, sizeof(*dumps[i]))))
		return -ENOMEM;
	if (dumps[i]->n >= ASMHDR_DUMP_MAX)
		return 0;
	b = &dumps[i]->b[dumps[i]->n++];
	b->offset = r->off;
	b->error = r->err != 0;
	b->len = r->err ? 0 : r->got;
	memcpy(b->data, r->buf, b->len);
	return 0;
}

/* The live host: first blocks of the candidates, then the backups they name. */
static int read_live(struct pa_devlist *l, const bool *want, struct asmhdr_dump **dumps,
		     struct pa_diags *diags)
{
	struct req *v = calloc(l->n ? l->n : 1, sizeof(*v));
	size_t *dev = calloc(l->n ? l->n : 1, sizeof(*dev));
	size_t i, n = 0, k;
	int rc = 0;

	if (!v || !dev) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < l->n; i++)
		if (!l->v[i]->asm_hdr && (!want || want[i]) &&
		    scan_asm_candidate(l->v[i])) {
			v[n].path = l->v[i]->path;
			v[n].len = ASMHDR_BLOCK;
			dev[n++] = i;
		}
	rc = read_all(v, n, PA_ASM_TIMEOUT_S * 1000);
	for (k = 0; k < n && rc == 0; k++) {
		struct pa_dev *d = l->v[dev[k]];
		uint64_t boff;

		d->asm_hdr = calloc(1, sizeof(*d->asm_hdr));
		if (!d->asm_hdr || keep(dumps, dev[k], &v[k]) < 0) {
			rc = -ENOMEM;
			break;
		}
		asmhdr_take_first(d->asm_hdr, v[k].err ? NULL : v[k].buf, v[k].got,
				  v[k].err, &boff);
		/* no node: nothing anyone could read there, ASM included */
		if (v[k].err && v[k].err != -ENOENT)
			rc = report(diags, d, &v[k], false);
		/* the next round: the backups */
		memset(&v[k], 0, sizeof(v[k]));
		if (boff) {
			v[k].path = d->path;
			v[k].off = boff;
			v[k].len = d->asm_hdr->first.h.blksize;
		}
	}
	/* the devices whose first block holds a header, packed to the front */
	for (i = 0, k = 0; i < n && rc == 0; i++)
		if (v[i].path) {
			v[k] = v[i];
			dev[k++] = dev[i];
		}
	if (rc == 0)
		rc = read_all(v, k, PA_ASM_TIMEOUT_S * 1000);
	for (i = 0; i < k && rc == 0; i++) {
		struct pa_dev *d = l->v[dev[i]];

		if (keep(dumps, dev[i], &v[i]) < 0) {
			rc = -ENOMEM;
			break;
		}
		asmhdr_take_backup(d->asm_hdr, v[i].err ? NULL : v[i].buf, v[i].got,
				   v[i].err);
		if (v[i].err)
			rc = report(diags, d, &v[i], true);
	}
out:
	free(v);
	free(dev);
	return rc;
}

int scan_asm_read(struct pa_devlist *l, const char *root, const bool *want,
		  struct asmhdr_dump ***dumps, struct pa_diags *diags)
{
	if (dumps && !(*dumps = calloc(l->n ? l->n : 1, sizeof(**dumps))))
		return -ENOMEM;
	if (root && *root)
		return read_root(l, root, diags);
	return read_live(l, want, dumps ? *dumps : NULL, diags);
}

void scan_asm_dumps_free(struct asmhdr_dump **dumps, size_t n)
{
	size_t i;

	if (!dumps)
		return;
	for (i = 0; i < n; i++)
		free(dumps[i]);
	free(dumps);
}
