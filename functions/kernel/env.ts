/**
 * The environment variables the stack sets for the functions, named once: the constructs that
 * set them (infra/constructs/) and the wirings that read them (functions/*\/wiring-aws.ts) both
 * use these names, beside the route table (routes.ts) that says which function needs what.
 */
export const ENV = {
  /** The lead ledger's DynamoDB table (also holds the upstream pacer item). */
  ledgerTable: 'LEDGER_TABLE_NAME',
  /** The lead queue: its URL (send, change visibility) and ARN (redrive destination). */
  leadQueueUrl: 'LEAD_QUEUE_URL',
  leadQueueArn: 'LEAD_QUEUE_ARN',
  /** The lead queue's dead-letter queue (redrive source). */
  leadDlqArn: 'LEAD_DLQ_ARN',
  /** The debtors report's S3 bucket. */
  reportBucket: 'REPORT_BUCKET_NAME',
  /** The debtors report's refresh-request queue. */
  reportRefreshQueueUrl: 'REPORT_REFRESH_QUEUE_URL',
  /** The configuration store (AppConfig): application, environment and configuration profile. */
  appConfigApplication: 'LEADS_APPCONFIG_APPLICATION',
  appConfigEnvironment: 'LEADS_APPCONFIG_ENVIRONMENT',
  appConfigProfile: 'LEADS_APPCONFIG_PROFILE',
  /**
   * The API's public base URL under the deploy config's custom domain (`https://leads.academia.com.br`),
   * set on the admin function only when there is one: where the set-up kit's URLs point.
   */
  publicUrl: 'LEADS_PUBLIC_URL',
  /** Secrets Manager names start with this. */
  secretsPrefix: 'LEADS_SECRETS_PREFIX',
  /**
   * `aws` on every deployed function (NodeFunction), `local` in the local runtime: which wiring
   * a handler loads (kernel/ready.ts).
   */
  runtime: 'LEADS_RUNTIME',
} as const;

export type EnvName = (typeof ENV)[keyof typeof ENV];

/** Reads a required environment variable once, failing fast with its name. */
export function requireEnv(name: EnvName, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name]?.trim();
  if (!value) throw new Error(`environment variable ${name} is not set`);
  return value;
}
