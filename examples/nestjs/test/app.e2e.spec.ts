import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { hiloOf } from 'hilo-typeorm';
import { AppModule } from '../src/app.module';
import { Customer } from '../src/typeorm-shop/entities';
import type { PlacedOrders } from '../src/typeorm-shop/shop.service';

// Nest's e2e style: the whole AppModule on the database in DATABASE_URL, driven over HTTP.
describe('NestJS shop with hi/lo keys', () => {
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('runs on CommonJS, as Nest compiles it, with the CommonJS builds of hilo', () => {
    expect(typeof require).toBe('function');
    expect(typeof module).toBe('object');
    expect(require.resolve('hilo-typeorm')).toMatch(/[\\/]dist[\\/]cjs[\\/]index\.js$/);
    expect(require.resolve('hilo-mikro-orm')).toMatch(/[\\/]dist[\\/]cjs[\\/]index\.js$/);
  });

  it('@nestjs/typeorm: the injected DataSource has hilo, and every key is known before save()', async () => {
    const dataSource = app.get(DataSource);
    expect(hiloOf(dataSource).segmentOf(Customer)).toBe('customers');

    const placed = (
      await request(app.getHttpServer())
        .post('/typeorm/customers')
        .send({ name: 'Ada', totals: [10, 20, 30] })
        .expect(201)
    ).body as PlacedOrders;
    expect(placed.keysBeforeSave).toBe(4);
    // each table has its own segment (sequence), so only keys of one table are distinct from each other
    expect(new Set(placed.orderIds).size).toBe(3);

    const stored = (await request(app.getHttpServer()).get(`/typeorm/customers/${placed.customerId}`).expect(200))
      .body as Customer;
    expect(stored.orders.map((o) => o.id).sort((a, b) => a - b)).toEqual([...placed.orderIds].sort((a, b) => a - b));
  });

  it('@mikro-orm/nestjs: the hilo extension keys entities at em.create(), before flush', async () => {
    const placed = (
      await request(app.getHttpServer())
        .post('/mikro-orm/customers')
        .send({ name: 'Grace', totals: [5, 7] })
        .expect(201)
    ).body as PlacedOrders;
    expect(placed.keysBeforeSave).toBe(3);

    const stored = (await request(app.getHttpServer()).get(`/mikro-orm/customers/${placed.customerId}`).expect(200))
      .body as {
      orders: Array<{ id: number }>;
    };
    expect(stored.orders.map((o) => o.id).sort((a, b) => a - b)).toEqual([...placed.orderIds].sort((a, b) => a - b));
  });
});
