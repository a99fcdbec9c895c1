import mysql from 'mysql2/promise';
import { describeMysql } from '@hilo/testing';
import { writeReadmeProgram } from './readme-programs.test-support.ts';

// The same README program on MariaDB, with the one change its Install section implies (mysql2 and
// `type: 'mariadb'`): the entities must not use PostgreSQL-only column types.
describeMysql('README programs run as written on MariaDB', (db) => {
  it("hilo-typeorm's shop.ts runs on MariaDB with type: 'mariadb'", async () => {
    const program = writeReadmeProgram('packages/typeorm/README.md', ['entities.ts', 'shop.ts'], (code) =>
      code.replace("type: 'postgres'", "type: 'mariadb'"),
    );
    const printed: unknown[] = [];
    const consoleLog = console.log;
    console.log = (...args: unknown[]) => void printed.push(args.join(' '));
    process.env['DATABASE_URL'] = db.url;
    try {
      await import(program.url('shop.ts'));
      expect(printed[0]).toMatch(/^order \d+ of customer \d+, first item \d+$/);
      const connection = await mysql.createConnection(db.url);
      try {
        const [rows] = await connection.query(
          'select (select count(*) from customers) c, (select count(*) from orders) o, (select count(*) from order_items) i',
        );
        expect((rows as Record<string, unknown>[])[0]).toEqual({ c: 1, o: 1, i: 1 });
      } finally {
        await connection.end();
      }
    } finally {
      delete process.env['DATABASE_URL'];
      console.log = consoleLog;
      program.remove();
    }
  });
});

describeMysql('README programs run as written: hilo-core on MariaDB', (db) => {
  it("hilo-core's connect() + createHiLo() example reserves a block and hands out a key", async () => {
    const program = writeReadmeProgram(
      'packages/core/README.md',
      [{ name: 'sources.ts', where: (code) => code.includes('createHiLo({ client') }],
      (code) => `${code}\nexport { orderId };\n`,
    );
    process.env['DATABASE_URL'] = db.url;
    try {
      const { orderId } = (await import(program.url('sources.ts'))) as { orderId: number };
      expect(orderId).toBe(1);
    } finally {
      delete process.env['DATABASE_URL'];
      program.remove();
    }
  });
});
