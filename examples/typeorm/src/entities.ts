import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, OneToMany } from 'typeorm';
import { HiLoGeneratedColumn, hiloKeyTransformer } from 'hilo-typeorm';

@Entity('customers')
export class Customer {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 200 }) email!: string;
  @Column({ type: 'varchar', length: 200 }) name!: string;
  @OneToMany(() => Order, (order) => order.customer) orders?: Order[];
}

@Entity('orders')
export class Order {
  @HiLoGeneratedColumn() id!: number;
  // The foreign key as a plain column: orders can point at a customer by key, before either is saved.
  @Column({ type: 'bigint', transformer: hiloKeyTransformer }) customerId!: number;
  @ManyToOne(() => Customer, (customer) => customer.orders) @JoinColumn({ name: 'customerId' }) customer?: Customer;
  @OneToMany(() => OrderItem, (item) => item.order, { cascade: true }) items!: OrderItem[];
  @CreateDateColumn({ type: 'timestamptz' }) placedAt!: Date;
}

@Entity('order_items')
export class OrderItem {
  @HiLoGeneratedColumn({ segment: 'order_items', blockSize: 500 }) id!: number;
  @Column({ type: 'bigint', transformer: hiloKeyTransformer }) orderId!: number;
  @ManyToOne(() => Order, (order) => order.items, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'orderId' })
  order?: Order;
  @Column({ type: 'varchar', length: 40 }) sku!: string;
  @Column({ type: 'int' }) quantity!: number;
  @Column({ type: 'int' }) priceCents!: number;
}
