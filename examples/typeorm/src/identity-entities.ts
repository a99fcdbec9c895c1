import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryGeneratedColumn } from 'typeorm';

// The same model with TypeORM's own database-generated keys, to measure the identity path side by side.
// bigint keys (bigserial), as hilo's side has and as the Drizzle and Kysely benchmarks compare with, so that
// the comparison is of how a key is made, not of its width; TypeORM hands bigint columns out as strings.

@Entity('identity_customers')
export class IdentityCustomer {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id!: string;
  @Column({ type: 'varchar', length: 200 }) email!: string;
  @Column({ type: 'varchar', length: 200 }) name!: string;
}

@Entity('identity_orders')
export class IdentityOrder {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id!: string;
  @Column({ type: 'bigint' }) customerId!: string;
  @ManyToOne(() => IdentityCustomer) @JoinColumn({ name: 'customerId' }) customer?: IdentityCustomer;
  @OneToMany(() => IdentityOrderItem, (item) => item.order, { cascade: true }) items!: IdentityOrderItem[];
  @CreateDateColumn({ type: 'timestamptz' }) placedAt!: Date;
}

@Entity('identity_order_items')
export class IdentityOrderItem {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id!: string;
  @ManyToOne(() => IdentityOrder, (order) => order.items, { onDelete: 'CASCADE' }) order?: IdentityOrder;
  @Column({ type: 'varchar', length: 40 }) sku!: string;
  @Column({ type: 'int' }) quantity!: number;
  @Column({ type: 'int' }) priceCents!: number;
}
