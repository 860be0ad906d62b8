/* The brotli size of a buffer, encoded as Node's zlib encodes it (the
   streaming API with quality, window and size hint set, all the input at
   once), for the playground's measures. Built by build.sh. */
#include <stdlib.h>
#include <brotli/encode.h>

static uint8_t out_chunk[1 << 16];

__attribute__((export_name("alloc"))) uint8_t* alloc(size_t n) { return malloc(n); }
__attribute__((export_name("release"))) void release(uint8_t* p) { free(p); }

/* The encoded size of in[0..n), or -1 on failure. Only the size is kept:
   the output goes through one reused chunk. */
__attribute__((export_name("brotli_size"))) long brotli_size(const uint8_t* in, size_t n, int quality, int lgwin) {
  BrotliEncoderState* s = BrotliEncoderCreateInstance(0, 0, 0);
  if (!s) return -1;
  BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, (uint32_t)quality);
  BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, (uint32_t)lgwin);
  BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, (uint32_t)n);
  size_t avail_in = n;
  const uint8_t* next_in = in;
  long total = 0;
  for (;;) {
    size_t avail_out = sizeof out_chunk;
    uint8_t* next_out = out_chunk;
    if (!BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &avail_in, &next_in, &avail_out, &next_out, 0)) {
      total = -1;
      break;
    }
    total += (long)(sizeof out_chunk - avail_out);
    if (BrotliEncoderIsFinished(s)) break;
  }
  BrotliEncoderDestroyInstance(s);
  return total;
}
