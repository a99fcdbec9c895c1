import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { hiloOf } from 'hilo-typeorm';
import { TypeOrmShopModule } from '../src/typeorm-shop/shop.module';
import { Customer } from '../src/typeorm-shop/entities';
import type { PlacedOrders } from '../src/typeorm-shop/shop.service';

// Nest's e2e style (`nest new`: test/jest-e2e.json, ts-jest compiling to CommonJS): the module on the database in
// DATABASE_URL, driven over HTTP.
describe('@nestjs/typeorm with hiloDataSourceFactory()', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [TypeOrmShopModule] }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('runs on CommonJS, as Nest compiles it, with the CommonJS build of hilo-typeorm', () => {
    expect(typeof module).toBe('object');
    expect(require.resolve('hilo-typeorm')).toMatch(/[\\/]dist[\\/]cjs[\\/]index\.js$/);
  });

  it('POST /typeorm/customers: every key is known before save(), and the rows are stored under those keys', async () => {
    // the DataSource Nest injects is the one hilo was installed on
    expect(hiloOf(app.get(DataSource)).segmentOf(Customer)).toBe('customers');

    const placed = (
      await request(app.getHttpServer())
        .post('/typeorm/customers')
        .send({ name: 'Ada', totals: [10, 20, 30] })
        .expect(201)
    ).body as PlacedOrders;
    expect(placed.keysBeforeSave).toBe(4);
    expect(new Set(placed.orderIds).size).toBe(3);

    const stored = (await request(app.getHttpServer()).get(`/typeorm/customers/${placed.customerId}`).expect(200))
      .body as Customer;
    expect(Number(stored.id)).toBe(placed.customerId);
    expect(stored.orders.map((o) => Number(o.id)).sort((a, b) => a - b)).toEqual(
      [...placed.orderIds].sort((a, b) => a - b),
    );
  });
});
