import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { MikroOrmShopModule } from '../src/mikro-orm-shop/shop.module';
import type { PlacedOrders } from '../src/typeorm-shop/shop.service';

// MikroORM 7 is ESM-only: Jest's CommonJS runtime loads it (through require(esm)) only when Node runs Jest with
// --experimental-vm-modules, on Node 24.9 or later with Jest 30.4 or later; the test:e2e script does. Without the
// flag this file fails with "Must use import to load ES Module" (scripts/test/nest-app.postgres.test.ts checks both).
describe('@mikro-orm/nestjs with the HiLo extension', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [MikroOrmShopModule] }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('runs on CommonJS, as Nest compiles it, with the CommonJS build of hilo-mikro-orm', () => {
    expect(typeof module).toBe('object');
    expect(require.resolve('hilo-mikro-orm')).toMatch(/[\\/]dist[\\/]cjs[\\/]index\.js$/);
  });

  it('POST /mikro-orm/customers: every key is known at em.create(), before flush, and the rows are stored under them', async () => {
    const placed = (
      await request(app.getHttpServer())
        .post('/mikro-orm/customers')
        .send({ name: 'Grace', totals: [5, 7] })
        .expect(201)
    ).body as PlacedOrders;
    expect(placed.keysBeforeSave).toBe(3);

    const stored = (await request(app.getHttpServer()).get(`/mikro-orm/customers/${placed.customerId}`).expect(200))
      .body as { id: number; orders: Array<{ id: number }> };
    expect(Number(stored.id)).toBe(placed.customerId);
    expect(stored.orders.map((o) => Number(o.id)).sort((a, b) => a - b)).toEqual(
      [...placed.orderIds].sort((a, b) => a - b),
    );
  });
});
