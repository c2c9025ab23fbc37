/** kexp's own version (kept in step with package.json by test/cli/version.test.ts). */
export const KEXP_VERSION = '0.1.0';
