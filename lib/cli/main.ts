/** Entry point of the `tenantplane` command (see bin/tenantplane.js). */
import { quietOnClosedPipes } from './io.js';
import { run } from './program.js';

quietOnClosedPipes([process.stdout, process.stderr]);

const code = await run(process.argv.slice(2));
// Connections are closed by the commands; exit explicitly so a stray handle cannot hold the
// terminal. A large output to a pipe that is full is still queued: exiting before it drains
// would cut it (a long `status -o yaml` was), so the exit waits for both streams to flush.
await Promise.all(
  [process.stdout, process.stderr].map(
    (stream) => new Promise<void>((resolve) => stream.write('', () => resolve())),
  ),
);
process.exit(code);
