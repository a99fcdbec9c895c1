import pg from 'pg';
import { describePostgres } from '@hilo/testing';
import { writeReadmeProgram } from './readme-programs.test-support.ts';

// The README programs run as written (type-checking alone would not catch a wrong SQL type or a missing
// await): hilo-typeorm's entities.ts + shop.ts and hilo-mikro-orm's entities.ts + main.ts against fresh PostgreSQL databases.
describePostgres('README programs run as written on PostgreSQL', (db) => {
  it("hilo-typeorm's shop.ts saves a customer, an order and its item with keys known before saving", async () => {
    const program = writeReadmeProgram('packages/typeorm/README.md', ['entities.ts', 'shop.ts']);
    const printed: unknown[] = [];
    const consoleLog = console.log;
    console.log = (...args: unknown[]) => void printed.push(args.join(' '));
    process.env['DATABASE_URL'] = db.url;
    try {
      await import(program.url('shop.ts'));
      expect(printed[0]).toMatch(/^order \d+ of customer \d+, first item \d+$/);
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const counts = await client.query(
          'select (select count(*) from customers)::int c, (select count(*) from orders)::int o, (select count(*) from order_items)::int i',
        );
        // the rolled-back order is not there
        expect(counts.rows[0]).toEqual({ c: 1, o: 1, i: 1 });
      } finally {
        await client.end();
      }
    } finally {
      delete process.env['DATABASE_URL'];
      console.log = consoleLog;
      program.remove();
    }
  });
});

// its own database: the TypeORM program above already made order_items_hilo_seq with another block size
describePostgres('README programs run as written on PostgreSQL: MikroORM', (db) => {
  it("hilo-mikro-orm's entities.ts + main.ts run and know every key before the flush", async () => {
    const program = writeReadmeProgram('packages/mikro-orm/README.md', ['entities.ts', 'main.ts']);
    try {
      const { run } = (await import(program.url('main.ts'))) as {
        run(url: string, log: (...args: unknown[]) => void): Promise<{ keysBeforeFlush: number; statements: number }>;
      };
      const result = await run(db.url, () => undefined);
      expect(result.keysBeforeFlush).toBe(4 + 180); // as examples/mikro-orm: the first order, then the batch
    } finally {
      program.remove();
    }
  });
});

describePostgres('README programs run as written: hilo-core on PostgreSQL', (db) => {
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
