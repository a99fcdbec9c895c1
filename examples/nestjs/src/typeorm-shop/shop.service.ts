import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { Customer, Order } from './entities';

/** What placing orders returns: the keys, all known before anything was saved. */
export interface PlacedOrders {
  customerId: number;
  orderIds: number[];
  keysBeforeSave: number;
}

@Injectable()
export class TypeOrmShopService {
  constructor(
    @InjectRepository(Customer) private readonly customers: Repository<Customer>,
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    private readonly dataSource: DataSource,
  ) {}

  /** Creates a customer with one order per total and saves them in one transaction. */
  async place(name: string, totals: number[]): Promise<PlacedOrders> {
    const customer = this.customers.create({ name });
    // The customer's key is known at create(), so the orders can reference it right away.
    const orders = totals.map((total) => this.orders.create({ customerId: customer.id, total }));
    const keysBeforeSave = [customer, ...orders].filter((entity) => entity.id != null).length;
    await this.dataSource.transaction(async (em) => {
      await em.save(customer);
      await em.save(orders);
    });
    return { customerId: customer.id, orderIds: orders.map((order) => order.id), keysBeforeSave };
  }

  /** A customer with its orders, or null. */
  find(id: number): Promise<Customer | null> {
    return this.customers.findOne({ where: { id }, relations: { orders: true } });
  }
}
