import type { Logger } from 'typeorm';

/** A TypeORM logger that records every SQL statement the DataSource sends. */
export class StatementLog implements Logger {
  statements: string[] = [];
  logQuery(query: string): void {
    this.statements.push(query);
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  /** Runs `work` and returns the statements it sent. */
  async capture(work: () => Promise<unknown>): Promise<string[]> {
    const start = this.statements.length;
    await work();
    return this.statements.slice(start);
  }
}

/** Statements that are neither transaction control nor schema work. */
export function dataStatements(statements: readonly string[]): string[] {
  return statements.filter(
    (s) => !/^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE SAVEPOINT)/i.test(s.trim()),
  );
}

/** The INSERT statements of `statements` by table name. */
export function insertsByTable(statements: readonly string[]): Map<string, string[]> {
  const byTable = new Map<string, string[]>();
  for (const s of statements) {
    const match = /^INSERT INTO [`"]?([\w]+)[`"]?/i.exec(s.trim());
    if (!match) continue;
    const table = match[1]!;
    byTable.set(table, [...(byTable.get(table) ?? []), s]);
  }
  return byTable;
}

/**
 * SELECTs that read a table before anything was inserted into it: the lookup `save()` makes to choose
 * between INSERT and UPDATE. (A SELECT after the INSERT re-reads database defaults on drivers without
 * RETURNING, such as SQLite.)
 */
export function selectsBeforeInsert(statements: readonly string[]): string[] {
  const inserted = new Set<string>();
  const found: string[] = [];
  for (const s of statements) {
    const insert = /^INSERT INTO [`"]?(\w+)[`"]?/i.exec(s.trim());
    if (insert) inserted.add(insert[1]!);
    const select = /^SELECT\b.*?\bFROM [`"]?(\w+)[`"]?/is.exec(s.trim());
    if (select && !inserted.has(select[1]!)) found.push(s);
  }
  return found;
}
