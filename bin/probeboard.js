#!/usr/bin/env node
// Entry point installed as `probeboard`. The TypeScript sources are bundled into dist/server by `npm run build`
// (run automatically by `npm ci` / `npm install` through the prepare script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/server/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  console.error(`probeboard: ${main} is missing; run "npm run build" first`);
  process.exit(2);
}
await import(main);
