#!/usr/bin/env node
// Checked before anything loads: on an older Node, native modules built for 22+ would
// crash instead of saying what is wrong.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `brs: Stories needs Node.js 24 LTS (or 22.12 and newer); this is ${process.version}. See README.md, "Quickstart".\n`,
  );
  process.exit(1);
}
const { main } = await import('../dist/cli/main.js');

process.exitCode = await main(process.argv);
