import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const BIN = fileURLToPath(new URL('../../bin/brs.js', import.meta.url));

/** The parent's environment minus BASE_URL, which Vitest sets to '/' for Vite's sake. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { BASE_URL: _vite, ...rest } = process.env;
  // Connectors ask the internet; a test that wants them names them (and local servers).
  return { ...rest, LOG_LEVEL: 'warn', CONNECTORS: '', ...extra };
}

/**
 * Runs `brs … --json` in this process, with its own environment and output, and parses
 * the one JSON object it prints: the same code as the command, without a Node start-up
 * per call.
 */
export async function brs(env: Record<string, string>, ...args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    env: childEnv(env),
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    exitCode: 0,
  };
  const code = await main(['node', 'brs', ...args, '--json'], io);
  let out: unknown;
  try {
    out = JSON.parse(stdout);
  } catch {
    out = stdout;
  }
  return { code, out: out as any, stderr };
}

/** Runs `brs … --json` as an operator would, in a process of its own: the smoke tests. */
export function brsProcess(env: Record<string, string>, ...args: string[]) {
  return new Promise<{ code: number; out: any; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args, '--json'],
      { env: childEnv(env) },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        let out: unknown;
        try {
          out = JSON.parse(stdout);
        } catch {
          out = stdout;
        }
        resolve({ code: typeof code === 'number' ? code : 1, out, stderr });
      },
    );
  });
}

/**
 * Starts `brs serve --json` on a free port and waits for the URL it prints; `bin` runs
 * another build (a previous release's).
 */
export async function brsServe(
  env: Record<string, string>,
  { bin = BIN, stderr = 'inherit' }: { bin?: string; stderr?: 'inherit' | 'pipe' } = {},
): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [bin, 'serve', '--json'], {
    env: childEnv({ PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', stderr],
  });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`brs serve exited with ${code}`);
    }),
  ])) as [string];
  const { url } = JSON.parse(line);
  return {
    url,
    child,
    stop: () => stopChild(child),
  };
}

/**
 * Starts `brs serve` on `port` and resolves at its first answer to /healthz, as a load
 * balancer's health check would see it, without waiting for the banner.
 */
export async function brsServeAnswering(env: Record<string, string>, port: number) {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: childEnv({ ...env, PORT: String(port) }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = () => stopChild(child);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`brs serve exited with ${child.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url: `http://127.0.0.1:${port}`, child, stop };
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Runs `brs start` (the quickstart) and collects its banner, up to its last line. */
export async function brsStart(env: Record<string, string>, cwd: string, { bin = BIN } = {}) {
  const child = spawn(process.execPath, [bin, 'start'], {
    env: childEnv({ PORT: '0', ...env }),
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const banner: string[] = [];
  for await (const line of createInterface({ input: child.stdout! })) {
    banner.push(line);
    if (line.startsWith('Other demo keys')) break;
  }
  return { banner, stop: () => stopChild(child) };
}

/** Stops a child once, however it ended; SIGKILL if it has not exited 5 s after SIGTERM. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
