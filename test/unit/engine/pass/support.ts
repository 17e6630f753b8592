/** Builders shared by the pass tests in this folder. */
import type { KubeObject } from '../../../../lib/ports/index.js';
import { cm } from '../support.js';

/** `n` ConfigMaps `cm-000`, `cm-001`, ... in namespace `ns`, in name order. */
export const many = (n: number, ns = 'default'): KubeObject[] =>
  Array.from({ length: n }, (_, i) => cm(ns, `cm-${String(i).padStart(3, '0')}`));
