/**
 * Loads a kubeconfig text into a `KubeConfig` of `@kubernetes/client-node`, after checking what the
 * cluster client needs: a context (the requested one, else `current-context`, else the only one)
 * whose cluster has a server URL and whose user is defined. Every failure is a
 * {@link KubeconfigError} whose message never quotes the content.
 */
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { load, YAMLException } from 'js-yaml';
import { isRecord } from '../../common/index.js';
import type { KubeconfigText } from '../../ports/index.js';
import { KubeconfigError } from './errors.js';

export interface LoadedKubeconfig {
  kubeConfig: KubeConfig;
  /** The context in use. */
  context: string;
  /** The API server URL of that context's cluster, without a trailing slash. */
  server: string;
}

type Entry = { name: string; body: Record<string, unknown> };

/** `[{name, <field>: {...}}]` entries with a string name; anything else is ignored. */
function entries(list: unknown, field: string): Entry[] {
  if (!Array.isArray(list)) return [];
  const out: Entry[] = [];
  for (const item of list) {
    if (isRecord(item) && typeof item.name === 'string' && item.name !== '') {
      out.push({ name: item.name, body: isRecord(item[field]) ? item[field] : {} });
    }
  }
  return out;
}

function quoteList(names: string[]): string {
  return names.map((n) => JSON.stringify(n)).join(', ');
}

/**
 * Parses with js-yaml, the parser `KubeConfig.loadFromString` uses, so this check and the loader
 * read the same document.
 */
function parseYaml(kubeconfig: KubeconfigText): unknown {
  try {
    return load(kubeconfig.text);
  } catch (error) {
    // The parser's message quotes the offending line, and some reasons quote a tag or an alias:
    // keep the reason up to the first quoted part, and the position.
    if (error instanceof YAMLException) {
      const reason = error.reason.split(/"| !|: /, 1)[0]!.trim();
      const where = error.mark
        ? ` at line ${error.mark.line + 1}, column ${error.mark.column + 1}`
        : '';
      throw new KubeconfigError(kubeconfig.origin, `is not valid YAML (${reason}${where})`);
    }
    throw new KubeconfigError(kubeconfig.origin, 'is not valid YAML');
  }
}

/**
 * Validates `kubeconfig` and loads it, selecting `context` (or the kubeconfig's current context).
 * @throws KubeconfigError naming `kubeconfig.origin` and the problem.
 */
export function loadKubeconfig(kubeconfig: KubeconfigText, context?: string): LoadedKubeconfig {
  const origin = kubeconfig.origin;
  if (kubeconfig.text.trim() === '') throw new KubeconfigError(origin, 'is empty');
  const doc = parseYaml(kubeconfig);
  if (!isRecord(doc)) {
    throw new KubeconfigError(
      origin,
      'is not a kubeconfig (expected a YAML mapping with clusters, contexts and users)',
    );
  }
  const contexts = entries(doc.contexts, 'context');
  const clusters = entries(doc.clusters, 'cluster');
  const users = entries(doc.users, 'user');
  if (contexts.length === 0) throw new KubeconfigError(origin, 'has no contexts');

  const names = contexts.map((c) => c.name);
  let chosen: string;
  if (context !== undefined && context !== '') {
    if (!names.includes(context)) {
      throw new KubeconfigError(
        origin,
        `has no context ${JSON.stringify(context)} (contexts: ${quoteList(names)})`,
      );
    }
    chosen = context;
  } else if (typeof doc['current-context'] === 'string' && doc['current-context'] !== '') {
    chosen = doc['current-context'];
    if (!names.includes(chosen)) {
      throw new KubeconfigError(
        origin,
        `current-context ${JSON.stringify(chosen)} names no context (contexts: ${quoteList(names)})`,
      );
    }
  } else if (contexts.length === 1 && contexts[0]) {
    chosen = contexts[0].name;
  } else {
    throw new KubeconfigError(
      origin,
      `has no current-context and ${contexts.length} contexts (${quoteList(names)}); choose one with --context`,
    );
  }

  const ctx = contexts.find((c) => c.name === chosen)!;
  const q = JSON.stringify(chosen);
  const clusterName = ctx.body.cluster;
  if (typeof clusterName !== 'string' || clusterName === '') {
    throw new KubeconfigError(origin, `context ${q} names no cluster`);
  }
  const cluster = clusters.find((c) => c.name === clusterName);
  if (!cluster) {
    throw new KubeconfigError(
      origin,
      `context ${q} names cluster ${JSON.stringify(clusterName)}, which is not defined`,
    );
  }
  const server = cluster.body.server;
  if (typeof server !== 'string' || server.trim() === '') {
    throw new KubeconfigError(origin, `cluster ${JSON.stringify(clusterName)} has no server`);
  }
  if (!URL.canParse(server)) {
    throw new KubeconfigError(
      origin,
      `cluster ${JSON.stringify(clusterName)} has a server that is not a URL`,
    );
  }
  const userName = ctx.body.user;
  if (typeof userName !== 'string' || userName === '') {
    throw new KubeconfigError(origin, `context ${q} names no user`);
  }
  if (!users.some((u) => u.name === userName)) {
    throw new KubeconfigError(
      origin,
      `context ${q} names user ${JSON.stringify(userName)}, which is not defined`,
    );
  }

  const kubeConfig = new KubeConfig();
  try {
    // Entries other than the chosen context's may be incomplete; they are irrelevant here.
    kubeConfig.loadFromString(kubeconfig.text, { onInvalidEntry: 'filter' });
    kubeConfig.setCurrentContext(chosen);
  } catch (error) {
    // Never relay the loader's message: YAML parsers quote content.
    const name = error instanceof Error ? error.name : 'error';
    throw new KubeconfigError(origin, `could not be loaded (${name})`);
  }
  if (!kubeConfig.getCurrentCluster() || !kubeConfig.getCurrentUser()) {
    throw new KubeconfigError(origin, `context ${q} could not be loaded`);
  }
  return { kubeConfig, context: chosen, server: server.trim().replace(/\/+$/, '') };
}

/** The PEM CA of the kubeconfig's current cluster (inline or from its file), when it names one. */
export function certificateAuthorityOf(kubeConfig: KubeConfig): string | undefined {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster?.caData) return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (cluster?.caFile) {
    try {
      return readFileSync(cluster.caFile, 'utf8');
    } catch {
      return undefined; // the client fails on its own when it cannot read it
    }
  }
  return undefined;
}
