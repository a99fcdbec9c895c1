import { EntityManager } from 'typeorm';
import { HiLoConfigurationError } from 'hilo-core';
import { upsertKeepingKey, upsertShapeRefusal } from '../src/typeorm-internals.js';

// hilo-typeorm's upsert() shadows the manager's createQueryBuilder for the synchronous part of one call, so that the
// INSERT … ON CONFLICT TypeORM builds there never rewrites a stored hi/lo key. These tests hold the guard around that
// shadow; they run in every TypeORM project of jest.config.ts (0.3.0, 0.3.31, 1.0.0 and the workspace's).

/** What the fake query builder was asked to do. */
interface Recorded {
  overwrite?: unknown;
  conflictTarget?: unknown;
  returning?: unknown;
  executed: number;
}

/** A manager whose createQueryBuilder is inherited, as EntityManager's is, and records the INSERT built on it. */
function fakeManager(recorded: Recorded, shape: { insert?: boolean; orUpdate?: boolean } = {}): object {
  const builder = {
    insert() {
      if (shape.orUpdate === false) return {};
      const inserting = {
        into: () => inserting,
        values: () => inserting,
        orUpdate(overwrite: unknown, conflictTarget: unknown) {
          Object.assign(recorded, { overwrite, conflictTarget });
          return inserting;
        },
        returning(columns: unknown) {
          recorded.returning = columns;
          return inserting;
        },
        async execute() {
          recorded.executed++;
          return { raw: [] };
        },
      };
      return inserting;
    },
  };
  const prototype = {
    createQueryBuilder() {
      return shape.insert === false ? {} : { ...builder };
    },
  };
  return Object.create(prototype) as object;
}

type Chain = { insert(): { orUpdate(o: unknown, c: unknown): { execute(): Promise<unknown> } } };
const chainOf = (manager: object) => (manager as { createQueryBuilder(): Chain }).createQueryBuilder();

/** TypeORM's upsert() as every release of the range writes it: the query is built before the first await. */
const synchronousUpsert = (manager: object) => () =>
  chainOf(manager).insert().orUpdate(['id', 'name', 'email'], ['email']).execute();

describe("typeorm: hilo's upsert() shadow of createQueryBuilder is guarded", () => {
  it('adjusts the one INSERT TypeORM builds within the call, then leaves the manager as it was', async () => {
    const recorded: Recorded = { executed: 0 };
    const manager = fakeManager(recorded);
    await upsertKeepingKey(manager, 'id', true, synchronousUpsert(manager));
    expect(recorded).toEqual({
      overwrite: ['name', 'email'],
      conflictTarget: ['email'],
      returning: ['id'],
      executed: 1,
    });
    expect(Object.hasOwn(manager, 'createQueryBuilder')).toBe(false);
  });

  it('refuses, and builds no query, when TypeORM builds it only after an await (the shadow would be gone)', async () => {
    const recorded: Recorded = { executed: 0 };
    const manager = fakeManager(recorded);
    const late = async () => {
      await Promise.resolve();
      return chainOf(manager).insert().orUpdate(['id', 'name', 'email'], ['email']).execute();
    };
    const refusal = upsertKeepingKey(manager, 'id', false, late);
    await expect(refusal).rejects.toBeInstanceOf(HiLoConfigurationError);
    await expect(refusal).rejects.toMatchObject({
      code: 'HILO_CONFIGURATION',
      message: expect.stringMatching(
        /did not build its query within the call to upsert\(\); hilo refused the late query, so nothing was written/,
      ),
    });
    expect(recorded.executed).toBe(0);
    expect(Object.hasOwn(manager, 'createQueryBuilder')).toBe(false);
  });

  it('refuses a TypeORM whose upsert() builds its query elsewhere, saying the key may have been overwritten', async () => {
    const recorded: Recorded = { executed: 0 };
    const manager = fakeManager(recorded);
    const elsewhere = async () => ({ raw: [] });
    await expect(upsertKeepingKey(manager, 'id', false, elsewhere)).rejects.toThrow(
      /did not build its query within the call to upsert\(\); the upsert ran, and may have overwritten a stored key/,
    );
    expect(Object.hasOwn(manager, 'createQueryBuilder')).toBe(false);
  });

  it('refuses query builders without insert() or orUpdate() before any query runs', async () => {
    for (const shape of [{ insert: false }, { orUpdate: false }]) {
      const recorded: Recorded = { executed: 0 };
      const manager = fakeManager(recorded, shape);
      const upsert = async () => synchronousUpsert(manager)();
      await expect(upsertKeepingKey(manager, 'id', false, upsert)).rejects.toThrow(
        shape.insert === false ? /query builder has no insert\(\) method/ : /has no orUpdate\(\) method/,
      );
      expect(recorded.executed).toBe(0);
      expect(Object.hasOwn(manager, 'createQueryBuilder')).toBe(false);
    }
  });

  it('leaves a createQueryBuilder replaced on the manager itself alone, and refuses before calling upsert()', async () => {
    const own = () => ({});
    const manager = { createQueryBuilder: own };
    let called = false;
    const upsert = async () => {
      called = true;
    };
    await expect(upsertKeepingKey(manager, 'id', false, upsert)).rejects.toThrow(
      /replaced on the manager object itself/,
    );
    expect(called).toBe(false);
    expect(manager.createQueryBuilder).toBe(own);
    expect(upsertShapeRefusal({})).toMatch(/has no createQueryBuilder\(\) method/);
  });

  it("has createQueryBuilder on EntityManager's prototype, not on the instance, in this TypeORM", () => {
    expect(typeof (EntityManager.prototype as unknown as Record<string, unknown>).createQueryBuilder).toBe('function');
    expect(upsertShapeRefusal(Object.create(EntityManager.prototype) as object)).toBeUndefined();
  });

  it("builds TypeORM's own upsert() query within the call in this TypeORM", async () => {
    const recorded: Recorded = { executed: 0 };
    const manager = fakeManager(recorded);
    const metadata = { columns: [], mapPropertyPathsToColumns: () => [] };
    const dataSource = { getMetadata: () => metadata, driver: { supportedUpsertTypes: ['on-conflict-do-update'] } };
    // the fields TypeORM's upsert() reads of its manager: 1.x says dataSource, 0.3 connection
    Object.assign(manager, { dataSource, connection: dataSource });
    const upsert = (EntityManager.prototype as unknown as { upsert: (...args: unknown[]) => Promise<unknown> }).upsert;
    await upsertKeepingKey(manager, 'id', false, () => upsert.call(manager, 'Subscriber', { email: 'e' }, ['email']));
    expect(recorded).toMatchObject({ overwrite: [], conflictTarget: [], executed: 1 });
    expect(Object.hasOwn(manager, 'createQueryBuilder')).toBe(false);
  });
});
