#!/usr/bin/env node
/**
 * The hilo Prisma generator. Add it next to the client generator; `prisma generate` then writes `hilo.ts`
 * (the metadata the extension reads) into the client's output folder, or into `output` when given.
 * @example
 * ```prisma
 * generator hilo {
 *   provider = "node ./node_modules/hilo-prisma/dist/generator.js"
 *   output   = "../generated/prisma"
 * }
 * ```
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import generatorHelper from '@prisma/generator-helper';
import type { GeneratorOptions } from '@prisma/generator-helper';
import { buildMetadata, renderMetadataModule } from './generator/build-metadata.js';
import { configurationErrors } from './error-messages.js';

const FILE = 'hilo.ts';

/** Where `hilo.ts` goes: into `output` (a folder, usually the client's), or to `output` when it names a `.ts` file. */
function outputFile(options: GeneratorOptions): string {
  const output = options.generator.output?.value;
  if (!output) throw configurationErrors.noGeneratorOutput();
  return output.endsWith('.ts') ? output : path.join(output, FILE);
}

generatorHelper.generatorHandler({
  onManifest: () => ({ prettyName: 'hilo metadata' }),
  async onGenerate(options) {
    const metadata = buildMetadata(options.dmmf.datamodel.models, options.datasources[0]?.activeProvider);
    const file = outputFile(options);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, renderMetadataModule(metadata));
  },
});
