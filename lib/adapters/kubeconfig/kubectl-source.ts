/**
 * Kubeconfig files read the way kubectl reads them: several files (`KUBECONFIG=a:b`) merge in
 * order, the first file to define a cluster, user or context by name wins, the first non-empty
 * `current-context` wins, files of `KUBECONFIG` that do not exist are skipped, and relative
 * certificate, key, token-file and exec-command paths resolve against the file that holds them.
 * Messages name files, never their content: kubeconfigs carry credentials.
 */
import { readFile } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, resolve } from 'node:path';
import { parse, stringify, YAMLParseError } from 'yaml';
import { isRecord } from '../../common/index.js';
import type { ClusterRole, KubeconfigSource, KubeconfigText } from '../../ports/index.js';
import { KubeconfigError, KubeconfigSourceError } from './errors.js';

/** The kubeconfig of one cluster: files merged in order, as kubectl merges `KUBECONFIG`. */
export interface KubeconfigFiles {
  paths: string[];
  /** How the files were named, for messages: `--kubeconfig`, `KUBECONFIG`, `--host-kubeconfig`... */
  via: string;
  /** Skip files that do not exist (kubectl does, for the files of `KUBECONFIG`). */
  skipMissing: boolean;
}

/** One file of a merge: its absolute path and its parsed document (undefined when empty). */
interface ParsedFile {
  path: string;
  doc: Record<string, unknown> | undefined;
}

/** A merged kubeconfig and the origin its messages name. */
export interface MergedKubeconfig {
  doc: Record<string, unknown>;
  origin: string;
}

/** The fields of each entry kind that hold file paths (kubectl's `ResolvePaths`). */
const PATH_FIELDS: Record<string, { body: string; fields: string[] }> = {
  clusters: { body: 'cluster', fields: ['certificate-authority'] },
  users: { body: 'user', fields: ['client-certificate', 'client-key', 'tokenFile'] },
  contexts: { body: 'context', fields: [] },
};

function readProblem(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'file not found';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory, not a file';
  return `cannot be read (${typeof code === 'string' ? code : 'error'})`;
}

function parseFile(path: string, text: string): ParsedFile {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    // The YAML library's message quotes the offending line: keep only its code and position.
    const pos = error instanceof YAMLParseError ? error.linePos?.[0] : undefined;
    const code = error instanceof YAMLParseError ? error.code : 'error';
    const where = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
    throw new KubeconfigError(path, `is not valid YAML (${code}${where})`);
  }
  if (doc === null || doc === undefined) return { path, doc: undefined };
  if (!isRecord(doc)) {
    throw new KubeconfigError(
      path,
      'is not a kubeconfig (expected a YAML mapping with clusters, contexts and users)',
    );
  }
  return { path, doc };
}

/** `entry` with its relative paths resolved against `dir`, as kubectl does. */
function resolvePaths(list: string, entry: Record<string, unknown>, dir: string) {
  const spec = PATH_FIELDS[list];
  const body = spec ? entry[spec.body] : undefined;
  if (!spec || !isRecord(body)) return entry;
  const resolved: Record<string, unknown> = { ...body };
  for (const field of spec.fields) {
    const value = resolved[field];
    if (typeof value === 'string' && value !== '' && !isAbsolute(value)) {
      resolved[field] = resolve(dir, value);
    }
  }
  // An exec command is a path only when it names a directory; `aws` or `gke-...` come from PATH.
  const exec = resolved.exec;
  if (isRecord(exec) && typeof exec.command === 'string' && exec.command.includes('/')) {
    if (!isAbsolute(exec.command)) resolved.exec = { ...exec, command: resolve(dir, exec.command) };
  }
  return { ...entry, [spec.body]: resolved };
}

