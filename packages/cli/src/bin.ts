#!/usr/bin/env node
import { main } from './main.js';

// exitCode rather than exit(): pending writes to a pipe are flushed before the process ends
process.exitCode = await main(process.argv.slice(2));
