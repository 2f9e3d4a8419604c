/* SPDX-License-Identifier: MIT */
/* The trace partition's blocks (trace_part.h). */
#include "lib/trace_part.h"
#include "lib/crc32.h"
#include "lib/string.h"

/* C3A5BFB3-93B4-4A05-8C3A-70DB0078F423 */
const uint8_t trace_part_type[16] = {0xb3, 0xbf, 0xa5, 0xc3, 0xb4, 0x93, 0x05, 0x4a,
				     0x8c, 0x3a, 0x70, 0xdb, 0x00, 0x78, 0xf4, 0x23};

static const char head_magic[8] = {'B', 'T', 'T', 'R', 'A', 'C', 'E', '1'};
static const char commit_magic[8] = {'B', 'T', 'C', 'O', 'M', 'M', 'I', 'T'};

#define CRC_AT (TRACE_PART_SECTOR - 4)

static void copy_cut(char *to, const char *from, size_t room)
{
	size_t n = from ? strlen(from) : 0;
	if (n >= room)
		n = room - 1;
	memcpy(to, from ? from : "", n);
	to[n] = 0;
}

void trace_part_head_make(struct trace_part_head *h, uint64_t boot_id, uint64_t sectors,
			  const char *build_id, const char *options)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, head_magic, sizeof(h->magic));
	h->version = TRACE_PART_VERSION;
	h->sector = TRACE_PART_SECTOR;
	h->boot_id = boot_id;
	h->sectors = sectors;
	copy_cut(h->build_id, build_id, sizeof(h->build_id));
	copy_cut(h->options, options, sizeof(h->options));
	h->crc = crc32(h, CRC_AT);
}

void trace_part_commit_make(struct trace_part_commit *c, uint64_t boot_id,
			    enum trace_part_state state, uint64_t bytes, uint64_t frames,
			    uint32_t data_crc)
{
	memset(c, 0, sizeof(*c));
	memcpy(c->magic, commit_magic, sizeof(c->magic));
	c->version = TRACE_PART_VERSION;
	c->state = state;
	c->boot_id = boot_id;
	c->bytes = bytes;
	c->frames = frames;
	c->data_crc = data_crc;
	c->crc = crc32(c, CRC_AT);
}

bool trace_part_head_ok(const struct trace_part_head *h)
{
	return !memcmp(h->magic, head_magic, sizeof(h->magic)) &&
	       h->version == TRACE_PART_VERSION && h->sector == TRACE_PART_SECTOR &&
	       crc32(h, CRC_AT) == h->crc;
}

bool trace_part_commit_ok(const struct trace_part_commit *c)
{
	return !memcmp(c->magic, commit_magic, sizeof(c->magic)) &&
	       c->version == TRACE_PART_VERSION && crc32(c, CRC_AT) == c->crc;
}

const char *trace_part_state_name(uint32_t state)
{
	switch (state) {
	case TRACE_PART_WRITING:
		return "writing";
	case TRACE_PART_COMPLETE:
		return "complete";
	case TRACE_PART_FULL:
		return "full";
	}
	return "?";
}

uint64_t trace_part_capacity(uint64_t sectors)
{
	return sectors > TRACE_PART_DATA_LBA ? (sectors - TRACE_PART_DATA_LBA) * TRACE_PART_SECTOR
					     : 0;
}
