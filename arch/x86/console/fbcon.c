/* SPDX-License-Identifier: MIT */
/*
 * The screen: the UEFI GOP framebuffer the loader found (boot_info.fb) as a text console, with
 * an 8x16 font generated at build time from Debian's psf-unifont (scripts/psf2c). It shows the
 * human log only; records stay on the serial stream. When the text reaches the bottom, the
 * lower half moves up (redrawn from a text copy: reading back a write-combined or uncached
 * framebuffer is slow on real hardware).
 */
#include "kernel/arch_console.h"
#include "kernel/arch_cpu.h"
#include "kernel/boot_info.h"
#include "lib/fmt.h"
#include "lib/string.h"
#include "font8x16.h" /* generated: $(BUILD)/gen */

/* EFI_GRAPHICS_PIXEL_FORMAT (UEFI 2.10, 12.9.1): both 32-bit formats are drawn. */
enum gop_pixel_format {
	GOP_RGB_RESERVED_8BIT = 0, /* byte 0 red */
	GOP_BGR_RESERVED_8BIT = 1, /* byte 0 blue */
	GOP_BIT_MASK = 2,
	GOP_BLT_ONLY = 3,
};

#define FB_BYTES_PER_PIXEL 4
#define FB_TEXT_COLS_MAX   256
#define FB_TEXT_ROWS_MAX   128
#define FB_TAB		   8
#define FB_FOREGROUND	   0xc0c0c0u /* light grey, 0xRRGGBB */
#define FB_BACKGROUND	   0x000000u

static struct {
	bool active;
	volatile uint32_t *base;
	uint32_t pitch;	 /* pixels per scan line */
	uint32_t fg, bg; /* in the framebuffer's byte order */
	unsigned cols, rows, col, row;
	char text[FB_TEXT_ROWS_MAX][FB_TEXT_COLS_MAX];
} fb;

static uint32_t pixel(uint32_t rgb, uint32_t format)
{
	if (format == GOP_BGR_RESERVED_8BIT)
		return rgb; /* bytes B, G, R, reserved: 0x00RRGGBB little-endian */
	return (rgb & 0xff) << 16 | (rgb & 0xff00) | (rgb >> 16 & 0xff);
}

static void draw(unsigned row, unsigned col, char c)
{
	unsigned g = (unsigned char)c >= FONT_FIRST && (unsigned char)c <= FONT_LAST
			 ? (unsigned char)c - FONT_FIRST
			 : FONT_LAST - FONT_FIRST + 1; /* the '?' glyph */
	volatile uint32_t *p = fb.base + (uint64_t)row * FONT_HEIGHT * fb.pitch + col * FONT_WIDTH;
	for (unsigned y = 0; y < FONT_HEIGHT; y++, p += fb.pitch) {
		unsigned bits = font_glyphs[g][y];
		for (unsigned x = 0; x < FONT_WIDTH; x++)
			p[x] = bits & (0x80u >> x) ? fb.fg : fb.bg;
	}
}

/* At the bottom: the lower half becomes the upper half, the rest is cleared. */
static void scroll(void)
{
	unsigned keep = fb.rows / 2, from = fb.rows - keep;
	for (unsigned r = 0; r < fb.rows; r++) {
		if (r < keep)
			memcpy(fb.text[r], fb.text[from + r], fb.cols);
		else
			memset(fb.text[r], ' ', fb.cols);
		for (unsigned c = 0; c < fb.cols; c++)
			draw(r, c, fb.text[r][c]);
	}
	fb.row = keep;
}

static void newline(void)
{
	fb.col = 0;
	if (++fb.row == fb.rows)
		scroll();
}

void arch_screen_write(const char *s, size_t n)
{
	if (!fb.active)
		return;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\n') {
			newline();
			continue;
		}
		if (c == '\r') {
			fb.col = 0;
			continue;
		}
		if (c == '\t') {
			do
				arch_screen_write(" ", 1);
			while (fb.col % FB_TAB);
			continue;
		}
		if (fb.col == fb.cols)
			newline();
		fb.text[fb.row][fb.col] = c;
		draw(fb.row, fb.col++, c);
	}
}

bool arch_screen_active(void)
{
	return fb.active;
}

bool arch_screen_init(const struct boot_info *bi, char *why, size_t why_size)
{
	const struct boot_framebuffer *f = &bi->fb;
	fb.active = false;
	if (!f->base) {
		fmt_snprintf(why, why_size, "the firmware offered no graphics output (GOP)");
		return false;
	}
	if (f->pixel_format != GOP_RGB_RESERVED_8BIT && f->pixel_format != GOP_BGR_RESERVED_8BIT) {
		fmt_snprintf(
		    why, why_size,
		    "GOP pixel format %u is not drawn (accepted: 0 RGBX and 1 BGRX, 32-bit)",
		    f->pixel_format);
		return false;
	}
	uint64_t bytes = (uint64_t)f->pixels_per_scanline * f->height * FB_BYTES_PER_PIXEL;
	if (f->width < FONT_WIDTH || f->height < FONT_HEIGHT || f->pixels_per_scanline < f->width ||
	    bytes > f->size || f->base + bytes > bi->identity_limit) {
		fmt_snprintf(
		    why, why_size,
		    "GOP mode %ux%u (scan line %u pixels, %lu bytes at %#lx) is not usable",
		    f->width, f->height, f->pixels_per_scanline, f->size, f->base);
		return false;
	}
	fb.base = arch_phys_to_virt(f->base);
	fb.pitch = f->pixels_per_scanline;
	fb.fg = pixel(FB_FOREGROUND, f->pixel_format);
	fb.bg = pixel(FB_BACKGROUND, f->pixel_format);
	fb.cols = f->width / FONT_WIDTH;
	fb.rows = f->height / FONT_HEIGHT;
	if (fb.cols > FB_TEXT_COLS_MAX)
		fb.cols = FB_TEXT_COLS_MAX;
	if (fb.rows > FB_TEXT_ROWS_MAX)
		fb.rows = FB_TEXT_ROWS_MAX;
	for (uint64_t i = 0; i < (uint64_t)fb.pitch * f->height; i++)
		fb.base[i] = fb.bg;
	for (unsigned r = 0; r < fb.rows; r++)
		memset(fb.text[r], ' ', fb.cols);
	fb.row = fb.col = 0;
	fb.active = true;
	fmt_snprintf(why, why_size, "%ux%u, %u x %u characters", f->width, f->height, fb.cols,
		     fb.rows);
	return true;
}
