import { DataSource, type DataSourceOptions } from 'typeorm';
import { withHiLo, type HiLoTypeOrmOptions } from './install.js';
import { configurationErrors } from './error-messages.js';

/**
 * The `dataSourceFactory` of `@nestjs/typeorm`'s `TypeOrmModule.forRootAsync()`: it builds the DataSource from
 * the options your `useFactory` returns, wraps it with {@link withHiLo} and initializes it. Nest injects the
 * DataSource, and the repositories of `TypeOrmModule.forFeature()`, only after that, when hilo has reserved the
 * first blocks, so `create()` in any service returns entities with keys. `app.close()` destroys the DataSource,
 * which returns unused keys.
 *
 * `options` are hilo's (as for {@link withHiLo}) and are checked at once, when the module is declared: a wrong
 * option fails there with a `HiLoConfigurationError`, not later inside Nest's retries of the connection. The
 * function needs nothing from `@nestjs/typeorm`; it is typed to fit its `dataSourceFactory`.
 * @example
 * ```ts
 * TypeOrmModule.forRootAsync({
 *   useFactory: () => ({ type: 'postgres', url: process.env.DATABASE_URL, entities: [Customer, Order] }),
 *   dataSourceFactory: hiloDataSourceFactory({ blockSize: 100 }),
 * })
 * ```
 */
export function hiloDataSourceFactory(
  options: HiLoTypeOrmOptions = {},
): (dataSourceOptions?: DataSourceOptions) => Promise<DataSource> {
  // withHiLo() checks the options before anything else; on a stand-in it does only that
  withHiLo({ initialize: () => Promise.resolve() } as unknown as DataSource, options);
  return async (dataSourceOptions?: DataSourceOptions): Promise<DataSource> => {
    if (dataSourceOptions === undefined) {
      throw configurationErrors.noDataSourceOptions();
    }
    return withHiLo(new DataSource(dataSourceOptions), options).initialize();
  };
}
