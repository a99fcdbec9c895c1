import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { withHiLo } from 'hilo-typeorm';
import { Customer, Order } from './entities';
import { TypeOrmShopController } from './shop.controller';
import { TypeOrmShopService } from './shop.service';
import { databaseUrl } from '../database-url';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      useFactory: () => ({
        type: 'postgres',
        url: databaseUrl(),
        entities: [Customer, Order],
        synchronize: true, // the example creates its tables; use migrations in a real app
      }),
      // withHiLo() makes initialize() reserve a block per hi/lo entity before Nest injects the DataSource
      dataSourceFactory: async (options) => withHiLo(new DataSource(options!)).initialize(),
    }),
    TypeOrmModule.forFeature([Customer, Order]),
  ],
  controllers: [TypeOrmShopController],
  providers: [TypeOrmShopService],
})
export class TypeOrmShopModule {}
