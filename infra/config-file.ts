/** The tenants config read from its file, with an unreadable file said as a config problem. */
import { readFileSync } from 'node:fs';
import { parseTenantsConfig, type TenantsConfig, TenantsConfigError } from './config.js';

/**
 * Reads and validates the tenants config at `path`; throws {@link TenantsConfigError}, also for a
 * file that cannot be read (a raw ENOENT said nothing of which setting names the file).
 */
export function loadTenantsConfig(path: string): TenantsConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new TenantsConfigError(path, [
      code === 'ENOENT'
        ? 'the file does not exist (name another with "cdk synth -c tenantsConfig=<file>")'
        : `the file cannot be read (${typeof code === 'string' ? code : String(error)})`,
    ]);
  }
  return parseTenantsConfig(text, path);
}
