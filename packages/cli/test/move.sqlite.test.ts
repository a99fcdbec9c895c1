import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { moveSuite } from './move-suite.js';

describe('sqlite: hilo move, table source', () => {
  const folder = mkdtempSync(join(tmpdir(), 'hilo-move-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  moveSuite(() => `sqlite:${join(folder, 'move.db')}`, 'table');
});
