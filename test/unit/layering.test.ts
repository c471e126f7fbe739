import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The layering rule, run as CI runs it (biome with the project's configuration) on probe
 * files laid out like the source tree in a scratch directory.
 */
const BIOME = resolve('node_modules/.bin/biome');
const RULE = 'No queries in a front door or an operation';
const PROBES = {
  query: "export const f = (db: Db) => db.selectFrom('accounts').selectAll().execute();\n",
  transaction: 'export const t = (db: Db) => db.transaction();\n',
  raw: "import { sql } from 'kysely';\nexport const q = sql`select 1`;\n",
};
const DOORS = ['web/portal', 'http', 'mcp', 'oauth', 'operations/stories', 'cli/commands'];
const INNER = ['domain', 'db'];

let root: string;
let flagged: Set<string>;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'layering-'));
  cpSync('biome.json', join(root, 'biome.json'));
  cpSync('lint', join(root, 'lint'), { recursive: true });
  for (const dir of [...DOORS, ...INNER]) {
    for (const [name, code] of Object.entries(PROBES)) {
      const file = join(root, 'src', dir, `${name}.ts`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, code);
    }
  }
  const r = spawnSync(BIOME, ['lint', '--vcs-enabled=false', '--reporter=json', 'src'], {
    cwd: root,
    encoding: 'utf8',
  });
  const report = JSON.parse(r.stdout) as {
    diagnostics: { message: string; location: { path: string } }[];
  };
  flagged = new Set(
    report.diagnostics.filter((d) => d.message.startsWith(RULE)).map((d) => d.location.path),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the layering rule (lint/no-queries-in-doors.grit)', () => {
  it.each(DOORS)('refuses queries, transactions and raw SQL in src/%s', (dir) => {
    for (const name of Object.keys(PROBES)) expect(flagged).toContain(`src/${dir}/${name}.ts`);
  });

  it.each(INNER)('lets src/%s hold them', (dir) => {
    for (const name of Object.keys(PROBES)) expect(flagged).not.toContain(`src/${dir}/${name}.ts`);
  });
});
