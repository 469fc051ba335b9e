/*
 * plan_compute (src/core/plan.c) on a table and a topology made from the
 * input bytes, in every mode (fix, --label keep, --new, --move-data).
 * Unless the plan is refused, every planned start must be on a logical
 * sector boundary and on the placement grain, every partition that is
 * re-created, moved or created must lie in the usable area of the new
 * label, no two partitions may overlap, and sizes are kept (moves always;
 * otherwise shrunk only with `resized` set).  The table is made without
 * overlaps, as libparted would read it.
 */
#include "config.h"

#include "fuzz.h"

#include "core/plan.h"

struct in {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct in *in, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes--) {
		v = v << 8 | (in->n ? *in->p : 0);
		if (in->n) {
			in->p++;
			in->n--;
		}
	}
	return v;
}

static void check(const struct pa_plan *p, const struct pa_topology *t,
		  const struct pa_plan_opts *o)
{
	uint64_t first, last;
	size_t i, k;

	plan_label_range(p->new_label, p->table.disk_size, t->logical, &first, &last);
	/* one grain for all three checks: a common multiple of each */
	FZ_ASSERT(p->place_grain > 0 && p->place_grain % t->logical == 0);
	FZ_ASSERT(p->place_grain % align_policy_bytes(&o->grain, t->logical) == 0);
	FZ_ASSERT(p->place_grain % align_physical_grain(t) == 0);
	for (i = 0; i < p->n; i++) {
		const struct pa_step *s = &p->v[i];
		bool planned = s->kind == PA_STEP_RECREATE || s->kind == PA_STEP_MOVE ||
			       s->kind == PA_STEP_CREATE;

		if (s->kind == PA_STEP_DROP || (s->old && s->old->extended))
			continue;
		FZ_ASSERT(s->new_start % t->logical == 0);
		FZ_ASSERT(s->new_start >= p->place_offset &&
			  (s->new_start - p->place_offset) % p->place_grain == 0);
		FZ_ASSERT(s->new_size > 0);
		if (planned) {
			FZ_ASSERT(s->new_start >= first);
			FZ_ASSERT(s->new_start + s->new_size - 1 <= last);
		}
		if (s->old) {
			if (s->kind == PA_STEP_MOVE || !s->resized)
				FZ_ASSERT(s->new_size == s->old->size);
			else
				FZ_ASSERT(s->new_size < s->old->size);
		}
		for (k = 0; k < i; k++) {
			const struct pa_step *q = &p->v[k];

			/* a dos logical partition lives inside its extended container */
			if (q->kind == PA_STEP_DROP ||
			    (q->old && (q->old->extended || q->old->logical)) ||
			    (s->old && s->old->logical))
				continue;
			FZ_ASSERT(q->new_start >= s->new_start + s->new_size ||
				  s->new_start >= q->new_start + q->new_size);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = {data, size};
	struct pa_table t = {0};
	struct pa_topology topo = {0};
	struct pa_plan_opts o = {0};
	struct pa_plan p;
	uint64_t flags = take(&in, 2), sectors, cursor;
	unsigned int i, n;
	int rc;

	t.label = (enum pa_label)(flags & 3);
	o.keep_label = flags >> 2 & 1;
	o.new_disk = flags >> 3 & 1;
	o.discard_data = flags >> 4 & 1;
	o.move_data = flags >> 5 & 1;
	topo.logical = flags >> 6 & 1 ? 4096 : 512;
	o.grain.sectors = flags >> 7 & 1;
	t.damaged = flags >> 8 & 1;
	topo.physical = topo.logical << (flags >> 9 & 3);
	topo.min_io = (uint32_t)(topo.physical * (take(&in, 1) % 4 + 1));
	topo.opt_io = (uint32_t)take(&in, 4);
	topo.align_off = (int64_t)take(&in, 4) - 1;
	o.grain.value = take(&in, 8);
	if (!o.grain.value)
		o.grain = PA_GRAIN_DEFAULT;
	/* the kernel's sizes stay below 2^63 bytes; keep room for arithmetic */
	sectors = take(&in, 6) % (1ull << 40) + 1;
	t.logical = topo.logical;
	t.disk_size = sectors * topo.logical;
	plan_label_range(t.label, t.disk_size, t.logical, &t.first_usable,
			 &t.last_usable);

	n = (unsigned int)(take(&in, 1) % 17);
	cursor = take(&in, 2);
	for (i = 0; i < n && cursor < sectors; i++) {
		struct pa_entry e = {.num = i + 1};
		uint64_t len = take(&in, 4) % (sectors - cursor) + 1;
		uint64_t kind = take(&in, 1);

		e.start = cursor * topo.logical;
		e.size = len * topo.logical;
		if (t.label == PA_LABEL_MSDOS) {
			e.logical = kind & 1;
			e.extended = !e.logical && (kind & 2);
		}
		if (kind & 4)
			e.signature = strdup("xfs");
		if (plan_table_add(&t, &e) < 0)
			abort();
		cursor += len + take(&in, 3);
	}
	rc = plan_compute(&t, &topo, &o, &p);
	FZ_ASSERT(rc == 0 || rc == -ENOMEM);
	if (rc == 0 && !p.refusal)
		check(&p, &topo, &o);
	plan_free(&p);
	plan_table_free(&t);
	return 0;
}
