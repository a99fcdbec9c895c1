import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryColumn } from 'typeorm';

// The same model keyed by UUIDv7s the application generates (the `uuid` package) before `save()`: the usual
// way to know a key before the insert without hi/lo. `pnpm bench` compares hilo's keys with it.

@Entity('uuid_customers')
export class UuidCustomer {
  @PrimaryColumn('uuid') id!: string;
  @Column({ type: 'varchar', length: 200 }) email!: string;
  @Column({ type: 'varchar', length: 200 }) name!: string;
}

@Entity('uuid_orders')
export class UuidOrder {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid') customerId!: string;
  @ManyToOne(() => UuidCustomer) @JoinColumn({ name: 'customerId' }) customer?: UuidCustomer;
  @OneToMany(() => UuidOrderItem, (item) => item.order, { cascade: true }) items!: UuidOrderItem[];
  @CreateDateColumn({ type: 'timestamptz' }) placedAt!: Date;
}

@Entity('uuid_order_items')
export class UuidOrderItem {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid') orderId!: string;
  @ManyToOne(() => UuidOrder, (order) => order.items, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'orderId' })
  order?: UuidOrder;
  @Column({ type: 'varchar', length: 40 }) sku!: string;
  @Column({ type: 'int' }) quantity!: number;
  @Column({ type: 'int' }) priceCents!: number;
}
