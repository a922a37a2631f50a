/**
 * `npm run sandbox`: the sandbox upstream alone, on 127.0.0.1:$SANDBOX_PORT (default 4010;
 * `0` picks a free port). Stops cleanly on SIGINT/SIGTERM.
 */
import { createSandbox } from './server.ts';

const DEFAULT_PORT = 4010;

function portFromEnv(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`SANDBOX_PORT must be an integer between 0 and 65535, got '${raw}'`);
  }
  return port;
}

async function main(): Promise<void> {
  const port = portFromEnv(process.env.SANDBOX_PORT);
  const sandbox = await createSandbox({ port });

  console.log(`Sandbox upstream listening on ${sandbox.url} (Basic demo/demo, loopback only)`);
  console.log('Try:');
  console.log(`  curl -u demo:demo '${sandbox.url}/api/v1/receivables/debtors?take=5'`);
  console.log(
    `  curl -u demo:demo -H 'Content-Type: application/json' -d '{"name":"Maria","lastName":"Silva",` +
      `"email":"maria@example.com","idBranch":1,"cellphone":"11987654321"}' ${sandbox.url}/api/v1/prospects`,
  );
  console.log(`  curl ${sandbox.url}/_sandbox   # control routes (faults, stats, prospects...)`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the sandbox...`);
    sandbox.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`Sandbox failed to start: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
