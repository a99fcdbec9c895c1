// Loaded with `--import` by connect-worker.ts's parent test: makes the packages named in HILO_HIDE_MODULES
// (comma-separated, subpaths included) unresolvable, as in an app that never installed them.
import { register } from 'node:module';

register('./hide-modules-resolve.mjs', import.meta.url);
