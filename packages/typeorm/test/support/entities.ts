import 'reflect-metadata';
import {
  Column,
  Entity,
  JoinColumn,
  JoinTable,
  ManyToMany,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { HiLoGeneratedColumn, hiloKeyTransformer } from 'hilo-typeorm';

// Entities for the adapter suite: a graph with many-to-one, one-to-many and many-to-many relations, once with
// hi/lo keys and once with TypeORM's identity keys, to compare the statements each needs.

@Entity('customers')
export class Customer {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 100 }) name!: string;
  @OneToMany(() => Order, (order) => order.customer) orders?: Order[];
}

@Entity('tags')
export class Tag {
  @HiLoGeneratedColumn({ keyType: 'bigint' }) id!: bigint;
  @Column({ type: 'varchar', length: 50 }) label!: string;
}

@Entity('orders')
export class Order {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'bigint', transformer: hiloKeyTransformer }) customerId!: number;
  @ManyToOne(() => Customer, (customer) => customer.orders, { cascade: ['insert'] })
  @JoinColumn({ name: 'customerId' })
  customer!: Customer;
  @OneToMany(() => OrderItem, (item) => item.order, { cascade: true }) items!: OrderItem[];
  @ManyToMany(() => Tag, { cascade: ['insert'] }) @JoinTable({ name: 'order_tags' }) tags!: Tag[];
  @Column({ type: 'int', default: 0 }) total!: number;
}

@Entity('order_items')
export class OrderItem {
  @HiLoGeneratedColumn({ segment: 'items', blockSize: 50 }) id!: number;
  @ManyToOne(() => Order, (order) => order.items, { onDelete: 'CASCADE' }) order!: Order;
  @Column({ type: 'varchar', length: 20 }) sku!: string;
  @Column({ type: 'int' }) quantity!: number;
}

@Entity('id_customers')
export class IdCustomer {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 100 }) name!: string;
}

@Entity('id_tags')
export class IdTag {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 50 }) label!: string;
}

@Entity('id_orders')
export class IdOrder {
  @PrimaryGeneratedColumn() id!: number;
  @ManyToOne(() => IdCustomer, { cascade: ['insert'] }) customer!: IdCustomer;
  @OneToMany(() => IdOrderItem, (item) => item.order, { cascade: true }) items!: IdOrderItem[];
  @ManyToMany(() => IdTag, { cascade: ['insert'] }) @JoinTable({ name: 'id_order_tags' }) tags!: IdTag[];
  @Column({ type: 'int', default: 0 }) total!: number;
}

@Entity('id_order_items')
export class IdOrderItem {
  @PrimaryGeneratedColumn() id!: number;
  @ManyToOne(() => IdOrder, (order) => order.items, { onDelete: 'CASCADE' }) order!: IdOrder;
  @Column({ type: 'varchar', length: 20 }) sku!: string;
  @Column({ type: 'int' }) quantity!: number;
}

export const entities = [Customer, Tag, Order, OrderItem, IdCustomer, IdTag, IdOrder, IdOrderItem];

/** A hi/lo key in a 32-bit column (on SQLite `integer primary key`: the rowid), kept out of `entities`. */
@Entity('int_notes')
export class IntNote {
  @HiLoGeneratedColumn({ type: 'integer' }) id!: number;
  @Column({ type: 'varchar', length: 50 }) text!: string;
}
