/**
 * The hilo-cli package version, printed by `hilo --version`. A constant rather than a package.json read at
 * run time, so the same code works from the ESM and CommonJS builds and from bundles; a test checks it
 * against package.json, so a release bump that forgets it fails the suite.
 */
export const CLI_VERSION = '0.1.0';
