/**
 * How busy the machine was during a phase: the CPU time the plane's processes (etcd, the
 * apiservers) and this process (every tenant's function) used, per second of the phase and per
 * core. On 2 cores shared by all of them, a figure near 1 means every request queued for a core,
 * which no engine change removes: it is the bench machine's limit, not the host's or a tenant's.
 */
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';

const TICKS_PER_SECOND = 100;

async function cpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** A reading of the CPU time used so far by the plane and by this process. */
export interface CpuReading {
  atMs: number;
  planeSeconds: number;
  benchSeconds: number;
}

/** Reads the CPU time of `pids` (the plane) and of this process. */
export async function readCpu(pids: readonly number[]): Promise<CpuReading> {
  const plane = await Promise.all(pids.map(cpuSeconds));
  const usage = process.cpuUsage();
  return {
    atMs: Date.now(),
    planeSeconds: plane.reduce((a, b) => a + b, 0),
    benchSeconds: (usage.user + usage.system) / 1e6,
  };
}

/** The share of the machine's cores the plane and the bench used between two readings (0..1). */
export function cpuBusy(before: CpuReading, after: CpuReading) {
  const seconds = (after.atMs - before.atMs) / 1000;
  const cores = availableParallelism();
  const share = (used: number) => Math.round((used / seconds / cores) * 100) / 100;
  return {
    cores,
    plane: share(after.planeSeconds - before.planeSeconds),
    bench: share(after.benchSeconds - before.benchSeconds),
  };
}
