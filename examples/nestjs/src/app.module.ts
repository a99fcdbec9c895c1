import { Module } from '@nestjs/common';
import { TypeOrmShopModule } from './typeorm-shop/shop.module';
import { MikroOrmShopModule } from './mikro-orm-shop/shop.module';

/** The same small shop twice: once on @nestjs/typeorm, once on @mikro-orm/nestjs, both with hi/lo keys. */
@Module({
  imports: [TypeOrmShopModule, MikroOrmShopModule],
})
export class AppModule {}
