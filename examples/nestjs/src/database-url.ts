/** The PostgreSQL database of the app, from DATABASE_URL. */
export function databaseUrl(): string {
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('Set DATABASE_URL to a PostgreSQL database, e.g. postgres://postgres@localhost:5432/shop');
  return url;
}
