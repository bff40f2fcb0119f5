// Still-image decoding through the system's libjpeg-turbo and libpng, behind a C boundary.
//
// Both libraries report fatal errors by calling an error handler that must not return; the only
// portable way out is longjmp. A longjmp across Swift frames is undefined behaviour, so every
// setjmp/longjmp pair lives inside one function of this target, and Swift sees plain status codes.
#ifndef ONDEVICE_CIMAGECODECS_H
#define ONDEVICE_CIMAGECODECS_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    IC_OK = 0,
    IC_CORRUPT = 1,      // the library rejected the data; `message` says why
    IC_TRUNCATED = 2,    // the data ended before the image did
    IC_UNSUPPORTED = 3,  // well-formed but a kind we do not convert (e.g. an unknown colour space)
    IC_TOO_LARGE = 4,    // width * height above the caller's limit
    IC_NO_MEMORY = 5
} ic_status;

/// A decoded image: `width * height * 3` bytes of 8-bit RGB, row-major, interleaved.
typedef struct {
    unsigned char *pixels;  // malloc'd; release with ic_image_free
    int width;
    int height;
    int source_components;  // components in the file (1 gray, 3 colour, 4 CMYK), for diagnostics
    char message[200];      // the library's words when status != IC_OK
} ic_image;

/// Decodes a baseline or progressive JPEG with libjpeg-turbo's defaults (ISLOW integer IDCT,
/// fancy chroma upsampling), so pixels equal Pillow's and djpeg's. `scale_denom` (1, 2, 4 or 8)
/// asks libjpeg for a DCT-domain reduced decode (1 = full size). Grayscale is repeated into R, G, B;
/// Adobe (inverted) CMYK is converted as Pillow does (R = C*K/255 on the stored values).
ic_status ic_decode_jpeg(const unsigned char *data, size_t size, int scale_denom,
                         size_t max_pixels, ic_image *out);

/// Decodes a PNG of any bit depth and colour type to 8-bit RGB: palette expanded, gray repeated,
/// 16-bit samples reduced to their high byte, alpha (or tRNS) dropped, interlacing undone.
ic_status ic_decode_png(const unsigned char *data, size_t size, size_t max_pixels, ic_image *out);

/// Encodes 8-bit RGB as a JFIF JPEG (4:2:0, libjpeg-turbo's default tables scaled to `quality`
/// 1...100), baseline or progressive. On IC_OK `*out` is malloc'd (free with ic_buffer_free).
/// Used for thumbnails and to build test and benchmark folders.
ic_status ic_encode_jpeg(const unsigned char *rgb, int width, int height, int quality, int progressive,
                         unsigned char **out, size_t *out_size, char message[200]);

/// Rewrites a JPEG as progressive without decoding to pixels (the quantized DCT coefficients are
/// copied, as `jpegtran -progressive` does), so it decodes to exactly the same pixels. On IC_OK
/// `*out` is malloc'd (free with ic_buffer_free). Lets tests hold progressive decoding to the
/// golden checksums of baseline files.
ic_status ic_transcode_jpeg_progressive(const unsigned char *data, size_t size,
                                        unsigned char **out, size_t *out_size, char message[200]);

/// Encodes 8-bit grayscale (`width * height` bytes, row-major) as a PNG through libpng's simplified
/// write API. On IC_OK `*out` is malloc'd (free with ic_buffer_free). Used for person masks.
ic_status ic_encode_png_gray(const unsigned char *gray, int width, int height,
                             unsigned char **out, size_t *out_size, char message[200]);

/// Frees a buffer returned by ic_encode_jpeg, ic_encode_png_gray or ic_transcode_jpeg_progressive.
void ic_buffer_free(unsigned char *buffer);

/// Frees `image->pixels` (safe on an image whose decode failed).
void ic_image_free(ic_image *image);

#ifdef __cplusplus
}
#endif
#endif
