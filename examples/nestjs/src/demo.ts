// `pnpm demo` runs this compiled (dist/demo.js DATABASE_URL): the Nest app without HTTP, placing one order
// through each module's service, and prints the keys known before anything was saved. Nest's dependency
// injection needs decorator metadata, which tsx (esbuild) does not emit, hence the tsc build.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { TypeOrmShopService } from './typeorm-shop/shop.service';
import { MikroOrmShopService } from './mikro-orm-shop/shop.service';

async function main(): Promise<void> {
  const url = process.argv[2];
  if (url) process.env['DATABASE_URL'] = url;
  const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });
  try {
    const typeorm = await app.get(TypeOrmShopService).place('Ada', [10, 20, 30]);
    console.log(
      `  @nestjs/typeorm: customer ${typeorm.customerId} with orders ${typeorm.orderIds.join(', ')}; ` +
        `${typeorm.keysBeforeSave} keys known before save()`,
    );
    const mikro = await app.get(MikroOrmShopService).place('Grace', [5, 7]);
    console.log(
      `  @mikro-orm/nestjs: customer ${mikro.customerId} with orders ${mikro.orderIds.join(', ')}; ` +
        `${mikro.keysBeforeSave} keys known before flush`,
    );
    // the last line is the summary scripts/demo.ts reads; this demo counts keys, not statements
    console.log(
      JSON.stringify({
        keysBeforeFlush: typeorm.keysBeforeSave + mikro.keysBeforeSave,
        statements: '—',
        identityStatements: '—',
      }),
    );
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
