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
  /\b(dropTable|dropColumn|renameColumn|renameTo|alterColumn|dropConstraint|modifyColumn)\b|\b(drop|rename|alter\s+column)\s/i;
/**
 * A new rule on an existing table can refuse the previous release's writes: a unique or
 * check constraint, or a unique index (on a table the migration creates, they are fine:
 * write that index in the createTable chain as a constraint instead).
 */
const NEW_RULE = /\b(addUniqueConstraint|addCheckConstraint)\b|\.unique\(\)/;

/** Every `alterTable` and `createIndex` chain, as text up to its `.execute()`. */
function alterations(source: string): string[] {
  return source
    .split(/(?=\.alterTable\(|\.createIndex\()/)
    .slice(1)
    .map((chain) => chain.split('.execute()')[0]!);
}

/** Every `.addColumn(…)` of an `alterTable` chain, as text up to the next call of the chain. */
function addedColumns(source: string): string[] {
  return alterations(source)
    .filter((chain) => chain.startsWith('.alterTable('))
    .flatMap((chain) => chain.split(/(?=\.addColumn\()/).slice(1));
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
      for (const chain of alterations(source)) expect(chain, file).not.toMatch(NEW_RULE);
    });
  }

  it('the check itself sees what breaks the previous release', () => {
    expect('db.schema.alterTable("x").dropColumn("y")').toMatch(DESTRUCTIVE);
    expect('sql`ALTER TABLE x RENAME TO y`').toMatch(DESTRUCTIVE);
    expect('sql`alter table x drop column y`').toMatch(DESTRUCTIVE);
    expect(".createIndex('x_one').on('x').column('a').unique()").toMatch(NEW_RULE);
    expect(
      addedColumns(
        "await db.schema.alterTable('x').addColumn('a', 'text', (c) => c.notNull()).addColumn('b', 'text').execute();",
      ),
    ).toEqual([".addColumn('a', 'text', (c) => c.notNull())", ".addColumn('b', 'text')"]);
  });
});
