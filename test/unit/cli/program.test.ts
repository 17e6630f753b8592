import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { run } from '../../../lib/cli/program.js';
import { captureIo } from '../../fixtures/capture-io.js';

describe('tenantplane (in-process)', () => {
  it('prints help with examples and exit codes, exit 0', async () => {
    const io = captureIo();
    expect(await run(['--help'], io)).toBe(0);
    const help = io.stdout();
    for (const command of ['sync', 'plan', 'explain', 'status', 'name', 'trigger', 'version']) {
      expect(help).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
    expect(help).toContain('Examples:');
    expect(help).toMatch(/Exit status:[\s\S]*0 {2}complete pass[\s\S]*3 {2}incomplete pass/);
  });

  it.each(['sync', 'plan', 'explain', 'status', 'name', 'trigger', 'version'])(
    '%s --help has examples',
    async (command) => {
      const io = captureIo();
      expect(await run([command, '--help'], io)).toBe(0);
      expect(io.stdout()).toContain(`Usage: tenantplane ${command}`);
      expect(io.stdout()).toContain(`$ tenantplane ${command}`);
    },
  );

  it.each(['sync', 'plan', 'trigger'])('%s --help documents --full', async (command) => {
    const io = captureIo();
    expect(await run([command, '--help'], io)).toBe(0);
    // commander wraps the help to the terminal width: compare with the whitespace collapsed.
    expect(io.stdout().replace(/\s+/g, ' ')).toContain(
      '--full list every kind in full on both sides (no resume), and repair host drift now',
    );
    expect(io.stdout()).toContain(`$ tenantplane ${command} dev --full`);
  });

  it('refuses an unknown flag with exit 2 and one clear line', async () => {
    const io = captureIo();
    expect(await run(['sync', 'dev', '--bogus'], io)).toBe(2);
    expect(io.stderr()).toMatch(/^error: unknown option '--bogus'/);
    expect(io.stdout()).toBe('');
  });

  it.each([
    [['sync'], /missing required argument 'tenant'/],
    [['sync', 'dev', 'extra'], /too many arguments/],
    [['sync', 'dev', '--deadline', '30'], /--deadline: invalid duration "30"/],
    [['plan', 'dev', '--max-writes', '-1'], /--max-writes/],
    [['sync', 'dev', '-o', 'xml'], /argument 'xml' is invalid/],
    [['sync', 'Not_A_Name'], /invalid tenant cluster name/],
    [['sync', 'dev', '--host-kubeconfig', 'h.yaml'], /go together/],
    [['explain', 'no-slash'], /<host-namespace>\/<host-name>/],
    [['explain', 'ns/x', '--kind', 'Widget'], /--api-version/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['name', 'a', 'b'], /missing required argument 'tenant'/],
    // name checks the tenant as sync does: no host names for a tenant that cannot exist.
    [['name', 'nginx', 'default', 'Not_A_Name'], /invalid tenant cluster name "Not_A_Name"/],
    [['name', 'nginx', 'default', 'a'.repeat(64)], /invalid tenant cluster name/],
    [['name', 'nginx', 'default', 'dev-'], /invalid tenant cluster name/],
  ])('%j is bad usage (exit 2)', async (argv, message) => {
    const io = captureIo();
    expect(await run(argv, io)).toBe(2);
    expect(io.stderr()).toMatch(message);
    expect(io.stderr()).not.toMatch(/\n\s+at /);
  });

  it('prints a host name', async () => {
    const io = captureIo();
    expect(await run(['name', 'nginx', 'default', 'dev'], io)).toBe(0);
    expect(io.stdout()).toBe('nginx-x-default-x-dev\n');
  });

  it('version: the package version, commit, Node.js and supported Kubernetes versions', async () => {
    const { version } = JSON.parse(
      readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    const io = captureIo();
    expect(await run(['version'], io)).toBe(0);
    const commit = execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=12'], {
      encoding: 'utf8',
    }).trim();
    expect(io.stdout()).toBe(
      `tenantplane ${version}\ncommit:     ${commit}\nnode:       ${process.version}\nkubernetes: 1.36 to 1.37 (tenant and host clusters; local control plane v1.37.2)\n`,
    );
    const json = captureIo();
    expect(await run(['version', '-o', 'json'], json)).toBe(0);
    expect(JSON.parse(json.stdout())).toEqual({
      version,
      commit,
      node: process.version,
      kubernetes: { min: '1.36', max: '1.37', localControlPlane: 'v1.37.2' },
    });
  });

  it('prints the version', async () => {
    const io = captureIo();
    expect(await run(['--version'], io)).toBe(0);
    expect(io.stdout()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('tenantplane trigger', () => {
  const eventBridge = mockClient(EventBridgeClient);
  beforeEach(() => {
    eventBridge.reset();
  });

  it('puts a SyncRequested event and prints its id', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-9' }] });
    const io = captureIo();
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    expect(
      await run(['trigger', 'dev', '--event-bus', 'tp-prod', '--dry-run'], io, {
        eventBridgeClient: client,
      }),
    ).toBe(0);
    expect(io.stdout()).toBe(
      'Requested a dry-run sync of tenant cluster "dev" on event bus tp-prod (event id e-9).\n',
    );
    const input = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input;
    expect(input.Entries?.[0]).toMatchObject({
      EventBusName: 'tp-prod',
      Detail: '{"tenant":"dev","dryRun":true}',
    });
  });

  it('--full asks the function for a full pass: {"full": true} in the event', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-10' }] });
    const io = captureIo();
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    expect(await run(['trigger', 'dev', '--full'], io, { eventBridgeClient: client })).toBe(0);
    expect(io.stdout()).toBe(
      'Requested a full sync of tenant cluster "dev" on event bus tenantplane (event id e-10).\n',
    );
    const input = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input;
    expect(JSON.parse(input.Entries![0]!.Detail!)).toEqual({ tenant: 'dev', full: true });
  });

  it('sends no full field without --full', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-11' }] });
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    expect(await run(['trigger', 'dev'], captureIo(), { eventBridgeClient: client })).toBe(0);
    const input = eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input;
    expect(JSON.parse(input.Entries![0]!.Detail!)).toEqual({ tenant: 'dev' });
  });

  it('fails with exit 1 and one line when the bus refuses', async () => {
    eventBridge.on(PutEventsCommand).rejects(new Error('AccessDenied: not allowed'));
    const io = captureIo();
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    expect(await run(['trigger', 'dev'], io, { eventBridgeClient: client })).toBe(1);
    expect(io.stderr()).toBe(
      'error: could not put SyncRequested for tenant dev on event bus tenantplane: AccessDenied: not allowed\n',
    );
  });
});
