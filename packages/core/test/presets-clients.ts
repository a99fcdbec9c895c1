/**
 * Simulated clients of the systems the interop presets share keys with. Each one issues the statements the
 * other system's source issues, in the same order, with the same transaction boundaries, on connections of
 * its own, and computes keys with that system's formula. The comment on each names the source file and
 * class it follows (read at: hibernate/hibernate-orm fad1729d, nhibernate/nhibernate-core 741880f2,
 * dotnet/efcore ecd0ba4c, npgsql/efcore.pg c715cff1, JasperFx/marten c921fa5d, JasperFx/weasel efb8a60e).
 */
import mysql from 'mysql2/promise';
import pg from 'pg';

export type Kind = 'postgres' | 'mysql';

/** One database connection of the other system: JDBC / ADO.NET style `?` placeholders in both dialects. */
export interface Connection {
  readonly kind: Kind;
  /** Runs one statement; `rows` for a query, `count` = rows returned or rows changed. */
  query(sql: string, params?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[]; count: number }>;
  end(): Promise<void>;
}

/** Opens a connection of the simulated system (its own, never hilo's pool). */
export async function openConnection(kind: Kind, url: string): Promise<Connection> {
  if (kind === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      kind,
      async query(sql, params = []) {
        // PgJDBC and Npgsql send `?` / named parameters as $n: the same rewrite
        let n = 0;
        const result = await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params as unknown[],
        );
        return { rows: result.rows as Record<string, unknown>[], count: result.rowCount ?? 0 };
      },
      end: () => client.end(),
    };
  }
  const connection = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
  return {
    kind,
    async query(sql, params = []) {
      const [result] = await connection.query(sql, params as unknown[]);
      if (Array.isArray(result)) return { rows: result as Record<string, unknown>[], count: result.length };
      return { rows: [], count: (result as mysql.ResultSetHeader).affectedRows };
    },
    end: () => connection.end(),
  };
}

/** The first column of the first row as a bigint (JDBC `getLong(1)`, ADO.NET `ExecuteScalar`), or undefined. */
function scalar(rows: Record<string, unknown>[]): bigint | undefined {
  const row = rows[0];
  if (row === undefined) return undefined;
  const value = Object.values(row)[0];
  if (value === null || value === undefined) throw new Error('simulated client: null value read');
  return BigInt(value as string | number | bigint);
}

/** A node of the other system handing out its next key. */
export type OtherNode = () => Promise<bigint>;

// ---------------------------------------------------------------------------------------------------------
// Hibernate ORM (org.hibernate.id.enhanced)

/** `AccessCallback.getNextValue()` of one Hibernate node. */
export type HibernateFetch = () => Promise<bigint>;

/**
 * `SequenceStructure`'s callback: the dialect's next-value select, run on the session's connection (no
 * transaction of its own). SQL from `PostgreSQLSequenceSupport` (`select nextval('<name>')`) and
 * `MariaDBSequenceSupport` → `ANSISequenceSupport` (`select next value for <name>`).
 */
export function hibernateSequenceFetch(connection: Connection, sequence: string): HibernateFetch {
  const sql = connection.kind === 'postgres' ? `select nextval('${sequence}')` : `select next value for ${sequence}`;
  return async () => scalar((await connection.query(sql)).rows)!;
}

export interface HibernateTableSettings {
  readonly table?: string;
  readonly segmentValue: string;
  readonly incrementSize: bigint;
  /** `initial_value` parameter (JPA `@TableGenerator.initialValue` + 1). */
  readonly initialValue: bigint;
  /** `hibernate.id.generator.stored_last_used`, default true since 5.3. */
  readonly storeLastUsed: boolean;
  /** `Optimizer.applyIncrementSizeToSourceValues()`: true for pooled / pooled-lo, false for hilo / legacy-hilo. */
  readonly applyIncrementSize: boolean;
}

/**
 * `TableGenerator.nextValue` as run by `JdbcIsolationDelegate.delegateWork(work, transacted = true)`: its own
 * connection with autocommit off (a transaction at the driver's default isolation), then in a loop
 * `select next_val from <table> where sequence_name=? <lock>` (`SimpleSelect` + PESSIMISTIC_WRITE →
 * `ForUpdateFragment`: `PostgreSQLDialect.getForUpdateString()` is " for no key update" since 7.0 (HHH-19330),
 * " for update" before; MariaDB " for update"), an insert of the initialization value when the row is missing, and
 * `update <table> set next_val=?  where next_val=? and sequence_name=?` until it changes a row; commit.
 * Returns the stored value + 1 when `stored_last_used`, else the stored value.
 */
