/** Reads a required environment variable once, failing fast with its name. */
export function requireEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name]?.trim();
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}
