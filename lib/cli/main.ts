/** Entry point of the `tenantplane` command (see bin/tenantplane.js). */
import { run } from './program.js';

const code = await run(process.argv.slice(2));
// Connections are closed by the commands; exit explicitly so a stray handle cannot hold the
// terminal. stdout/stderr writes are synchronous for files, pipes and terminals on POSIX.
process.exit(code);
