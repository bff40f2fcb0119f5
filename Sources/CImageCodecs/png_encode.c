// PNG encoding through libpng 1.6's simplified API, which handles libpng's errors itself (no
// longjmp reaches this file's callers): one call to size the output, one to write it.
#include "CImageCodecs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>

ic_status ic_encode_png_gray(const unsigned char *gray, int width, int height,
                             unsigned char **out, size_t *out_size, char message[200]) {
    *out = NULL;
    *out_size = 0;
    message[0] = 0;
    if (width <= 0 || height <= 0 || (size_t)width > (size_t)0x7fffffff / (size_t)height) {
        snprintf(message, 200, "image of %d x %d pixels", width, height);
        return IC_TOO_LARGE;
    }
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = PNG_FORMAT_GRAY;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, NULL, &size, 0, gray, width, NULL)) {
        snprintf(message, 200, "%s", image.message);
        png_image_free(&image);
        return IC_CORRUPT;
    }
    unsigned char *buffer = malloc(size);
    if (buffer == NULL) {
        png_image_free(&image);
        return IC_NO_MEMORY;
    }
    if (!png_image_write_to_memory(&image, buffer, &size, 0, gray, width, NULL)) {
        snprintf(message, 200, "%s", image.message);
        free(buffer);
        png_image_free(&image);
        return IC_CORRUPT;
    }
    *out = buffer;
    *out_size = size;
    return IC_OK;
}
