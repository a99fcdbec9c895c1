import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSuite } from './check-suite.js';

describe('sqlite: hilo check, table source', () => {
  const folder = mkdtempSync(join(tmpdir(), 'hilo-check-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  checkSuite(() => `sqlite:${join(folder, 'check.db')}`, 'table');
});
