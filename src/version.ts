// The package version, kept here so the platform-neutral core can report it
// without reading package.json. test/cli.test.ts checks that both agree.
export const VERSION = "0.1.0";
