// Loaded with `--import` (after tsx) by hilo-prisma's worker processes under the `prisma <oldest>` Jest project:
// maps what that project's moduleNameMapper maps (jest.config.ts), so that the workers run that Prisma too.
import { register } from 'node:module';

register('./child-resolve.mjs', import.meta.url);
