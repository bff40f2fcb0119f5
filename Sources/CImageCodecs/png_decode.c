// PNG decoding through libpng 1.6. The error callback longjmps to the setjmp in ic_decode_png,
// the only frame between it and the library.
#include "CImageCodecs.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

struct ic_png_source {
    const unsigned char *data;
    size_t size;
    size_t offset;
    int truncated;
    char *message;
    jmp_buf jump;
};

static void ic_png_error(png_structp png, png_const_charp text) {
    struct ic_png_source *src = (struct ic_png_source *)png_get_error_ptr(png);
    snprintf(src->message, 200, "%s", text);
    longjmp(src->jump, 1);
}

// Warnings (bad ancillary chunks, odd sRGB profiles) leave the pixels intact: ignore them.
static void ic_png_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void ic_png_read(png_structp png, png_bytep dst, size_t length) {
    struct ic_png_source *src = (struct ic_png_source *)png_get_io_ptr(png);
    if (length > src->size - src->offset) {
        src->truncated = 1;
        png_error(png, "data ends inside the image");
    }
    memcpy(dst, src->data + src->offset, length);
    src->offset += length;
}

ic_status ic_decode_png(const unsigned char *data, size_t size, size_t max_pixels, ic_image *out) {
    memset(out, 0, sizeof *out);
    struct ic_png_source src = { data, size, 0, 0, out->message };
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        snprintf(out->message, sizeof out->message, "no PNG signature");
        return size < 8 ? IC_TRUNCATED : IC_CORRUPT;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, ic_png_error, ic_png_warning);
    if (!png) return IC_NO_MEMORY;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return IC_NO_MEMORY;
    }
    // Written after setjmp and read after a longjmp, so volatile.
    unsigned char *volatile pixels = NULL;
    png_bytepp volatile rows = NULL;
    if (setjmp(src.jump)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(pixels);
        free(rows);
        return src.truncated ? IC_TRUNCATED : IC_CORRUPT;
    }
    png_set_read_fn(png, &src, ic_png_read);
    png_read_info(png, info);
    png_uint_32 width, height;
    int depth, color, interlace;
    png_get_IHDR(png, info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    out->source_components = png_get_channels(png, info);
    if ((size_t)width * height > max_pixels) {
        snprintf(out->message, sizeof out->message, "%ux%u pixels", (unsigned)width, (unsigned)height);
        png_destroy_read_struct(&png, &info, NULL);
        return IC_TOO_LARGE;
    }
    // The transforms that turn every PNG into Pillow's convert("RGB") result.
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);  // also expands tRNS to alpha
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (depth == 16) png_set_strip_16(png);  // keeps the high byte, as Pillow's "RGB;16B" does
    png_set_strip_alpha(png);                // a no-op on rows without alpha
    if (!(color & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    size_t stride = png_get_rowbytes(png, info);
    if (stride != (size_t)width * 3) {
        snprintf(out->message, sizeof out->message, "row of %zu bytes after conversion (colour type %d, depth %d)",
                 stride, color, depth);
        png_destroy_read_struct(&png, &info, NULL);
        return IC_UNSUPPORTED;
    }
    pixels = malloc(stride * height);
    rows = malloc(sizeof(png_bytep) * height);
    if (!pixels || !rows) {
        png_destroy_read_struct(&png, &info, NULL);
        free(pixels);
        free(rows);
        return IC_NO_MEMORY;
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + y * stride;
    png_read_image(png, rows);
    png_read_end(png, NULL);  // checks the CRCs of the chunks after the image data
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    out->pixels = pixels;
    out->width = (int)width;
    out->height = (int)height;
    return IC_OK;
}
