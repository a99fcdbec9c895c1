// safetyNetSql's edges: a schema with no keyed model, and a dialect it has no SQL for. The statements for
// keyed models are run against real databases by every suite's fixtures (fixtures.ts).
import pg from 'pg';
import { HiLoConfigurationError } from 'hilo-core';
import { describePostgres } from '@hilo/testing';
import { missingKeyFunctionSql, safetyNetSql } from 'hilo-prisma';

describePostgres('hilo-prisma safetyNetSql: models without keys and unknown dialects', (db) => {
  const unkeyed = { models: { AuditLog: { table: 'audit_log' } } };

  it('gives PostgreSQL the missing-key function even when no model is keyed, and MariaDB/MySQL nothing', async () => {
    const statements = safetyNetSql('postgres', unkeyed, { schema: 'public' });
    expect(statements).toEqual([missingKeyFunctionSql({ schema: 'public' })]);
    expect(safetyNetSql('mysql', unkeyed)).toEqual([]);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      for (const sql of statements) await client.query(sql);
      await expect(client.query("select public.hilo_missing_key('orders')")).rejects.toThrow(
        /segment 'orders' arrived without a key/,
      );
    } finally {
      await client.end();
    }
  });

  it('refuses a dialect it has no SQL for, naming `dialect` and the values it takes', () => {
    for (const dialect of ['sqlite', 'toString', undefined, {}]) {
      expect(() => safetyNetSql(dialect as never, unkeyed)).toThrow(HiLoConfigurationError);
      expect(() => safetyNetSql(dialect as never, unkeyed)).toThrow(/`dialect`.*"postgres" or "mysql"/);
    }
  });
});
