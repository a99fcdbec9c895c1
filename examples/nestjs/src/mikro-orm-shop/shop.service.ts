import { Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/postgresql';
import { MikroCustomer, MikroOrder } from './entities';
import type { PlacedOrders } from '../typeorm-shop/shop.service';

@Injectable()
export class MikroOrmShopService {
  constructor(private readonly em: EntityManager) {}

  /** Creates a customer with one order per total and flushes them in one transaction. */
  async place(name: string, totals: number[]): Promise<PlacedOrders> {
    const em = this.em.fork();
    const customer = em.create(MikroCustomer, { name });
    const orders = totals.map((total) => em.create(MikroOrder, { customer, total }));
    const keysBeforeSave = [customer, ...orders].filter((entity) => entity.id != null).length;
    await em.flush();
    return { customerId: customer.id, orderIds: orders.map((order) => order.id), keysBeforeSave };
  }

  /** A customer with its orders, or null. */
  async find(id: number): Promise<{ id: number; name: string; orders: Array<{ id: number; total: number }> } | null> {
    const customer = await this.em.fork().findOne(MikroCustomer, id, { populate: ['orders'] });
    if (!customer) return null;
    return {
      id: customer.id,
      name: customer.name,
      orders: customer.orders.getItems().map((o) => ({ id: o.id, total: o.total })),
    };
  }
}
