/* webpenc.c: RGB -> WebP through libwebp's advanced API (webpenc.h).
 *
 * Settings: libwebp's default preset at the request's quality, method 4
 * (libwebp's default speed/size trade), no multi-threading (thread_level 0)
 * and no random dithering, so the bytes depend on the pixels, the quality
 * and the libwebp version only. Lossless uses VP8L at its default effort
 * (quality 75 as the effort knob, method 4): on the unshaded tiles (at most
 * 256 colours) it finds the colour cache/palette transform and is smaller
 * than PNG.
 */
#include "tiles/webpenc.h"

#include <string.h>
#include <webp/encode.h>

#include "base/failalloc.h"

int webpenc_version(void)
{
    return WebPGetEncoderVersion();
}

int webpenc_encode(const unsigned char *rgb, int width, int height, size_t stride_bytes, int quality,
                   unsigned char **out, size_t *out_size)
{
    if (out)
        *out = NULL;
    if (out_size)
        *out_size = 0;
    if (!rgb || !out || !out_size || width < 1 || height < 1 || width > WEBP_MAX_DIMENSION ||
        height > WEBP_MAX_DIMENSION || stride_bytes < (size_t)width * 3 || stride_bytes > 0x7fffffff ||
        (quality != WEBPENC_LOSSLESS && (quality < WEBPENC_MIN_QUALITY || quality > WEBPENC_MAX_QUALITY)))
        return ERR_INVALID;

    WebPConfig config;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, quality == WEBPENC_LOSSLESS ? 75.0f : (float)quality))
        return ERR_INTERNAL;
    config.method = 4;
    config.thread_level = 0;
    if (quality == WEBPENC_LOSSLESS)
        config.lossless = 1;
    if (!WebPValidateConfig(&config))
        return ERR_INTERNAL;

    WebPPicture pic;
    if (!WebPPictureInit(&pic))
        return ERR_INTERNAL;
    pic.use_argb = config.lossless; /* VP8L works on ARGB, VP8 on YUV */
    pic.width = width;
    pic.height = height;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    pic.writer = WebPMemoryWrite;
    pic.custom_ptr = &writer;

    int rc = ERR_NOMEM;
    if (!WebPPictureImportRGB(&pic, rgb, (int)stride_bytes))
        goto done;
    if (!WebPEncode(&config, &pic)) {
        rc = pic.error_code == VP8_ENC_ERROR_OUT_OF_MEMORY ||
                     pic.error_code == VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY
                 ? ERR_NOMEM
                 : ERR_INTERNAL;
        goto done;
    }
    /* the caller frees with free(): copy out of libwebp's buffer */
    *out = failalloc_malloc(writer.size);
    if (!*out)
        goto done;
    memcpy(*out, writer.mem, writer.size);
    *out_size = writer.size;
    rc = 0;
done:
    WebPPictureFree(&pic);
    WebPMemoryWriterClear(&writer);
    return rc;
}