/** Merges parsed kubeconfigs in order; the first definition of a name wins. */
export function mergeKubeconfigDocs(files: readonly ParsedFile[]): Record<string, unknown> {
  const merged: Record<string, unknown> = { apiVersion: 'v1', kind: 'Config' };
  for (const list of Object.keys(PATH_FIELDS)) {
    const seen = new Set<string>();
    const entries: Record<string, unknown>[] = [];
    for (const { path, doc } of files) {
      const items = doc?.[list];
      if (!Array.isArray(items)) continue;
      for (const item of items) {
        if (!isRecord(item) || typeof item.name !== 'string' || seen.has(item.name)) continue;
        seen.add(item.name);
        entries.push(resolvePaths(list, item, dirname(path)));
      }
    }
    merged[list] = entries;
  }
  const current = files
    .map(({ doc }) => doc?.['current-context'])
    .find((c): c is string => typeof c === 'string' && c !== '');
  if (current !== undefined) merged['current-context'] = current;
  return merged;
}

/**
 * Reads and merges the files of one cluster's kubeconfig.
 * @throws KubeconfigSourceError for a file that cannot be read (or, for `KUBECONFIG`, when none
 *   exists); KubeconfigError for one that is not a kubeconfig.
 */
export async function readKubeconfigFiles(
  role: ClusterRole,
  files: KubeconfigFiles,
): Promise<MergedKubeconfig> {
  const paths = files.paths.map((p) => resolve(p));
  const origin =
    paths.length === 1 ? (paths[0] as string) : `${files.via} (${paths.join(delimiter)})`;
  const parsed: ParsedFile[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const missing = (error as { code?: unknown }).code === 'ENOENT';
      if (missing && files.skipMissing) continue;
      const problem = `${readProblem(error)}${files.via === '~/.kube/config' ? ' (no --kubeconfig given and KUBECONFIG is not set)' : ''}`;
      throw new KubeconfigSourceError(role, path, problem, { cause: error });
    }
    parsed.push(parseFile(path, text));
  }
  if (parsed.length === 0) {
    const problem = paths.length === 1 ? 'file not found' : 'none of its files exist';
    throw new KubeconfigSourceError(role, origin, `${problem} (named by ${files.via})`);
  }
  if (paths.length === 1 && parsed[0]?.doc === undefined) {
    throw new KubeconfigSourceError(role, origin, 'file is empty');
  }
  return { doc: mergeKubeconfigDocs(parsed), origin };
}

/**
 * Kubeconfigs of `--kubeconfig`, `KUBECONFIG` or `~/.kube/config`, possibly one file set for both
 * clusters told apart by their contexts. A tenant that would use the host's own context is
 * refused: a pass would then copy the host into itself.
 */
export class KubectlKubeconfigSource implements KubeconfigSource {
  private readonly merged = new Map<KubeconfigFiles, Promise<MergedKubeconfig>>();

  /**
   * @param files each cluster's files (the same object for both when one kubeconfig holds both)
   * @param contexts the contexts the flags name per cluster, if any
   */
  constructor(
    private readonly files: Record<ClusterRole, KubeconfigFiles>,
    private readonly contexts: Record<ClusterRole, string | undefined>,
  ) {}

  private read(role: ClusterRole): Promise<MergedKubeconfig> {
    const files = this.files[role];
    let merged = this.merged.get(files);
    if (!merged) {
      merged = readKubeconfigFiles(role, files);
      this.merged.set(files, merged);
    }
    return merged;
  }

  async load(role: ClusterRole): Promise<KubeconfigText> {
    const { doc, origin } = await this.read(role);
    if (role === 'tenant' && this.files.tenant === this.files.host) {
      const current = doc['current-context'] as string | undefined;
      const tenant = this.contexts.tenant ?? current;
      if (tenant !== undefined && tenant === (this.contexts.host ?? current)) {
        throw new KubeconfigError(
          origin,
          `would serve the tenant and the host from the same context ${JSON.stringify(tenant)}; name each with --tenant-context and --host-context`,
        );
      }
    }
    // YAML 1.1 quoting keeps every string a string for the client library's parser too.
    return { text: stringify(doc, { lineWidth: 0, version: '1.1' }), origin };
  }
}
