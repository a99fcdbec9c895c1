/**
 * How hilo reads a libpq host list (`postgres://h1,h2/db?target_session_attrs=…`) before any connection: which
 * URLs the driver gets per host, and which settings are refused because they would send reservations (writes) to a
 * server that refuses them. The behaviour on a real primary and standby is in failover.multi-host.postgres.test.ts.
 */
import { HiLoConfigurationError } from 'hilo-core';
import { connect } from '../src/operations/connect.js';
import { parsePostgresHosts } from '../src/dialects/postgres/multi-host.js';

describe('parsePostgresHosts', () => {
  it('leaves a one-host URL without target_session_attrs to the driver', () => {
    expect(parsePostgresHosts('postgres://app@db:5432/shop?sslmode=disable')).toBeUndefined();
    expect(parsePostgresHosts('postgresql://db/shop?target_session_attrs=any')).toBeUndefined();
  });

  it('splits the host list in order, with default ports, IPv6 hosts and the other parameters kept', () => {
    const list = parsePostgresHosts(
      'postgres://app:s3cret@h1:5433,[::1],h3/shop?sslmode=disable&target_session_attrs=read-write',
    )!;
    expect(list.targetSessionAttrs).toBe('read-write');
    expect(list.hosts).toEqual([
      { host: 'h1', port: 5433 },
      { host: '[::1]', port: 5432 },
      { host: 'h3', port: 5432 },
    ]);
    expect(list.urlFor(0)).toBe('postgres://app:s3cret@h1:5433/shop?sslmode=disable');
    expect(list.urlFor(1)).toBe('postgres://app:s3cret@[::1]:5432/shop?sslmode=disable');
  });

  it('checks one host too when target_session_attrs asks for a writable server', () => {
    const list = parsePostgresHosts('postgres://db/shop?target_session_attrs=primary')!;
    expect(list.hosts).toEqual([{ host: 'db', port: 5432 }]);
    expect(list.urlFor(0)).toBe('postgres://db:5432/shop');
  });

  it.each(['read-only', 'standby', 'prefer-standby'])(
    'refuses target_session_attrs=%s, which picks a server that refuses writes, naming read-write',
    (attrs) => {
      const url = `postgres://app:s3cret@h1,h2/shop?target_session_attrs=${attrs}`;
      expect(() => parsePostgresHosts(url)).toThrow(HiLoConfigurationError);
      expect(() => parsePostgresHosts(url)).toThrow(/use target_session_attrs=read-write/);
      expect(() => parsePostgresHosts(url)).toThrow(/app:\*\*\*@h1,h2/);
    },
  );

  it('refuses an unknown target_session_attrs and a bad port, naming what it expected', () => {
    expect(() => parsePostgresHosts('postgres://h1,h2/db?target_session_attrs=master')).toThrow(
      /read-write, primary or any, got "master"/,
    );
    expect(() => parsePostgresHosts('postgres://h1:99999,h2/db')).toThrow(/host or host:port .* got "h1:99999"/);
    expect(() => parsePostgresHosts('postgres://h1,,h2/db')).toThrow(HiLoConfigurationError);
  });

  it('is what connect() refuses with, before any connection is tried', async () => {
    await expect(connect('postgres://h1,h2/db?target_session_attrs=standby')).rejects.toThrow(HiLoConfigurationError);
  });
});
