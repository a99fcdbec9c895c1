// Loaded with `--import` (after tsx) by hilo-core's worker processes under the `core drivers (oldest)` Jest
// project: maps the drivers as that project's moduleNameMapper does (jest.config.ts).
import { register } from 'node:module';

register('./child-resolve.mjs', import.meta.url);
