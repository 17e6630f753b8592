import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ClusterRole, KubeconfigSource, KubeconfigText } from '../../ports/index.js';
import { KubeconfigSourceError } from './errors.js';

export interface FileKubeconfigSourceOptions {
  tenantPath: string;
  hostPath: string;
}

/** Kubeconfigs from files (the CLI's `--tenant-kubeconfig` / `--host-kubeconfig`). */
export class FileKubeconfigSource implements KubeconfigSource {
  private readonly paths: Record<ClusterRole, string>;

  constructor(options: FileKubeconfigSourceOptions) {
    this.paths = { tenant: options.tenantPath, host: options.hostPath };
  }

  async load(role: ClusterRole): Promise<KubeconfigText> {
    const path = this.paths[role];
    if (!path) throw new KubeconfigSourceError(role, '(no path)', 'no kubeconfig file was given');
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const problem =
        code === 'ENOENT'
          ? 'file not found'
          : code === 'EACCES' || code === 'EPERM'
            ? 'permission denied'
            : code === 'EISDIR'
              ? 'is a directory, not a file'
              : `cannot be read (${typeof code === 'string' ? code : 'error'})`;
      throw new KubeconfigSourceError(role, resolve(path), problem, { cause: error });
    }
    if (text.trim() === '') throw new KubeconfigSourceError(role, resolve(path), 'file is empty');
    return { text, origin: resolve(path) };
  }
}
