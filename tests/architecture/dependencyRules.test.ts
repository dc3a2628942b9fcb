import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';

/**
 * The architecture rules of `.dependency-cruiser.cjs` (checked by `npm run lint`) catch what
 * they promise: each one is shown a small tree that breaks it, and a tree that breaks none.
 */
const require = createRequire(import.meta.url);
const config = require('../../.dependency-cruiser.cjs') as IConfiguration;
const dirs: string[] = [];

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'subscope-arch-'));
  dirs.push(dir);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', jsx: 'react-jsx', strict: true } }));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

async function violations(dir: string): Promise<string[]> {
  const { tsConfig: _ignored, ...options } = config.options ?? {};
  const result = await cruise(['src', 'machines', 'models', 'server'], {
    ...options,
    baseDir: dir,
    ruleSet: { forbidden: config.forbidden },
    validate: true,
    exclude: { path: 'node_modules' },
  });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`).sort();
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('architecture rules', () => {
  it('refuse wrong import directions, cycles made of type imports, and barrels', async () => {
    const dir = tree({
      'models/money.ts': "import type { Page } from '../src/page';\nexport type Cents = number & { page?: Page };\n",
      'machines/flow.ts': "import { render } from '../src/page';\nexport const flow = render;\n",
      'src/page.ts': "import { secret } from '../server/secret';\nexport type Page = { secret: string };\nexport const render = () => secret;\n",
      'server/secret.ts': "import { flow } from '../machines/flow';\nexport const secret = String(flow);\n",
      'server/a.ts': "import type { B } from './b';\nexport type A = { b?: B };\n",
      'server/b.ts': "import type { A } from './a';\nexport type B = { a?: A };\n",
      'server/parts/index.ts': "export { secret } from '../secret';\n",
      'server/user.ts': "import { secret } from './parts';\nexport const user = secret;\n",
    });
    const found = await violations(dir);
    const rules = new Set(found.map((line) => line.split(':')[0]));
    expect(found).toContain('models-import-nothing-of-ours: models/money.ts -> src/page.ts');
    expect(found).toContain('machines-import-only-models: machines/flow.ts -> src/page.ts');
    expect(found).toContain('src-never-imports-server: src/page.ts -> server/secret.ts');
    expect(found).toContain('server-imports-only-models: server/secret.ts -> machines/flow.ts');
    expect(found).toContain('no-index-barrels: server/user.ts -> server/parts/index.ts');
    expect(found.some((line) => line.startsWith('no-circular: server/a.ts') || line.startsWith('no-circular: server/b.ts'))).toBe(true);
    expect(rules).toEqual(new Set(['models-import-nothing-of-ours', 'machines-import-only-models', 'src-never-imports-server', 'server-imports-only-models', 'no-index-barrels', 'no-circular']));
  }, 60_000);

  it('let the allowed directions through', async () => {
    const dir = tree({
      'models/money.ts': 'export const cents = (value: number) => Math.round(value * 100);\n',
      'machines/flow.ts': "import { cents } from '../models/money';\nexport const flow = cents(1);\n",
      'src/page.ts': "import { flow } from '../machines/flow';\nimport { cents } from '../models/money';\nexport const page = flow + cents(2);\n",
      'server/route.ts': "import { cents } from '../models/money';\nexport const route = cents(3);\n",
    });
    expect(await violations(dir)).toEqual([]);
  }, 60_000);
});
