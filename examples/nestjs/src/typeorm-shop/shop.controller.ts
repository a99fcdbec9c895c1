import { Body, Controller, Get, NotFoundException, Param, ParseIntPipe, Post } from '@nestjs/common';
import { TypeOrmShopService, type PlacedOrders } from './shop.service';
import type { Customer } from './entities';

@Controller('typeorm/customers')
export class TypeOrmShopController {
  constructor(private readonly shop: TypeOrmShopService) {}

  @Post()
  place(@Body() body: { name: string; totals: number[] }): Promise<PlacedOrders> {
    return this.shop.place(body.name, body.totals);
  }

  @Get(':id')
  async find(@Param('id', ParseIntPipe) id: number): Promise<Customer> {
    const customer = await this.shop.find(id);
    if (!customer) throw new NotFoundException(`no customer ${id}`);
    return customer;
  }
}
