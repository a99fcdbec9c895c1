import { Module, type OnModuleInit } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { MikroORM, PostgreSqlDriver } from '@mikro-orm/postgresql';
import { HiLo } from 'hilo-mikro-orm';
import { MikroCustomer, MikroOrder } from './entities';
import { MikroOrmShopController } from './shop.controller';
import { MikroOrmShopService } from './shop.service';
import { databaseUrl } from '../database-url';

@Module({
  imports: [
    MikroOrmModule.forRootAsync({
      driver: PostgreSqlDriver,
      useFactory: () => ({
        clientUrl: databaseUrl(),
        entities: [MikroCustomer, MikroOrder],
        // the extension reserves a block per keyed table while MikroORM initializes
        extensions: [HiLo],
      }),
    }),
  ],
  controllers: [MikroOrmShopController],
  providers: [MikroOrmShopService],
})
export class MikroOrmShopModule implements OnModuleInit {
  constructor(private readonly orm: MikroORM) {}

  async onModuleInit(): Promise<void> {
    // the example creates its tables (safe: the TypeORM module's tables share the database); use migrations in a real app
    await this.orm.schema.update({ safe: true });
  }
}
