/** Jest global tear-down: stops the embedded PostgreSQL started by the global set-up, if any. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.__hiloEmbeddedPostgres?.stop();
  globalThis.__hiloEmbeddedPostgres = undefined;
}
