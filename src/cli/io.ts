import type { Command } from 'commander';

/**
 * Where a command's output goes, which environment it reads, and the exit status it
 * sets: the process's for `bin/brs.js`, a test's own when the tests run `brs` in-process.
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
  exitCode: number;
}

export const processIo = (): CliIo => ({
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  exitCode: 0,
});

const ioOfProgram = new WeakMap<Command, CliIo>();

/** Gives a program, and so every command under it, its I/O. */
export function attachIo(program: Command, io: CliIo): void {
  ioOfProgram.set(program, io);
}

/** The I/O of the program a command belongs to. */
export function ioOf(command: Command): CliIo {
  let root = command;
  while (root.parent) root = root.parent;
  const io = ioOfProgram.get(root);
  if (!io) throw new Error('brs: a command ran outside buildCli');
  return io;
}
