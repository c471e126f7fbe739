import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The rule that lets a new release migrate a database the previous release is serving
 * (docs/deployment.md, "Upgrades"): a migration only adds. No table or column is
 * dropped, renamed or retyped, and a column added to an existing table is nullable or has
 * a default, so the previous release's inserts still succeed. Something to remove goes
 * in two releases: stop using it, then drop it once no instance of the release that used
 * it runs. Migrations up to 0014 were written before instances overlapped and are not
 * held to it.
 */
const DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));
const RULE_FROM = '0015';
const DESTRUCTIVE =
  /\b(dropTable|dropColumn|renameColumn|renameTo|alterColumn|dropConstraint|modifyColumn)\b|\b(DROP|RENAME|ALTER\s+COLUMN)\b/;

/** Every `.addColumn(…)` of an `alterTable` chain, as text up to the next call of the chain. */
function addedColumns(source: string): string[] {
  const columns: string[] = [];
  for (const chain of source.split(/\.alterTable\(/).slice(1)) {
    const body = chain.split('.execute()')[0]!;
    for (const part of body.split(/(?=\.addColumn\()/).slice(1)) columns.push(part);
  }
  return columns;
}

describe('migrations', () => {
  const files = readdirSync(DIR).filter((f) => /^\d{4}-.*\.ts$/.test(f));

  it('are found', () => {
    expect(files.length).toBeGreaterThanOrEqual(14);
  });

  for (const file of files.filter((f) => f >= RULE_FROM)) {
    it(`${file} only adds`, () => {
      const source = readFileSync(DIR + file, 'utf8');
      expect(source).not.toMatch(DESTRUCTIVE);
      for (const column of addedColumns(source)) {
        if (column.includes('notNull()')) expect(column, file).toMatch(/defaultTo\(/);
      }
    });
  }

  it('the check itself sees what breaks the previous release', () => {
    expect('db.schema.alterTable("x").dropColumn("y")').toMatch(DESTRUCTIVE);
    expect('sql`ALTER TABLE x RENAME TO y`').toMatch(DESTRUCTIVE);
    expect(
      addedColumns(
        "await db.schema.alterTable('x').addColumn('a', 'text', (c) => c.notNull()).addColumn('b', 'text').execute();",
      ),
    ).toEqual([".addColumn('a', 'text', (c) => c.notNull())", ".addColumn('b', 'text')"]);
  });
});
