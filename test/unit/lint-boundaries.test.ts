import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/shared.js';

/** eslint.config.js's import boundaries fire on the imports they forbid and stay quiet on the ones the layers use. */
describe('lint: layer import boundaries', () => {
  const eslint = new ESLint({ cwd: repoRoot });
  const errors = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(repoRoot, file) });
    return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').length;
  };

  it.each([
    ['src/core/model/probe.ts', "import { useAppStore } from '../../app/state/appStore.js';"],
    ['src/core/model/probe.ts', "import { createApp } from '../../../server/http/app.js';"],
    ['src/core/model/probe.ts', "import fs from 'node:fs';"],
    ['src/core/model/probe.ts', "import { create } from 'zustand';"],
    ['src/app/state/probe.ts', "import { createApp } from '../../../server/http/app.js';"],
    ['src/app/state/probe.ts', "import fs from 'node:fs';"],
    ['server/http/probe.ts', "import { useAppStore } from '../../src/app/state/appStore.js';"],
    ['server/http/probe.ts', "import { useState } from 'react';"],
  ])('%s: %s is refused', async (file, code) => {
    expect(await errors(file, `${code}\nexport {};\n`)).toBe(1);
  });

  it.each([
    ['src/core/model/probe.ts', "import { NodeOp } from './graph.js';"],
    ['src/app/state/probe.ts', "import { NodeOp } from '../../core/model/graph.js';"],
    ['server/http/probe.ts', "import { NodeOp } from '../../src/core/model/graph.js';"],
    ['server/http/probe.ts', "import fs from 'node:fs';"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await errors(file, `${code}\nexport {};\n`)).toBe(0);
  });
});
