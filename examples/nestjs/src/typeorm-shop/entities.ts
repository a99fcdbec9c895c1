import { Column, Entity, ManyToOne, OneToMany } from 'typeorm';
import { HiLoGeneratedColumn } from 'hilo-typeorm';

@Entity({ name: 'customers' })
export class Customer {
  // hilo gives the key at create(), before save()
  @HiLoGeneratedColumn()
  id: number;

  @Column()
  name: string;

  @OneToMany(() => Order, (order) => order.customer, { cascade: true })
  orders: Order[];
}

@Entity({ name: 'orders' })
export class Order {
  @HiLoGeneratedColumn()
  id: number;

  @Column()
  customerId: number;

  @ManyToOne(() => Customer, (customer) => customer.orders)
  customer: Customer;

  @Column('int')
  total: number;
}
