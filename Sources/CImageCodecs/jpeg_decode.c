// JPEG decoding through libjpeg-turbo. error_exit longjmps back to the setjmp in ic_decode_jpeg,
// which is the only frame between it and the library, so no Swift frame is ever unwound.
#include "CImageCodecs.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct ic_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int saw_eof;  // libjpeg warned that the data ended early (it pads with a fake EOI)
    char *message;
};

static void ic_jpeg_error_exit(j_common_ptr cinfo) {
    struct ic_jpeg_error *err = (struct ic_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(err->message, 200, "%s", text);
    longjmp(err->jump, 1);
}

// Warnings (level -1) are recoverable; a premature end is the one we refuse, as Pillow does,
// because the rest of the picture would be grey filler.
static void ic_jpeg_emit_message(j_common_ptr cinfo, int level) {
    struct ic_jpeg_error *err = (struct ic_jpeg_error *)cinfo->err;
    if (level >= 0) return;
    if (cinfo->err->msg_code == JWRN_JPEG_EOF && !err->saw_eof) {
        err->saw_eof = 1;
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        snprintf(err->message, 200, "%s", text);
    }
    cinfo->err->num_warnings++;
}

ic_status ic_decode_jpeg(const unsigned char *data, size_t size, int scale_denom,
                         size_t max_pixels, ic_image *out) {
    memset(out, 0, sizeof *out);
    struct jpeg_decompress_struct cinfo;
    struct ic_jpeg_error err;
    memset(&err, 0, sizeof err);
    err.message = out->message;
    // Written after setjmp and read after a longjmp, so volatile.
    unsigned char *volatile pixels = NULL;
    unsigned char *volatile row = NULL;  // one CMYK scanline

    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = ic_jpeg_error_exit;
    err.pub.emit_message = ic_jpeg_emit_message;
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        free(row);
        out->pixels = NULL;
        return err.saw_eof ? IC_TRUNCATED : IC_CORRUPT;
    }
    jpeg_create_decompress(&cinfo);
    if (size == 0) {
        snprintf(out->message, sizeof out->message, "empty data");
        jpeg_destroy_decompress(&cinfo);
        return IC_TRUNCATED;
    }
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    out->source_components = cinfo.num_components;

    int cmyk = 0;
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE: case JCS_YCbCr: case JCS_RGB:
        cinfo.out_color_space = JCS_RGB;  // libjpeg repeats gray into R, G, B
        break;
    case JCS_CMYK: case JCS_YCCK:
        cinfo.out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    default:
        snprintf(out->message, sizeof out->message, "colour space %d", (int)cinfo.jpeg_color_space);
        jpeg_destroy_decompress(&cinfo);
        return IC_UNSUPPORTED;
    }
    if (scale_denom == 2 || scale_denom == 4 || scale_denom == 8) {
        cinfo.scale_num = 1;
        cinfo.scale_denom = (unsigned int)scale_denom;
    }
    jpeg_calc_output_dimensions(&cinfo);
    size_t w = cinfo.output_width, h = cinfo.output_height;
    if (w == 0 || h == 0 || w * h > max_pixels) {
        snprintf(out->message, sizeof out->message, "%zux%zu pixels", w, h);
        jpeg_destroy_decompress(&cinfo);
        return IC_TOO_LARGE;
    }
    pixels = malloc(w * h * 3);
    if (cmyk) row = malloc(w * 4);
    if (!pixels || (cmyk && !row)) {
        free(pixels); free(row);
        jpeg_destroy_decompress(&cinfo);
        return IC_NO_MEMORY;
    }
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        size_t y = cinfo.output_scanline;
        if (cmyk) {
            JSAMPROW r = row;
            jpeg_read_scanlines(&cinfo, &r, 1);
            // Adobe writes CMYK inverted; Pillow reads it as "CMYK;I" and converts with
            // R = 255 - (C' + K' - C'K'/255) on the true values, which is C*K/255 on the stored ones.
            unsigned char *dst = pixels + y * w * 3;
            for (size_t x = 0; x < w; x++) {
                unsigned k = row[x * 4 + 3];
                for (int c = 0; c < 3; c++) dst[x * 3 + c] = (unsigned char)((row[x * 4 + c] * k + 127) / 255);
            }
        } else {
            JSAMPROW r = pixels + y * w * 3;
            jpeg_read_scanlines(&cinfo, &r, 1);
        }
    }
    jpeg_finish_decompress(&cinfo);
    free(row);
    row = NULL;
    int truncated = err.saw_eof;
    jpeg_destroy_decompress(&cinfo);
    if (truncated) {
        free(pixels);
        return IC_TRUNCATED;
    }
    out->pixels = pixels;
    out->width = (int)w;
    out->height = (int)h;
    return IC_OK;
}

void ic_image_free(ic_image *image) {
    free(image->pixels);
    image->pixels = NULL;
}
