/**
 * The handler bundle, built exactly as the CDK app builds it (infra/bundle.ts, with esbuild's
 * metafile): within its size budget, each package once, without the code that never runs in the
 * function, and loadable by a fresh Node 24 process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BUNDLE_BUDGET_BYTES, type BundleResult, bundleSyncHandler } from '../../infra/bundle.js';
import {
  describeBiggest,
  duplicatePackages,
  inputsBySize,
  packagesBySize,
} from '../../infra/bundle-report.js';

const dir = mkdtempSync(join(tmpdir(), 'tenantplane-bundle-test-'));
let bundle: BundleResult;
let inputs: string[];

beforeAll(async () => {
  bundle = await bundleSyncHandler(dir);
  inputs = inputsBySize(bundle.metafile)
    .filter((i) => i.bytes > 0)
    .map((i) => i.path);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the handler bundle', () => {
  it(`stays within its budget of ${BUNDLE_BUDGET_BYTES} bytes`, () => {
    if (bundle.bytes > BUNDLE_BUDGET_BYTES) {
      throw new Error(
        `index.mjs is ${bundle.bytes} bytes, ${bundle.bytes - BUNDLE_BUDGET_BYTES} over the budget of ${BUNDLE_BUDGET_BYTES} (infra/bundle.ts).\n${describeBiggest(bundle.metafile, 15)}`,
      );
    }
    expect(bundle.bytes).toBeGreaterThan(100_000);
  });

  it('holds each package once: one Powertools commons for logger, metrics and parameters', () => {
    expect(Object.fromEntries(duplicatePackages(bundle.metafile))).toEqual({});
    const names = packagesBySize(bundle.metafile).map((p) => p.name);
    for (const name of [
      '@aws-lambda-powertools/commons',
      '@aws-lambda-powertools/logger',
      '@aws-lambda-powertools/metrics',
      '@aws-lambda-powertools/parameters',
    ])
      expect(names.filter((n) => n === name)).toEqual([name]);
  });

  it('leaves out client-node modules the handler never uses', () => {
    const clientNode = inputs.filter((p) => p.includes('node_modules/@kubernetes/client-node/'));
    expect(clientNode.some((p) => p.endsWith('/dist/config.js'))).toBe(true);
    for (const unused of [
      /\/dist\/(exec|attach|portforward|cp|informer|watch|log|top|metrics)\.js$/,
      /\/dist\/gen\/models\/V1Pod\.js$/,
      /\/dist\/gen\/apis\/CoreV1Api\.js$/,
      /\/dist\/polyfill\.js$/,
    ])
      expect(clientNode.filter((p) => unused.test(p))).toEqual([]);
    expect(inputs.filter((p) => p.includes('node_modules/ws/'))).toEqual([]);
  });

  it('parses kubeconfigs with js-yaml only (the yaml package is not on the handler path)', () => {
    expect(inputs.filter((p) => p.includes('node_modules/yaml/'))).toEqual([]);
    expect(inputs.filter((p) => p.includes('node_modules/js-yaml/'))).toHaveLength(1);
  });

  it("keeps undici's SIMD llhttp parser and none of the parsers that never load", () => {
    const undici = inputs.filter((p) => p.includes('node_modules/undici/'));
    expect(undici).toContain('node_modules/undici/lib/llhttp/llhttp_simd-wasm.js');
    expect(undici.filter((p) => /\/milo\/|\/llhttp-wasm\.js$/.test(p))).toEqual([]);
    const omitted = inputs.filter((p) => p.startsWith('tenantplane-omitted:'));
    expect(omitted.sort()).toEqual([
      'tenantplane-omitted:undici:../llhttp/llhttp-wasm.js',
      'tenantplane-omitted:undici:../milo/no-simd.js',
      'tenantplane-omitted:undici:../milo/simd.js',
    ]);
  });

  it('is an ES module a fresh Node 24 process imports, exporting the handler', () => {
    const probe = `const m = await import(${JSON.stringify(pathToFileURL(bundle.file).href)});
process.stdout.write(JSON.stringify({ node: process.version, handler: typeof m.handler }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual({ node: expect.stringMatching(/^v24\./), handler: 'function' });
  });
});
