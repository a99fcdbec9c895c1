// Loaded with `--import` (after tsx) by hilo-prisma's worker processes under the `prisma 7.0.0` Jest project:
// maps what that project's moduleNameMapper maps (jest.config.ts), so that the workers run Prisma 7.0.0 too.
import { register } from 'node:module';

register('./child-resolve.mjs', import.meta.url);
