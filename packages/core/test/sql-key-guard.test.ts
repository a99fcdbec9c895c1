import { HiLoConfigurationError, keyGuardSql } from 'hilo-core';

describe('keyGuardSql', () => {
  it('should write the function once per schema and one default per column on PostgreSQL', () => {
    const statements = keyGuardSql('postgres', [
      { segment: 'orders', table: 'orders' },
      { segment: "it's", table: 'items', column: 'item_id' },
      { segment: 'orders', table: 'orders', schema: 'shop' },
    ]);
    expect(statements).toHaveLength(5);
    expect(statements[0]).toMatch(/^create or replace function "hilo_missing_key"\(segment text\)/);
    expect(statements[1]).toMatch(/^create or replace function "shop"\."hilo_missing_key"/);
    expect(statements.slice(2)).toEqual([
      `alter table "orders" alter column "id" set default "hilo_missing_key"('orders')`,
      `alter table "items" alter column "item_id" set default "hilo_missing_key"('it''s')`,
      `alter table "shop"."orders" alter column "id" set default "shop"."hilo_missing_key"('orders')`,
    ]);
  });

  it('should write a drop and a create of a trigger per table on MariaDB/MySQL', () => {
    const [drop, create] = keyGuardSql('mysql', [{ segment: 'orders', table: 'orders', schema: 'shop' }]);
    expect(drop).toBe('drop trigger if exists `shop`.`orders_hilo_key`');
    expect(create).toMatch(/^create trigger `shop`\.`orders_hilo_key` before insert on `shop`\.`orders` for each row/);
    expect(create).toMatch(/NEW\.`id` is null or NEW\.`id` = 0/);
  });

  it("should fit MariaDB/MySQL's message in 128 characters, naming the caller's install line when given", () => {
    const message = (sql: string) => /message_text = '((?:[^']|'')*)'/.exec(sql)![1]!.replaceAll("''", "'");
    const [, generic] = keyGuardSql('mysql', [{ segment: 'orders', table: 'orders' }]);
    expect(message(generic!)).toBe(
      "hilo: a row of segment 'orders' arrived without a key: install hilo on the client that inserts it",
    );
    const long = 's'.repeat(60);
    const [, named] = keyGuardSql('mysql', [
      { segment: long, table: 'orders', installLine: 'prisma.$extends(hilo(...))' },
    ]);
    expect(message(named!)).toMatch(
      /^hilo: a row of segment 's+' arrived without a key: use prisma\.\$extends\(hilo\(\.\.\.\)\)$/,
    );
    expect(message(named!)).toHaveLength(128);
    for (const bad of ['', 'x'.repeat(61), 'a\\b', 'line\nbreak'])
      expect(() => keyGuardSql('mysql', [{ segment: 'orders', table: 'orders', installLine: bad }])).toThrow(
        /installLine/,
      );
  });

  it('should write a drop and a create of a trigger per table on SQLite, refusing a schema', () => {
    const [drop, create] = keyGuardSql('sqlite', [{ segment: "it's", table: 'orders' }]);
    expect(drop).toBe('drop trigger if exists "orders_hilo_key"');
    expect(create).toMatch(
      new RegExp(
        `^create trigger "orders_hilo_key" before insert on "orders" when new\\."id" is null or new\\."id" ` +
          `= -1 begin select raise\\(abort, 'hilo: a row of segment ''it''s'' arrived without a key, so hilo is ` +
          `not installed on the client that inserted it\\..*hilo\\.key\\(''it''s''\\).*'\\); end$`,
      ),
    );
    expect(() => keyGuardSql('sqlite', [{ segment: 'orders', table: 'orders', schema: 'main' }])).toThrow(/schema/);
  });

  it("should name the caller's install line alone in SQLite's message when given (the adapters' default guard)", () => {
    const [, create] = keyGuardSql('sqlite', [
      { segment: 'orders', table: 'orders', installLine: 'new Kysely({ dialect, plugins: [hilo.plugin] })' },
    ]);
    expect(create).toContain(
      "raise(abort, 'hilo: a row of segment ''orders'' arrived without a key, so hilo is not installed on the " +
        'client that inserted it. Install it with new Kysely({ dialect, plugins: [hilo.plugin] }), or assign the ' +
        "key from hilo (generator.next(''orders'')) before the INSERT.')",
    );
    expect(create).not.toContain('withHiLo');
  });

  it('should refuse names that are not plain identifiers, and unknown databases, before writing SQL', () => {
    expect(() => keyGuardSql('postgres', [{ segment: 'orders', table: 'orders"; drop table x; --' }])).toThrow(
      /Expected table name to match/,
    );
    expect(() => keyGuardSql('mysql', [{ segment: 'orders', table: 'orders', column: 'a b' }])).toThrow(
      /Expected column name/,
    );
    expect(() => keyGuardSql('postgres', [{ segment: '', table: 'orders' }])).toThrow(/segment/);
    expect(() => keyGuardSql('oracle' as 'postgres', [])).toThrow(HiLoConfigurationError);
  });
});
