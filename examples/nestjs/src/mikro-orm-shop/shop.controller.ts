import { Body, Controller, Get, NotFoundException, Param, ParseIntPipe, Post } from '@nestjs/common';
import { MikroOrmShopService } from './shop.service';
import type { PlacedOrders } from '../typeorm-shop/shop.service';

@Controller('mikro-orm/customers')
export class MikroOrmShopController {
  constructor(private readonly shop: MikroOrmShopService) {}

  @Post()
  place(@Body() body: { name: string; totals: number[] }): Promise<PlacedOrders> {
    return this.shop.place(body.name, body.totals);
  }

  @Get(':id')
  async find(@Param('id', ParseIntPipe) id: number) {
    const customer = await this.shop.find(id);
    if (!customer) throw new NotFoundException(`no customer ${id}`);
    return customer;
  }
}
