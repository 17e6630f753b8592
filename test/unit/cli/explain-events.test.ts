import { describe, expect, it } from '@jest/globals';
import { eventMentions, eventView } from '../../../lib/adapters/events/index.js';
import type { Explanation } from '../../../lib/cli/commands/explain/gather.js';
import { kindRefFor, parseHostRef } from '../../../lib/cli/commands/explain/index.js';
import { explanationText } from '../../../lib/cli/commands/explain/render.js';
import { UsageError } from '../../../lib/cli/errors.js';
import { age, eventTable } from '../../../lib/cli/event-table.js';

const hostRef = { namespace: 'tenant-dev', name: 'app-x-default-x-dev' };

describe('parseHostRef', () => {
  it('splits namespace/name', () => {
    expect(parseHostRef('tenant-dev/app')).toEqual({ namespace: 'tenant-dev', name: 'app' });
  });
  it.each(['app', '/app', 'ns/', 'a/b/c', ''])('refuses %j', (text) => {
    expect(() => parseHostRef(text)).toThrow(UsageError);
  });
});

describe('kindRefFor', () => {
  it('knows common kinds and takes --api-version for the rest', () => {
    expect(kindRefFor('ConfigMap', undefined)).toEqual({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(kindRefFor('Deployment', undefined)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
    });
    expect(kindRefFor('Widget', 'example.com/v1')).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
    });
    expect(() => kindRefFor('Widget', undefined)).toThrow(/--api-version/);
    expect(() => kindRefFor('config map', undefined)).toThrow(UsageError);
  });
});

describe('eventView', () => {
  it('reads count and the latest time from any of the Event time fields', () => {
    const base = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' } };
    expect(
      eventView({
        ...base,
        type: 'Warning',
        reason: 'Delete',
        message: 'm',
        count: 4,
        lastTimestamp: '2030-01-01T00:00:00Z',
      }),
    ).toMatchObject({
      type: 'Warning',
      reason: 'Delete',
      message: 'm',
      count: 4,
      lastSeen: '2030-01-01T00:00:00Z',
    });
    expect(
      eventView({
        ...base,
        eventTime: '2030-01-02T00:00:00.000000Z',
        series: { count: 7, lastObservedTime: '2030-01-03T00:00:00.000000Z' },
      }),
    ).toMatchObject({ count: 7, lastSeen: '2030-01-03T00:00:00.000000Z', type: 'Normal' });
  });
});

describe('eventMentions', () => {
  const view = (message: string, annotations: Record<string, string> = {}) => ({
    type: 'Normal',
    reason: 'Create',
    message,
    count: 1,
    lastSeen: '',
    annotations,
  });

  it('matches the host object named in the message, not a longer name', () => {
    expect(
      eventMentions(view('created host ConfigMap tenant-dev/app-x-default-x-dev from x'), hostRef),
    ).toBe(true);
    expect(eventMentions(view('host tenant-dev/app-x-default-x-dev.'), hostRef)).toBe(true);
    expect(eventMentions(view('host tenant-dev/app-x-default-x-dev-2 created'), hostRef)).toBe(
      false,
    );
    expect(eventMentions(view('host other/app-x-default-x-dev'), hostRef)).toBe(false);
  });

  it('prefers the host-ref annotation of the Events sink', () => {
    expect(
      eventMentions(
        view('no ref', { 'tenantplane.io/host-ref': 'tenant-dev/app-x-default-x-dev' }),
        hostRef,
      ),
    ).toBe(true);
    expect(
      eventMentions(
        view('-> host tenant-dev/app-x-default-x-dev: x', {
          'tenantplane.io/host-ref': 'tenant-dev/other',
        }),
        hostRef,
      ),
    ).toBe(false);
  });

  it('matches by kind and name: a Service of the same host name is another object', () => {
    const about = (kind: string) =>
      view(`${kind} shop/web -> host tenant-dev/app-x-default-x-dev: created`, {
        'tenantplane.io/host-ref': 'tenant-dev/app-x-default-x-dev',
        'tenantplane.io/kind': kind,
      });
    expect(eventMentions(about('Pod'), hostRef, 'Pod')).toBe(true);
    expect(eventMentions(about('Service'), hostRef, 'Pod')).toBe(false);
    // An Event without the kind annotation is judged by its name alone.
    expect(eventMentions(view('host tenant-dev/app-x-default-x-dev.'), hostRef, 'Pod')).toBe(true);
  });

  it('reads the message of the Events sink', () => {
    expect(
      eventMentions(
        view('ConfigMap default/app -> host tenant-dev/app-x-default-x-dev: created'),
        hostRef,
      ),
    ).toBe(true);
  });
});

