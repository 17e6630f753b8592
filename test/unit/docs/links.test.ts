/**
 * Every relative link of every Markdown file in the repository leads somewhere: the file (or
 * directory) exists, and a `#anchor` into a Markdown file names one of its headings (GitHub's
 * slugs). A moved file or a renamed heading fails here, not in a reader's browser.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SKIP = new Set(['node_modules', '.git', '.tenantplane', 'cdk.out', 'coverage']);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

const anchorsCache = new Map<string, Set<string>>();

/** The anchors of a Markdown file's headings; repeated headings get -1, -2, ... as on GitHub. */
function anchors(file: string): Set<string> {
  let found = anchorsCache.get(file);
  if (found) return found;
  found = new Set<string>();
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1] ?? '');
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  anchorsCache.set(file, found);
  return found;
}

/** The relative link targets of a Markdown text, outside code blocks and code spans. */
function links(text: string): string[] {
  const targets: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      targets.push(match[1] ?? '');
    }
    for (const match of prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)) targets.push(match[1] ?? '');
  }
  return targets.filter((t) => t !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** Why `target`, linked from `file`, leads nowhere; undefined when it resolves. */
function brokenLink(file: string, target: string): string | undefined {
  const [pathPart = '', anchor] = target.split('#');
  const path = pathPart === '' ? file : resolve(dirname(file), decodeURI(pathPart));
  if (!existsSync(path)) return `${target}: ${relative(ROOT, path)} does not exist`;
  if (
    anchor === undefined ||
    anchor === '' ||
    !path.endsWith('.md') ||
    statSync(path).isDirectory()
  )
    return undefined;
  return anchors(path).has(decodeURIComponent(anchor).toLowerCase())
    ? undefined
    : `${target}: ${relative(ROOT, path)} has no heading #${anchor}`;
}

describe('relative links in Markdown', () => {
  const files = markdownFiles(ROOT);

  it('finds the docs', () => {
    expect(files.map((f) => relative(ROOT, f))).toEqual(
      expect.arrayContaining(['README.md', 'docs/cli.md', 'deploy/rbac/README.md']),
    );
  });

  it('checks anchors: a heading that exists passes, one that does not fails', () => {
    const readme = join(ROOT, 'README.md');
    expect(brokenLink(readme, 'docs/cli.md#every-command-and-flag')).toBeUndefined();
    expect(brokenLink(readme, 'docs/cli.md#no-such-heading')).toMatch(/has no heading/);
    expect(brokenLink(readme, 'docs/no-such-file.md')).toMatch(/does not exist/);
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s', (_name, file) => {
    const broken = links(readFileSync(file, 'utf8'))
      .map((target) => brokenLink(file, target))
      .filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });
});
