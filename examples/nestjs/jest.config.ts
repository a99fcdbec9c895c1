import type { Config } from 'jest';

// Nest's default Jest set-up (`nest new`): ts-jest compiling to CommonJS with the tsconfig above. The
// tests need a PostgreSQL database in DATABASE_URL (the workspace's test run passes one, see
// scripts/test/nestjs-example.test.ts).
const config: Config = {
  moduleFileExtensions: ['js', 'json', 'ts'],
  rootDir: '.',
  testRegex: '.*\\.spec\\.ts$',
  transform: {
    '^.+\\.(t|j)s$': 'ts-jest',
  },
  testEnvironment: 'node',
  testTimeout: 60_000,
};

export default config;
