import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { hiloDataSourceFactory } from 'hilo-typeorm';
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
      // builds the DataSource with hilo and initializes it: a block per hi/lo entity is reserved before Nest
      // injects the DataSource and the repositories
      dataSourceFactory: hiloDataSourceFactory(),
    }),
    TypeOrmModule.forFeature([Customer, Order]),
  ],
  controllers: [TypeOrmShopController],
  providers: [TypeOrmShopService],
})
export class TypeOrmShopModule {}
