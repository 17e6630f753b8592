/**
 * The bus `tenantplane trigger` puts its event on, named as the app names it: the config's
 * `global.eventBusName` (default `tenantplane`) prefixed with its `global.stage` (`prod-tenantplane`),
 * so a staged app is reached without the operator spelling the prefix out.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { isRecord } from '../../common/index.js';
import { UsageError } from '../errors.js';

/** The bus without a stage or a config naming another (infra/config.ts's default). */
export const DEFAULT_BUS = 'tenantplane';

/** The config `trigger` reads by default, as `cdk synth` does. */
export const DEFAULT_TRIGGER_CONFIG = 'config/tenants.yaml';

export interface TriggerBusFlags {
  /** The whole bus name: taken as given, no stage added. */
  eventBus?: string;
  /** The stage, over the config's `global.stage`. */
  stage?: string;
  /** The config to read `global.stage` and `global.eventBusName` from. */
  config?: string;
}

/** `global.stage` and `global.eventBusName` of the YAML text, as far as they are strings. */
export function busSettings(text: string): { stage?: string; eventBusName?: string } {
  const doc: unknown = parse(text);
  const global = isRecord(doc) && isRecord(doc.global) ? doc.global : {};
  const pick = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const stage = pick(global.stage);
  const eventBusName = pick(global.eventBusName);
  return { ...(stage ? { stage } : {}), ...(eventBusName ? { eventBusName } : {}) };
}

/**
 * `--event-bus` as given; else `[<stage>-]<eventBusName>` from `--stage` and the config
 * (`--config`, or config/tenants.yaml when it exists). A `--config` that is missing or not YAML
 * is a usage error naming the file: a guessed bus would take the event nowhere, silently.
 */
export async function triggerBusName(flags: TriggerBusFlags): Promise<string> {
  if (flags.eventBus !== undefined) return flags.eventBus;
  const path = flags.config ?? DEFAULT_TRIGGER_CONFIG;
  let settings: { stage?: string; eventBusName?: string } = {};
  if (existsSync(path)) {
    try {
      settings = busSettings(await readFile(path, 'utf8'));
    } catch (error) {
      throw new UsageError(`${path}: not YAML (${(error as Error).message.split('\n')[0]})`);
    }
  } else if (flags.config !== undefined) {
    throw new UsageError(`${path} does not exist (--config): give the app's tenants.yaml`);
  }
  const stage = flags.stage ?? settings.stage;
  const bus = settings.eventBusName ?? DEFAULT_BUS;
  return stage ? `${stage}-${bus}` : bus;
}
