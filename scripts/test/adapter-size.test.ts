// Adapters translate; core decides (issue #14): each adapter's src stays under 900 lines of code, so logic
// that grows in an adapter shows up here and moves to hilo-core's adapter kit. Counted without blank lines
// and comments (the TSDoc users read in their editors is not logic), without generated files.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ADAPTERS = ['typeorm', 'prisma', 'mikro-orm', 'drizzle', 'kysely'];
const LIMIT = 900;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'generated' ? [] : sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** Lines that are neither blank nor comment (line comments, and block or TSDoc comments). */
export function codeLines(text: string): number {
  let count = 0;
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes('*/')) inBlock = false;
      continue;
    }
    if (line === '' || line.startsWith('//')) continue;
    if (line.startsWith('/*')) {
      inBlock = !line.includes('*/');
      continue;
    }
    count++;
  }
  return count;
}

describe('adapter size', () => {
  it('counts code, not comments or blank lines', () => {
    expect(codeLines('/**\n * doc\n */\nconst a = 1; // note\n\n// comment\n/* one */\nexport { a };\n')).toBe(2);
  });

  it.each(ADAPTERS)(`hilo-%s's src is under ${LIMIT} lines of code`, (adapter) => {
    const files = sourceFiles(join(root, 'packages', adapter, 'src'));
    expect(files.length).toBeGreaterThan(0);
    const total = files.reduce((sum, file) => sum + codeLines(readFileSync(file, 'utf8')), 0);
    expect(total).toBeLessThan(LIMIT);
  });
});
