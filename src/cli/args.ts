import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { describeIssue, refuseNul } from '../operations/execute.js';

/** Parses a CLI value with a zod schema, failing with the option's name. */
export function parse<T extends z.ZodType>(schema: T, value: unknown, name: string): z.output<T> {
  refuseNul(value, name);
  const r = schema.safeParse(value);
  if (!r.success)
    throw new AppError('invalid', describeIssue(r.error.issues[0]).replace(/^body/, name));
  return r.data;
}

/** A display name: an account's, a brand's. */
export const Name = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters');

/** The JSON in a file the command was given, or an error naming the option. */
export async function readJsonFile(path: string, name: string): Promise<unknown> {
  const raw = await readFile(path, 'utf8').catch(() => {
    throw new AppError('invalid', `${name}: cannot read ${path}`);
  });
  try {
    return JSON.parse(raw);
  } catch {
    throw new AppError('invalid', `${name}: malformed JSON`);
  }
}
