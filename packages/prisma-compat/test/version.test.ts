import { createRequire } from 'node:module';
import { PrismaPg } from '@prisma/adapter-pg';
import { Prisma as ExtensionPrisma } from '@prisma/client/extension';
import { compatVersion, loadedPrismaVersion } from '../../prisma/test/support/compat.js';
import { hiloMetadata as generatedHere } from '../generated/postgres/hilo.js';
import { hiloMetadata as generatedByNewest } from '../../prisma/test/generated/postgres/hilo.js';

// jest.config.ts maps hilo-prisma's test clients, `@prisma/client/extension` and the driver adapters to what
// packages/prisma-compat installed and generated with Prisma 6.16.1, and names the release in a global: prove
// the mapping took, so that the hilo-prisma suites this project reruns really ran against 6.16.1.
const require = createRequire(import.meta.url);
const versionOf = (name: string): string =>
  (require(`../node_modules/${name}/package.json`) as { version: string }).version;

it('the test clients, the extension module and the adapters are the release the project names', () => {
  expect(compatVersion).toBe('6.16.1');
  expect(loadedPrismaVersion).toBe(compatVersion);
  for (const name of ['prisma', '@prisma/client', '@prisma/adapter-pg', '@prisma/adapter-mariadb'])
    expect(versionOf(name)).toBe(compatVersion);
  expect(typeof ExtensionPrisma.defineExtension).toBe('function');
  expect(new PrismaPg({ connectionString: 'postgres://unused' }).provider).toBe('postgres');
});

it("Prisma 6.16.1's CLI runs hilo's generator, which writes the same metadata as under the newest Prisma", () => {
  expect(Object.keys(generatedHere.models)).toEqual(['Customer', 'Profile', 'Order', 'OrderItem', 'ItemNote', 'Tag']);
  expect(generatedHere).toEqual(generatedByNewest);
});
