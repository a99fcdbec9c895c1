import type { MikroORM } from '@mikro-orm/core';
import { HiLoConfigurationError } from 'hilo-core';
import type { HiLoOptions } from './extension.js';
import type { Generator } from './runtime.js';

/** Builds the generator for an ORM: a small pool of its own with the ORM's connection settings. */
export async function createGeneratorFor(_orm: MikroORM, _options: HiLoOptions): Promise<Generator> {
  throw new HiLoConfigurationError('not yet');
}
