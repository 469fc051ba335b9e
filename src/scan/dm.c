/*
 * The one device-mapper question the scanner asks: where a kpartx partition
 * starts on its map.  sysfs does not say; the table does.  DM_TABLE_STATUS
 * goes to /dev/mapper/control and reads no device data.  A dump keeps each
 * table as text (scan_dm_table_text), which check --sysroot reads instead.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/dm-ioctl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "scan/scan.h"

int scan_dm_table_start(const void *buf, size_t len, uint64_t *start)
{
	const char *b = buf;
	struct dm_ioctl io;
	struct dm_target_spec spec;
	unsigned int ma, mi;
	unsigned long long off;
	char params[256];
	size_t p, n;

	if (len < sizeof(io))
		return -EOPNOTSUPP;
	memcpy(&io, b, sizeof(io));
	if ((io.flags & DM_BUFFER_FULL_FLAG) || io.target_count != 1 ||
	    io.data_start > len || len - io.data_start < sizeof(spec))
		return -EOPNOTSUPP;
	/* copies: nothing says the reply is aligned for these structs */
	memcpy(&spec, b + io.data_start, sizeof(spec));
	p = io.data_start + sizeof(spec);
	n = len - p < sizeof(params) - 1 ? len - p : sizeof(params) - 1;
	memcpy(params, b + p, n);
	params[n] = '\0';
	if (strncmp(spec.target_type, "linear", sizeof(spec.target_type)) != 0 ||
	    spec.sector_start != 0 || sscanf(params, "%u:%u %llu", &ma, &mi, &off) != 3)
		return -EOPNOTSUPP;
	*start = (uint64_t)off * 512;
	return 0;
}

/* A 16 KiB device-mapper request and its reply. */
union dm_req {
	struct dm_ioctl io;
	char buf[16384];
};