export function hibernateTableFetch(connection: Connection, settings: HibernateTableSettings): HibernateFetch {
  const table = settings.table ?? 'hibernate_sequences';
  const lock = connection.kind === 'postgres' ? ' for no key update' : ' for update';
  return async () => {
    await connection.query('begin');
    try {
      let value: bigint;
      let rows: number;
      do {
        const found = scalar(
          (
            await connection.query(`select next_val from ${table} where sequence_name=?${lock}`, [
              settings.segmentValue,
            ])
          ).rows,
        );
        if (found === undefined) {
          value = settings.storeLastUsed ? settings.initialValue - 1n : settings.initialValue;
          await connection.query(`insert into ${table} (sequence_name, next_val)  values (?,?)`, [
            settings.segmentValue,
            String(value),
          ]);
        } else value = found;
        const updateValue = settings.applyIncrementSize ? value + settings.incrementSize : value + 1n;
        rows = (
          await connection.query(`update ${table} set next_val=?  where next_val=? and sequence_name=?`, [
            String(updateValue),
            String(value),
            settings.segmentValue,
          ])
        ).count;
      } while (rows === 0);
      await connection.query('commit');
      return settings.storeLastUsed ? value + 1n : value;
    } catch (error) {
      await connection.query('rollback');
      throw error;
    }
  };
}

/**
 * `PooledOptimizer.generate` (Hibernate ≥ 5.6.8 / 6.0, HHH-15118): the first value read is a block of its
 * own when it equals the injected initial value (or, with none, is below increment_size); afterwards each
 * value `v` is the block `v − n + 1 … v`.
 */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- -1n names Hibernate's "no initial value"
export function pooledOptimizer(fetch: HibernateFetch, incrementSize: bigint, initialValue: bigint | -1n): OtherNode {
  let hiValue: bigint | undefined;
  let value = 0n;
  return async () => {
    if (hiValue === undefined) {
      hiValue = await fetch();
      value =
        (initialValue === -1n && hiValue < incrementSize) || hiValue === initialValue
          ? hiValue
          : hiValue - incrementSize + 1n;
    } else if (value > hiValue) {
      hiValue = await fetch();
      value = hiValue - incrementSize + 1n;
    }
    return value++;
  };
}

/** `PooledLoOptimizer.generate`: value `v` is the block `v … v + n − 1`, values below 1 skipped. */
export function pooledLoOptimizer(fetch: HibernateFetch, incrementSize: bigint): OtherNode {
  let lastSourceValue: bigint | undefined;
  let value = 0n;
  let upperLimit = 0n;
  return async () => {
    if (lastSourceValue === undefined || value >= upperLimit) {
      lastSourceValue = await fetch();
      upperLimit = lastSourceValue + incrementSize;
      value = lastSourceValue;
      while (value < 1n) value++;
    }
    return value++;
  };
}

/** `HiLoOptimizer.generate`: value `v` (the first one read again while below 1) is the block `(v − 1)·n + 1 … v·n`. */
export function hiloOptimizer(fetch: HibernateFetch, incrementSize: bigint): OtherNode {
  let lastSourceValue: bigint | undefined;
  let upperLimit = 0n;
  let value = 0n;
  return async () => {
    if (lastSourceValue === undefined) {
      lastSourceValue = await fetch();
      while (lastSourceValue < 1n) lastSourceValue = await fetch();
      upperLimit = lastSourceValue * incrementSize + 1n;
      value = upperLimit - incrementSize;
    } else if (value >= upperLimit) {
      lastSourceValue = await fetch();
      upperLimit = lastSourceValue * incrementSize + 1n;
      value = upperLimit - incrementSize;
    }
    return value++;
  };
}

/** `LegacyHiLoAlgorithmOptimizer.generate`: maxLo = increment_size, keys `v·(maxLo + 1) + lo`, lo from 1 when v = 0. */
export function legacyHiLoOptimizer(fetch: HibernateFetch, incrementSize: bigint): OtherNode {
  const maxLo = incrementSize;
  let lo = maxLo + 1n;
  let hi = 0n;
  return async () => {
    if (lo > maxLo) {
      const lastSourceValue = await fetch();
      lo = lastSourceValue === 0n ? 1n : 0n;
      hi = lastSourceValue * (maxLo + 1n);
    }
    return hi + lo++;
  };
}

// ---------------------------------------------------------------------------------------------------------
// NHibernate (src/NHibernate/Id)

export interface NHibernateSettings {
  readonly maxLo: bigint;
  readonly table?: string;
  readonly column?: string;
  /** The raw `where` parameter, e.g. `entity = 'orders'`. */
  readonly where?: string;
}

/**
 * `TableHiLoGenerator.Generate` over `TableGenerator.DoWorkInCurrentTransaction`, run by
 * `TransactionHelper.DoWorkInNewTransaction` → `AdoNetTransactionFactory.ExecuteWorkInIsolation`: a new
 * connection and `BeginTransaction()` (default isolation), then in a loop
 * `select next_hi from <table>[ where W] for update` and `update <table> set next_hi = ? where next_hi = ?[ and W]`
 * (read + 1, read) until a row changes; commit. Keys `hi·(max_lo + 1) + lo`, lo from 1 when hi = 0; with
 * `max_lo < 1` each value is a key (0 skipped).
 */
