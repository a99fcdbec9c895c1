import 'reflect-metadata';
import { Column, DataSource, Entity, Generated, PrimaryColumn } from 'typeorm';
import { describePostgres } from '@hilo/testing';
import { HiLoConfigurationError, memorySource } from 'hilo-core';
import { HiLoGeneratedColumn, installHiLo, withHiLo } from 'hilo-typeorm';
import { Tag } from './support/entities.js';

@Entity('composite_keys')
class CompositeKey {
  @HiLoGeneratedColumn() id!: number;
  @PrimaryColumn({ type: 'int' }) version!: number;
}

@Entity('doubly_generated')
class DoublyGenerated {
  @HiLoGeneratedColumn() @Generated('increment') id!: number;
  @Column({ type: 'int' }) n!: number;
}

@Entity('split_a')
class SplitA {
  @HiLoGeneratedColumn({ segment: 'shared', blockSize: 10 }) id!: number;
}

@Entity('split_b')
class SplitB {
  @HiLoGeneratedColumn({ segment: 'shared', blockSize: 20 }) id!: number;
}

@Entity('tuned')
class Tuned {
  @HiLoGeneratedColumn() id!: number;
}

describePostgres('typeorm: per-segment generator options', (db) => {
  it('takes `segments` and `maxKey` as the other adapters do; a blockSize declared on the column wins', async () => {
    const dataSource = new DataSource({ type: 'postgres', url: db.url, entities: [Tuned, SplitA], synchronize: true });
    await dataSource.initialize();
    try {
      const hilo = await installHiLo(dataSource, {
        source: () => memorySource(),
        adaptive: false,
        segments: { tuned: { blockSize: 7, maxKey: 70 }, shared: { blockSize: 3 } },
      });
      const stats = hilo.generator.stats();
      expect(stats.tuned?.blockSize).toBe(7);
      expect(stats.shared?.blockSize).toBe(10); // @HiLoGeneratedColumn({ blockSize: 10 })
      // the warm-up reserved keys 1–7: a tenth of the 70 this segment is told its column holds
      expect(stats.tuned?.keyspaceUsed).toBeCloseTo(0.1);
      expect(await hilo.next(Tuned)).toBe(1);
    } finally {
      await dataSource.destroy();
    }
  });
});

describePostgres('typeorm: bad configurations fail at initialization with a clear error', (db) => {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own `entities` option is typed Function[]
  async function initialized(entities: Function[]): Promise<DataSource> {
    const dataSource = new DataSource({ type: 'postgres', url: db.url, entities });
    await dataSource.initialize();
    return dataSource;
  }

  it.each([
    [
      'a composite primary key',
      CompositeKey,
      /CompositeKey\.id must be the entity's only primary column, but CompositeKey has id, version/,
    ],
    [
      'a key the database also generates',
      DoublyGenerated,
      /DoublyGenerated\.id is both @HiLoGeneratedColumn\(\) and database-generated/,
    ],
  ])('refuses %s', async (_name, entity, message) => {
    const dataSource = await initialized([entity]);
    try {
      const attempt = installHiLo(dataSource, { source: () => memorySource() });
      await expect(attempt).rejects.toThrow(HiLoConfigurationError);
      await expect(installHiLo(dataSource, { source: () => memorySource() })).rejects.toThrow(message);
    } finally {
      await dataSource.destroy();
    }
  });

  it('refuses two block sizes for one segment', async () => {
    const dataSource = await initialized([SplitA, SplitB]);
    try {
      await expect(installHiLo(dataSource, { source: () => memorySource() })).rejects.toThrow(
        /Segment "shared" gets blockSize 10 from SplitA\.id and 20 from SplitB\.id/,
      );
    } finally {
      await dataSource.destroy();
    }
  });

  it('refuses to install on a DataSource that is not initialized, or twice', async () => {
    const dataSource = new DataSource({ type: 'postgres', url: db.url, entities: [Tag] });
    await expect(installHiLo(dataSource)).rejects.toThrow(
      /needs an initialized DataSource; call it after `await dataSource.initialize\(\)`/,
    );
    await dataSource.initialize();
    try {
      await installHiLo(dataSource, { source: () => memorySource() });
      await expect(installHiLo(dataSource, { source: () => memorySource() })).rejects.toThrow(/already installed/);
    } finally {
      await dataSource.destroy();
    }
  });

  it('fails initialize() and closes the connection when the hi source cannot prepare a segment', async () => {
    const dataSource = withHiLo(new DataSource({ type: 'postgres', url: db.url, entities: [Tag] }), {
      source: () => ({
        description: 'a source whose database refuses',
        async reserve() {
          throw new HiLoConfigurationError('permission denied for sequence tags_hilo_seq');
        },
      }),
      retries: 0,
    });
    await expect(dataSource.initialize()).rejects.toThrow(/permission denied/);
    expect(dataSource.isInitialized).toBe(false);
  });
});
