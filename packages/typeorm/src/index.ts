export { HiLoGeneratedColumn, hiloColumn } from './hilo-generated-column.js';
export type { HiLoColumnOptions } from './column-options.js';
export { hiloKeyTransformer, hiloBigIntKeyTransformer } from './key-transformer.js';
export { installHiLo, withHiLo, hiloOf, HiLoTypeOrm, type HiLoTypeOrmOptions } from './install.js';
export { dataSourceClient } from './driver-client.js';
export { hiloDataSourceFactory } from './nest.js';
