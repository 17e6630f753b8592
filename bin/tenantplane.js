#!/usr/bin/env node
// The `tenantplane` command: registers tsx so the TypeScript sources run as they are, then starts
// lib/cli/main.ts.
import { register } from 'tsx/esm/api';

register();
await import(new URL('../lib/cli/main.ts', import.meta.url).href);