export function nhibernateNode(connection: Connection, settings: NHibernateSettings): OtherNode {
  const table = settings.table ?? 'hibernate_unique_key';
  const column = settings.column ?? 'next_hi';
  const where = settings.where;
  const select = `select ${column} from ${table}${where ? ` where ${where}` : ''} for update`;
  const update = `update ${table} set ${column} = ? where ${column} = ?${where ? ` and ${where}` : ''}`;
  async function nextHi(): Promise<bigint> {
    await connection.query('begin');
    try {
      let result: bigint;
      let rows: number;
      do {
        const read = scalar((await connection.query(select)).rows);
        if (read === undefined) throw new Error(`could not read a hi value - you need to populate the table: ${table}`);
        result = read;
        rows = (await connection.query(update, [String(result + 1n), String(result)])).count;
      } while (rows === 0);
      await connection.query('commit');
      return result;
    } catch (error) {
      await connection.query('rollback');
      throw error;
    }
  }
  const maxLo = settings.maxLo;
  let lo = maxLo + 1n;
  let hi = 0n;
  return async () => {
    if (maxLo < 1n) {
      let value = await nextHi();
      if (value === 0n) value = await nextHi();
      return value;
    }
    if (lo > maxLo) {
      const hival = await nextHi();
      lo = hival === 0n ? 1n : 0n;
      hi = hival * (maxLo + 1n);
    }
    return hi + lo++;
  };
}

// ---------------------------------------------------------------------------------------------------------
// EF Core (dotnet/efcore + npgsql/efcore.pg)

/**
 * `HiLoValueGeneratorState.Next` (src/EFCore/ValueGeneration/HiLoValueGeneratorState.cs) with
 * `NpgsqlSequenceHiLoValueGenerator.GetNewLowValue`: on the context's connection, no transaction of its
 * own, `SELECT nextval('"<sequence>"')` (`UpdateSqlGenerator.AppendNextSequenceValueOperation` +
 * `NpgsqlUpdateSqlGenerator.AppendObtainNextSequenceValueOperation`); the block is `[v, v + IncrementBy)`.
 */
export function efCoreNode(connection: Connection, sequence: string, blockSize: bigint): OtherNode {
  let low = -1n;
  let high = 0n;
  return async () => {
    low += 1n;
    if (low >= high) {
      const value = scalar((await connection.query(`SELECT nextval('"${sequence}"')`)).rows)!;
      low = value;
      high = value + blockSize;
    }
    return low;
  };
}

// ---------------------------------------------------------------------------------------------------------
// Marten (JasperFx/marten + JasperFx/weasel)

/**
 * Marten's schema for hi/lo, as `SequenceFactory.Objects` declares it: table `mt_hilo(entity_name varchar
 * primary key, hi_value bigint default 0)` and the function of src/Marten/Schema/SQL/mt_get_next_hi.sql
 * (read hi_value; insert 0 and return 0 when missing; else update to +1 where it is unchanged and return
 * it, or -1 when the update found no row), written here from that description.
 */
export const MARTEN_SCHEMA = `
create table mt_hilo (entity_name varchar not null primary key, hi_value bigint default 0);
create function mt_get_next_hi(entity varchar) returns bigint language plpgsql as $$
declare
  seen bigint;
  taken bigint;
begin
  select hi_value into seen from mt_hilo where entity_name = entity;
  if seen is null then
    insert into mt_hilo (entity_name, hi_value) values (entity, 0);
    taken := 0;
  else
    taken := seen + 1;
    update mt_hilo set hi_value = taken where entity_name = entity and hi_value = seen;
    if not found then
      taken := -1;
    end if;
  end if;
  return taken;
end
$$;`;

/**
 * `HiloSequenceBase` (weasel src/Weasel.Core/Sequences/HiloSequenceBase.cs: CurrentHi −1, CurrentLo 1,
 * key `CurrentHi·MaxLo + CurrentLo`, advance when CurrentHi < 0 or CurrentLo > MaxLo) with Marten's
 * `HiloSequence.AdvanceToNextHi` (src/Marten/Schema/Identity/Sequences/HiLoSequence.cs): a new connection
 * per advance, autocommit, `SELECT * FROM public.mt_get_next_hi(@entity)` (weasel `CallFunction`) up to
 * `MaxAdvanceToNextHiAttempts` (30) times until it returns ≥ 0.
 */
export function martenNode(open: () => Promise<Connection>, entity: string, maxLo: bigint, attempts = 30): OtherNode {
  let currentHi = -1n;
  let currentLo = 1n;
  return async () => {
    if (currentHi < 0n || currentLo > maxLo) {
      const connection = await open();
      try {
        for (let attempt = 0; attempt < attempts; attempt++) {
          currentHi = scalar((await connection.query('SELECT * FROM public.mt_get_next_hi(?)', [entity])).rows)!;
          if (currentHi >= 0n) {
            currentLo = 1n;
            break;
          }
        }
      } finally {
        await connection.end();
      }
      if (currentHi < 0n) throw new Error('HiloSequenceAdvanceToNextHiAttemptsExceededException');
    }
    const key = currentHi * maxLo + currentLo;
    currentLo++;
    return key;
  };
}
