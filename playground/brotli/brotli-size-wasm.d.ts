// playground/brotli/brotli-size.wasm, which the playground build embeds as
// bytes (see scripts/build-playground.ts).
declare module "brotli-size-wasm" {
  const bytes: Uint8Array;
  export default bytes;
}