/* Ask /dev/mapper/control @cmd about the device @major:@minor; 0 or -errno. */
static int dm_ask(unsigned long cmd, unsigned int major, unsigned int minor,
		  uint32_t flags, union dm_req *req)
{
	int fd, rc = 0;

	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(req, 0, sizeof(*req));
	req->io.version[0] = DM_VERSION_MAJOR;
	req->io.data_size = sizeof(*req);
	req->io.data_start = sizeof(struct dm_ioctl);
	req->io.dev = makedev(major, minor);
	req->io.flags = flags;
	if (ioctl(fd, cmd, req) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int scan_dm_linear_start(unsigned int major, unsigned int minor, uint64_t *start)
{
	union dm_req req;
	int rc = dm_ask(DM_TABLE_STATUS, major, minor, DM_STATUS_TABLE_FLAG, &req);

	return rc < 0 ? rc : scan_dm_table_start(req.buf, sizeof(req.buf), start);
}

int scan_dm_open_count(unsigned int major, unsigned int minor, int *count)
{
	union dm_req req;
	int rc = dm_ask(DM_DEV_STATUS, major, minor, 0, &req);

	if (rc == 0)
		*count = req.io.open_count;
	return rc;
}

int scan_dm_table_text(unsigned int major, unsigned int minor, char **text)
{
	union dm_req req;
	struct dm_target_spec spec;
	char *out = NULL;
	size_t len = 0, p;
	FILE *f;
	uint32_t i;
	int rc;

	rc = dm_ask(DM_TABLE_STATUS, major, minor, DM_STATUS_TABLE_FLAG, &req);
	if (rc < 0)
		return rc;
	if (req.io.flags & DM_BUFFER_FULL_FLAG)
		return -E2BIG;
	f = open_memstream(&out, &len);
	if (!f)
		return -ENOMEM;
	/* each target: a spec, its parameters, then the next spec at spec.next */
	p = req.io.data_start;
	for (i = 0; i < req.io.target_count; i++) {
		const char *params;
		size_t room;

		if (p > sizeof(req.buf) - sizeof(spec))
			break;
		memcpy(&spec, req.buf + p, sizeof(spec));
		params = req.buf + p + sizeof(spec);
		room = sizeof(req.buf) - (p + sizeof(spec));
		fprintf(f, "%llu %llu %.*s %.*s\n", (unsigned long long)spec.sector_start,
			(unsigned long long)spec.length,
			(int)strnlen(spec.target_type, sizeof(spec.target_type)),
			spec.target_type, (int)strnlen(params, room), params);
		if (!spec.next)
			break;
		p = req.io.data_start + spec.next;
	}
	if (fclose(f) != 0) {
		free(out);
		return -ENOMEM;
	}
	*text = out;
	return 0;
}

int scan_dm_table_text_start(const char *text, uint64_t *start)
{
	unsigned long long s0, len, off;
	unsigned int ma, mi;
	char type[32];
	const char *nl = strchr(text, '\n');

	/* one target only: a second line is something else than a kpartx map */
	if (nl && nl[1] != '\0')
		return -EOPNOTSUPP;
	if (sscanf(text, "%llu %llu %31s %u:%u %llu", &s0, &len, type, &ma, &mi, &off) !=
		6 ||
	    s0 != 0 || strcmp(type, "linear") != 0)
		return -EOPNOTSUPP;
	*start = (uint64_t)off * 512;
	return 0;
}

/* "MAJ:MIN" and a sector count, each ended by a blank or the line's end */
static int parse_devoff(const char **pp, unsigned int *ma, unsigned int *mi,
			uint64_t *off)
{
	unsigned long long o;
	int n = 0;

	if (sscanf(*pp, " %u:%u %llu%n", ma, mi, &o, &n) != 3 || o > UINT64_MAX / 512)
		return -EOPNOTSUPP;
	*off = (uint64_t)o * 512;
	*pp += n;
	return 0;
}

/* skip one blank-separated word; -EOPNOTSUPP when there is none */
static int skip_word(const char **pp)
{
	const char *p = *pp;

	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n')
		return -EOPNOTSUPP;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n')
		p++;
	*pp = p;
	return 0;
}

static int parse_target(const char *line, struct pa_dm_target *g)
{
	unsigned long long s0, len, stripes, chunk;
	char type[32];
	const char *p;
	unsigned int i;
	int n = 0;

	memset(g, 0, sizeof(*g));
	if (sscanf(line, "%llu %llu %31s%n", &s0, &len, type, &n) != 3 || !len ||
	    s0 > UINT64_MAX / 512 || len > UINT64_MAX / 512 || s0 + len < s0 ||
	    s0 + len > UINT64_MAX / 512)
		return -EOPNOTSUPP;
	g->start = (uint64_t)s0 * 512;
	g->length = (uint64_t)len * 512;
	g->stripes = 1;
	p = line + n;
	if (strcmp(type, "linear") == 0)
		return parse_devoff(&p, &g->to[0].major, &g->to[0].minor,
				    &g->to[0].offset);
	if (strcmp(type, "crypt") == 0) {
		/* cipher key iv_offset device offset [optional arguments] */
		if (skip_word(&p) || skip_word(&p) || skip_word(&p))
			return -EOPNOTSUPP;
		g->crypt = true;
		return parse_devoff(&p, &g->to[0].major, &g->to[0].minor,
				    &g->to[0].offset);
	}
	if (strcmp(type, "striped") != 0)
		return -EOPNOTSUPP;
	/* #stripes chunk_sectors (device offset) x #stripes */
	if (sscanf(p, " %llu %llu%n", &stripes, &chunk, &n) != 2 || stripes < 1 ||
	    stripes > PA_DM_STRIPES_MAX || !chunk || chunk > UINT64_MAX / 512 / stripes ||
	    len % (stripes * chunk))
		return -EOPNOTSUPP;
	p += n;
	g->stripes = (uint32_t)stripes;
	g->chunk = (uint64_t)chunk * 512;
	for (i = 0; i < g->stripes; i++)
		if (parse_devoff(&p, &g->to[i].major, &g->to[i].minor, &g->to[i].offset))
			return -EOPNOTSUPP;
	return 0;
}

int scan_dm_table_parse(const char *text, struct pa_dm_table *t)
{
	const char *line = text;
	uint64_t end = 0;

	memset(t, 0, sizeof(*t));
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		struct pa_dm_target *g;
		char buf[1024];

		if (*line == '\n') { /* an empty line ends nothing: skip it */
			line++;
			continue;
		}
		if (t->n >= PA_DM_TARGETS_MAX)
			goto bad;
		/* one line at a time: sscanf's blanks would read on into the next */
		if (n >= sizeof(buf))
			goto bad;
		memcpy(buf, line, n);
		buf[n] = '\0';
		g = &t->t[t->n];
		if (parse_target(buf, g) || g->start != end)
			goto bad;
		end = g->start + g->length;
		t->n++;
		if (!nl)
			break;
		line = nl + 1;
	}
	if (t->n)
		return 0;
bad:
	memset(t, 0, sizeof(*t));
	return -EOPNOTSUPP;
}