describe('age and eventTable', () => {
  const now = Date.parse('2030-01-01T12:00:00Z');
  it('reads like kubectl', () => {
    expect(age('2030-01-01T11:59:30Z', now)).toBe('30s');
    expect(age('2030-01-01T11:30:00Z', now)).toBe('30m');
    expect(age('2030-01-01T02:00:00Z', now)).toBe('10h');
    expect(age('2029-12-25T12:00:00Z', now)).toBe('7d');
    expect(age('', now)).toBe('<unknown>');
    const table = eventTable(
      [
        {
          type: 'Normal',
          reason: 'Create',
          message: 'hello',
          count: 2,
          lastSeen: '2030-01-01T11:59:00Z',
          annotations: {},
        },
      ],
      now,
    );
    expect(table.split('\n')[1]).toMatch(/^60s\s+Normal\s+Create\s+2\s+hello$/);
  });
});

describe('explanationText', () => {
  const now = Date.parse('2030-01-01T12:00:00Z');
  const managed: Explanation = {
    host: { apiVersion: 'v1', kind: 'ConfigMap', ...hostRef },
    managed: true,
    source: {
      tenant: 'dev',
      kind: 'ConfigMap',
      virtualNamespace: 'default',
      virtualName: 'app',
      virtualUid: 'u-1',
      exists: true,
      currentUid: 'u-1',
    },
    rule: {
      index: 0,
      rule: { apiVersion: 'v1', kind: 'ConfigMap', exclude: { names: ['x'] } },
      excludesSource: false,
    },
    hostNamespaceOfPolicy: 'tenant-dev',
    decisions: [],
  };

  it('names the source, its existence, the rule and says when no decision is recorded', () => {
    const text = explanationText(managed, now);
    expect(text).toContain('ConfigMap tenant-dev/app-x-default-x-dev (managed by tenantplane)');
    expect(text).toContain('ConfigMap default/app (uid u-1)');
    expect(text).toContain('yes, on the tenant cluster');
    expect(text).toContain(
      'spec.toHost[0] {apiVersion: v1, kind: ConfigMap, exclude names [x]} of TenantCluster dev',
    );
    expect(text).toContain('Latest decisions: none recorded');
  });

  it('says when the source is gone or the rule is missing', () => {
    const { rule: _rule, ...noRule } = managed;
    const text = explanationText(
      {
        ...noRule,
        source: { ...managed.source!, exists: false },
        ruleProblem: 'the sync policy no longer lists ConfigMap',
      },
      now,
    );
    expect(text).toContain('no: the source is gone');
    expect(text).toContain('none: the sync policy no longer lists ConfigMap');
  });

  it('says plainly when the object is not managed', () => {
    expect(
      explanationText(
        {
          host: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'x' },
          managed: false,
          notManagedReason: 'it has no app.kubernetes.io/managed-by=tenantplane label',
          decisions: [],
        },
        now,
      ),
    ).toBe(
      'ConfigMap ns/x is not managed by tenantplane: it has no app.kubernetes.io/managed-by=tenantplane label. No pass creates, updates or deletes it.\n',
    );
  });
});
