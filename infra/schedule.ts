/**
 * What a tenant's schedule expression implies for the fleet: how often it fires (the longest gap
 * between two ticks), how wide a flexible window spreads its ticks, and the period of its
 * heartbeat alarm. Pure functions of the expression, so config validation and the constructs
 * agree.
 */

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const MINUTES_PER = { minute: 1, hour: 60, day: 1440 } as const;

/** The widest flexible window EventBridge Scheduler spreads a tick over by default (minutes). */
export const MAX_DEFAULT_WINDOW_MINUTES = 15;

/** Values of one cron field (`*`, `n`, `a-b`, `a/n`, `*\/n`, lists of those) within [lo, hi]. */
function cronValues(field: string, lo: number, hi: number): number[] | undefined {
  const values = new Set<number>();
  for (const part of field.split(',')) {
    const m = /^(\*|\d+)(?:-(\d+))?(?:\/(\d+))?$/.exec(part);
    if (!m) return undefined;
    const start = m[1] === '*' ? lo : Number(m[1]);
    const end = m[2] !== undefined ? Number(m[2]) : m[1] === '*' || m[3] ? hi : start;
    const step = m[3] !== undefined ? Number(m[3]) : 1;
    if (step < 1 || start < lo || end > hi || start > end) return undefined;
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return [...values].sort((a, b) => a - b);
}

/**
 * The longest gap between two ticks of `expression`, in minutes; undefined for a cron that fires
 * on some days only (day of month, day of week, month or year set), whose gap the heartbeat
 * cannot tell (`heartbeatMinutes` says it).
 */
export function scheduleIntervalMinutes(expression: string): number | undefined {
  const rate = RATE.exec(expression);
  if (rate) return Number(rate[1]) * MINUTES_PER[rate[2]!.replace(/s$/, '') as 'minute'];
  const cron = /^cron\((.*)\)$/.exec(expression);
  if (!cron) return undefined;
  const [minute, hour, dom, month, dow, year] = cron[1]!.trim().split(/\s+/);
  const everyDay = (f: string | undefined) => f === '*' || f === '?';
  if (!everyDay(dom) || !everyDay(dow) || month !== '*' || (year !== undefined && year !== '*'))
    return undefined;
  const minutes = cronValues(minute!, 0, 59);
  const hours = cronValues(hour!, 0, 23);
  if (!minutes?.length || !hours?.length) return undefined;
  const ticks = hours.flatMap((h) => minutes.map((m) => h * 60 + m));
  // The gap across midnight counts too: the last tick of a day to the first of the next.
  return Math.max(...ticks.map((t, i) => (ticks[i + 1] ?? ticks[0]! + 1440) - t));
}

/**
 * The flexible window of a tenant's schedule: `configured` when set (0 turns spreading off),
 * else half the interval, from 1 to {@link MAX_DEFAULT_WINDOW_MINUTES} minutes, so tenants on
 * one rate do not all call the host in the same second and a tick still comes before the next.
 */
export function scheduleWindowMinutes(expression: string, configured?: number): number {
  if (configured !== undefined) return configured;
  const interval = scheduleIntervalMinutes(expression) ?? MAX_DEFAULT_WINDOW_MINUTES * 2;
  return Math.max(1, Math.min(MAX_DEFAULT_WINDOW_MINUTES, Math.floor(interval / 2)));
}

/**
 * The heartbeat alarm's period, in minutes: the longest of the schedule's interval (with its
 * window), the function timeout (a pass's metrics are published when its invocation ends, a
 * follow's up to the timeout after its tick) and the alarms' period. `heartbeatMinutes` (the
 * period the operator chose for a schedule whose gap cannot be told) replaces the interval and
 * its window; undefined when neither it nor the schedule tells the interval.
 */
export function heartbeatPeriodMinutes(options: {
  schedule: string;
  heartbeatMinutes?: number | undefined;
  windowMinutes: number;
  timeoutSeconds: number;
  alarmPeriodMinutes: number;
}): number | undefined {
  const interval = options.heartbeatMinutes ?? scheduleIntervalMinutes(options.schedule);
  if (interval === undefined) return undefined;
  return Math.max(
    interval + (options.heartbeatMinutes === undefined ? options.windowMinutes : 0),
    Math.ceil(options.timeoutSeconds / 60),
    options.alarmPeriodMinutes,
  );
}

/**
 * The longest a CloudWatch alarm looks back (period × evaluation periods), in minutes: one day
 * for periods under an hour, seven days otherwise.
 */
export function maxAlarmWindowMinutes(periodMinutes: number): number {
  return periodMinutes < 60 ? 1440 : 10_080;
}
