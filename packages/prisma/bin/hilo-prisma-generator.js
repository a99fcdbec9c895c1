#!/usr/bin/env node
// The `hilo-prisma-generator` command. The generator itself is the built dist/generator.js, which runs when it
// is imported; this file is committed so that the bin exists before the package is built: pnpm links the bins
// of workspace packages at install, and a bin pointing into dist/ made a fresh install warn "Failed to create bin".
import '../dist/generator.js';
