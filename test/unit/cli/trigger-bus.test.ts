/**
 * `tenantplane trigger` reaches a staged app's bus: `[<stage>-]<eventBusName>` from the config
 * (or `--stage`), as infra/stacks.ts names it; `--event-bus` is taken as given.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { parseTenantsConfig } from '../../../infra/config.js';
import { eventBusNameOf } from '../../../infra/stacks.js';
import { triggerBusName } from '../../../lib/cli/commands/trigger-bus.js';
import { run } from '../../../lib/cli/program.js';
import { captureIo } from '../../fixtures/capture-io.js';

const dir = mkdtempSync(join(tmpdir(), 'tenantplane-trigger-'));
function configFile(name: string, yaml: string): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}
const TENANT =
  '  - {name: dev, schedule: rate(5 minutes), tenantSecretId: t/dev, hostSecretId: h/dev}\n';
const STAGED = `global:\n  stage: prod\ntenants:\n${TENANT}`;
const OWN_BUS = `global:\n  stage: qa\n  eventBusName: sync-requests\ntenants:\n${TENANT}`;
const PLAIN = `tenants:\n${TENANT}`;

describe('the bus trigger puts its event on', () => {
  it.each([
    ['a staged config', { config: configFile('staged.yaml', STAGED) }, 'prod-tenantplane'],
    ['its own bus name and stage', { config: configFile('own.yaml', OWN_BUS) }, 'qa-sync-requests'],
    ['no stage', { config: configFile('plain.yaml', PLAIN) }, 'tenantplane'],
    [
      '--stage over the config',
      { config: configFile('s.yaml', STAGED), stage: 'dev' },
      'dev-tenantplane',
    ],
    ['--event-bus as given', { config: configFile('e.yaml', STAGED), eventBus: 'x' }, 'x'],
  ])('%s', async (_, flags, bus) => {
    expect(await triggerBusName(flags)).toBe(bus);
  });

  it('is the bus the app synthesizes for the same config', async () => {
    for (const [name, yaml] of [
      ['a.yaml', STAGED],
      ['b.yaml', OWN_BUS],
      ['c.yaml', PLAIN],
    ]) {
      expect(await triggerBusName({ config: configFile(name!, yaml!) })).toBe(
        eventBusNameOf(parseTenantsConfig(yaml!)),
      );
    }
  });

  it('refuses a --config that does not exist, naming it', async () => {
    await expect(triggerBusName({ config: join(dir, 'none.yaml') })).rejects.toThrow(
      `${join(dir, 'none.yaml')} does not exist (--config)`,
    );
  });
});

describe('tenantplane trigger on a staged app', () => {
  const eventBridge = mockClient(EventBridgeClient);
  beforeEach(() => {
    eventBridge.reset();
  });

  it('puts the event on <stage>-tenantplane, read from the config', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-1' }] });
    const io = captureIo();
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    const config = configFile('cli.yaml', STAGED);
    expect(
      await run(['trigger', 'dev', '--config', config], io, { eventBridgeClient: client }),
    ).toBe(0);
    expect(io.stdout()).toBe(
      'Requested a sync of tenant cluster "dev" on event bus prod-tenantplane (event id e-1).\n',
    );
    expect(
      eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries?.[0]?.EventBusName,
    ).toBe('prod-tenantplane');
  });

  it('takes --stage with no config at all', async () => {
    eventBridge
      .on(PutEventsCommand)
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e-2' }] });
    const client = new EventBridgeClient({ region: 'eu-west-1' });
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect(
        await run(['trigger', 'dev', '--stage', 'staging'], captureIo(), {
          eventBridgeClient: client,
        }),
      ).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    expect(
      eventBridge.commandCalls(PutEventsCommand)[0]!.args[0].input.Entries?.[0]?.EventBusName,
    ).toBe('staging-tenantplane');
  });
});
