/**
 * The kubelet gateway on its own: the entry point of its one-file bundle (`npm run
 * build:gateway`, scripts/build-gateway.mjs), which deploy/gateway/ runs on a stock Node.js
 * image. The same command as `tenantplane gateway` (lib/cli/commands/gateway.ts), its flags
 * given directly: `node gateway.mjs --config tenants.yaml --tls-cert ... --tls-key ...`.
 */
import { Command, CommanderError } from 'commander';
import { addGatewayCommand } from './commands/gateway.js';
import { errorLine, exitCodeForError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { processIo, quietOnClosedPipes } from './io.js';

quietOnClosedPipes([process.stdout, process.stderr]);
const io = processIo();
let code: ExitCode = ExitCode.Ok;
const program = new Command('tenantplane')
  .exitOverride()
  .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) });
addGatewayCommand(program, io, (c) => {
  code = c;
});
try {
  await program.parseAsync(['gateway', ...process.argv.slice(2)], { from: 'user' });
} catch (error) {
  if (!(error instanceof CommanderError)) io.err(errorLine(error));
  code = exitCodeForError(error);
}
process.exit(code);
