// The emscripten module inside the `brotli` package (build/encode.js: Google's
// C encoder, compiled). The package exports only an async compress(); the
// playground needs a synchronous measure, so the build resolves this name to
// that file (see scripts/build-playground.ts).
declare module "brotli-encoder" {
  export interface BrotliEncoderModule {
    HEAPU8: Uint8Array;
    _malloc(size: number): number;
    _free(ptr: number): void;
    /** Returns the encoded size, or -1 if it did not fit in outSize. */
    _encodeWithDictionary(quality: number, lgwin: number, mode: number, inSize: number, inPtr: number, dictSize: number, dictPtr: number, outSize: number, outPtr: number): number;
  }
  export default function createEncoder(): Promise<BrotliEncoderModule>;
}
