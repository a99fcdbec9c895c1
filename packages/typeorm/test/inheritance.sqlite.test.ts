import 'reflect-metadata';
import { ChildEntity, Column, DataSource, Entity, ManyToOne, OneToMany, TableInheritance } from 'typeorm';
import { HiLoGeneratedColumn, hiloOf, withHiLo } from 'hilo-typeorm';
import { describeSqlite } from './support/sqlite.js';

// Single-table inheritance: the key column is declared once on the parent, and every child shares its table,
// so parent and children draw from one segment. Runs on every TypeORM project (0.3.0 has no
// findInheritanceMetadata(), 0.3.16 and later build the child from the discriminator in create()).

// declared first: Payment's decorator metadata names the Invoice class
@Entity('invoices')
class Invoice {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'varchar', length: 20 }) number!: string;
  @OneToMany(() => Payment, (payment) => payment.invoice, { cascade: true }) payments!: Payment[];
}

@Entity('payments')
@TableInheritance({ column: { type: 'varchar', length: 20, name: 'kind' } })
class Payment {
  @HiLoGeneratedColumn() id!: number;
  @Column({ type: 'integer' }) amountCents!: number;
  @ManyToOne(() => Invoice, (invoice) => invoice.payments) invoice?: Invoice;
}

@ChildEntity('card')
class CardPayment extends Payment {
  @Column({ type: 'varchar', length: 4, nullable: true }) last4?: string;
}

@ChildEntity('transfer')
class TransferPayment extends Payment {
  @Column({ type: 'varchar', length: 34, nullable: true }) iban?: string;
}

describeSqlite('single-table inheritance', (db) => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = withHiLo(
      new DataSource({
        type: 'better-sqlite3',
        database: db.url,
        entities: [Payment, CardPayment, TransferPayment, Invoice],
        synchronize: true,
      }),
      { blockSize: 10 },
    );
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  it('gives parent and children keys at create() from the one segment of their table', async () => {
    const hilo = hiloOf(dataSource);
    expect([hilo.segmentOf(Payment), hilo.segmentOf(CardPayment), hilo.segmentOf(TransferPayment)]).toEqual([
      'payments',
      'payments',
      'payments',
    ]);
    const card = dataSource.getRepository(CardPayment).create({ amountCents: 500, last4: '4242' });
    const transfer = dataSource.manager.create(TransferPayment, { amountCents: 700, iban: 'DE89370400440532013000' });
    const plain = dataSource.getRepository(Payment).create({ amountCents: 100 });
    const keys = [card.id, transfer.id, plain.id];
    expect(keys.every((key) => typeof key === 'number')).toBe(true);
    expect(new Set(keys).size).toBe(3);
    await dataSource.manager.save([card, transfer, plain]);
    expect([card.id, transfer.id, plain.id]).toEqual(keys);
    const stored = await dataSource.getRepository(Payment).find({ order: { id: 'ASC' } });
    expect(stored.map((p) => [p.id, p.constructor.name])).toEqual(
      [
        [card.id, 'CardPayment'],
        [transfer.id, 'TransferPayment'],
        [plain.id, 'Payment'],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
  });

  it('keys children reached through a cascading relation at create(), and saves the graph under those keys', async () => {
    const invoice = dataSource.getRepository(Invoice).create({ number: 'INV-1', payments: [] });
    invoice.payments.push(
      dataSource.manager.create(CardPayment, { amountCents: 300 }),
      dataSource.manager.create(TransferPayment, { amountCents: 200 }),
    );
    const paymentKeys = invoice.payments.map((p) => p.id);
    expect(typeof invoice.id).toBe('number');
    expect(paymentKeys.every((key) => typeof key === 'number')).toBe(true);
    await dataSource.getRepository(Invoice).save(invoice);
    const loaded = await dataSource
      .getRepository(Invoice)
      .findOneOrFail({ where: { id: invoice.id }, relations: { payments: true } });
    expect(loaded.payments.map((p) => p.id).sort((a, b) => a - b)).toEqual([...paymentKeys].sort((a, b) => a - b));
    expect(loaded.payments.map((p) => p.constructor.name).sort()).toEqual(['CardPayment', 'TransferPayment']);
  });
});
