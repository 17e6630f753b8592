/**
 * Scale: 300 tenants synthesize into stacks that all stay far below CloudFormation's
 * 500-resource limit, each tenant exactly once, with one shared handler asset.
 */
import { describe, expect, it } from '@jest/globals';
import {
  DEFAULT_MAX_RESOURCES_PER_STACK,
  RESOURCES_PER_TENANT,
  SHARED_STACK_NAME,
  TENANT_STACK_PREFIX,
  tenantsPerStack,
} from '../../infra/stacks.js';
import { handlerBundleDir, manyTenants, synth } from './support.js';

interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

describe('sharding', () => {
  it('packs as many tenants per stack as fit under the ceiling', () => {
    expect(tenantsPerStack()).toBe(21);
    expect(tenantsPerStack() * RESOURCES_PER_TENANT).toBeLessThanOrEqual(
      DEFAULT_MAX_RESOURCES_PER_STACK,
    );
    expect(tenantsPerStack(100)).toBe(5);
    expect(tenantsPerStack(1)).toBe(1);
  });

  it('synthesizes 300 tenants into stacks of fewer than 500 resources, every tenant once', async () => {
    const config = manyTenants(300);
    const bundleDir = await handlerBundleDir();
    const started = performance.now();
    const { app, tp } = synth(config, { bundleDir });
    const assembly = app.synth();
    const seconds = (performance.now() - started) / 1000;

    expect(tp.shards).toHaveLength(Math.ceil(300 / tenantsPerStack()));
    const seen = new Map<string, string>();
    const assets = new Set<string>();
    for (const stack of assembly.stacks) {
      const resources = Object.values((stack.template as CfnTemplate).Resources);
      expect(resources.length).toBeLessThan(500);
      expect(resources.length).toBeLessThanOrEqual(DEFAULT_MAX_RESOURCES_PER_STACK);
      if (stack.stackName === SHARED_STACK_NAME) continue;
      expect(stack.stackName).toMatch(new RegExp(`^${TENANT_STACK_PREFIX}\\d+$`));
      expect(stack.dependencies.map((d) => d.id)).toContain(SHARED_STACK_NAME);
      for (const r of resources.filter((r) => r.Type === 'AWS::Lambda::Function')) {
        const env = (r.Properties!.Environment as { Variables: Record<string, string> }).Variables;
        const tenant = env.TENANT!;
        expect(seen.has(tenant)).toBe(false);
        seen.set(tenant, stack.stackName);
        assets.add(JSON.stringify((r.Properties!.Code as { S3Key: unknown }).S3Key));
      }
    }
    expect([...seen.keys()].sort()).toEqual(config.tenants.map((t) => t.name).sort());
    expect(assets.size).toBe(1);
    // Config order: the first 21 tenants are in stack 1, the last ones in the last stack.
    expect(seen.get('tenant-0')).toBe(`${TENANT_STACK_PREFIX}1`);
    expect(seen.get('tenant-20')).toBe(`${TENANT_STACK_PREFIX}1`);
    expect(seen.get('tenant-21')).toBe(`${TENANT_STACK_PREFIX}2`);
    expect(seen.get('tenant-299')).toBe(`${TENANT_STACK_PREFIX}${tp.shards.length}`);
    process.stdout.write(
      `300 tenants: ${tp.shards.length} tenant stacks, synthesized in ${seconds.toFixed(1)} s\n`,
    );
  });

  it('keeps existing tenants in their stacks when a tenant is appended', async () => {
    const bundleDir = await handlerBundleDir();
    const before = synth(manyTenants(42), { bundleDir }).tp;
    const after = synth(manyTenants(43), { bundleDir }).tp;
    for (const [i, shard] of before.shards.entries())
      expect([...after.shards[i]!.tenants.keys()].slice(0, shard.tenants.size)).toEqual([
        ...shard.tenants.keys(),
      ]);
    expect(after.shards).toHaveLength(3);
  });
});
