// JPEG encoding through libjpeg-turbo, with the same longjmp containment as jpeg_decode.c.
#include "CImageCodecs.h"
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

struct ic_encode_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char *message;
};

static void ic_encode_error_exit(j_common_ptr cinfo) {
    struct ic_encode_error *err = (struct ic_encode_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    snprintf(err->message, 200, "%s", text);
    longjmp(err->jump, 1);
}

ic_status ic_encode_jpeg(const unsigned char *rgb, int width, int height, int quality, int progressive,
                         unsigned char **out, size_t *out_size, char message[200]) {
    *out = NULL;
    *out_size = 0;
    message[0] = 0;
    if (width <= 0 || height <= 0 || width > 65500 || height > 65500) {
        snprintf(message, 200, "%dx%d cannot be a JPEG", width, height);
        return IC_UNSUPPORTED;
    }
    struct jpeg_compress_struct cinfo;
    struct ic_encode_error err;
    memset(&err, 0, sizeof err);
    err.message = message;
    // jpeg_mem_dest mallocs and grows this buffer and keeps `mem` pointing at it. Its address is
    // taken, so it lives in memory and its value survives the longjmp.
    unsigned char *mem = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = ic_encode_error_exit;
    if (setjmp(err.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(mem);
        return IC_CORRUPT;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &mem, &size);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality < 1 ? 1 : quality > 100 ? 100 : quality, TRUE);
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)cinfo.next_scanline * (size_t)width * 3);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = mem;
    *out_size = size;
    return IC_OK;
}

void ic_buffer_free(unsigned char *buffer) { free(buffer); }

ic_status ic_transcode_jpeg_progressive(const unsigned char *data, size_t size,
                                        unsigned char **out, size_t *out_size, char message[200]) {
    *out = NULL;
    *out_size = 0;
    message[0] = 0;
    struct jpeg_decompress_struct src;
    struct jpeg_compress_struct dst;
    struct ic_encode_error err;  // one error manager for both objects
    memset(&err, 0, sizeof err);
    err.message = message;
    unsigned char *mem = NULL;  // address taken below, so its value survives the longjmp
    unsigned long mem_size = 0;
    volatile int dst_created = 0;
    src.err = jpeg_std_error(&err.pub);
    dst.err = &err.pub;
    err.pub.error_exit = ic_encode_error_exit;
    if (setjmp(err.jump)) {
        if (dst_created) jpeg_destroy_compress(&dst);
        jpeg_destroy_decompress(&src);
        free(mem);
        return IC_CORRUPT;
    }
    jpeg_create_decompress(&src);
    jpeg_mem_src(&src, data, (unsigned long)size);
    jpeg_read_header(&src, TRUE);
    jvirt_barray_ptr *coefficients = jpeg_read_coefficients(&src);
    jpeg_create_compress(&dst);
    dst_created = 1;
    jpeg_copy_critical_parameters(&src, &dst);
    jpeg_simple_progression(&dst);
    jpeg_mem_dest(&dst, &mem, &mem_size);
    jpeg_write_coefficients(&dst, coefficients);
    jpeg_finish_compress(&dst);
    jpeg_destroy_compress(&dst);
    jpeg_finish_decompress(&src);
    jpeg_destroy_decompress(&src);
    *out = mem;
    *out_size = mem_size;
    return IC_OK;
}
