/**
 * The leads gateway on AWS: the REST API, the configuration secrets, and one NodeFunction per
 * entry of the function table, wired to its routes. Resource details live in the constructs.
 */
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { DeployConfig } from './config.ts';
import { LeadsApi } from './constructs/leads-api.ts';
import { LeadsSecrets } from './constructs/leads-secrets.ts';
import { NodeFunction } from './constructs/node-function.ts';
import { FUNCTIONS, type FunctionSpec, ROUTES } from './routes.ts';

export interface LeadsStackProps extends StackProps {
  config: DeployConfig;
}

/** `lead-intake` → `LeadIntake`: construct ids are PascalCase. */
function pascalCase(name: string): string {
  return name.replace(/(^|[-_])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}

export class LeadsStack extends Stack {
  readonly api: LeadsApi;
  readonly secrets: LeadsSecrets;
  readonly functions: ReadonlyMap<string, NodeFunction>;

  constructor(scope: Construct, id: string, props: LeadsStackProps) {
    super(scope, id, props);
    const { config } = props;

    this.secrets = new LeadsSecrets(this, 'Secrets', {
      prefix: config.secretsPrefix,
      settings: config.settings,
    });
    this.api = new LeadsApi(this, 'Gateway', { stage: config.stage, ...config.api });

    const functions = new Map<string, NodeFunction>();
    const specs: Record<string, FunctionSpec> = FUNCTIONS;
    for (const [name, spec] of Object.entries(specs)) {
      const fn = new NodeFunction(this, pascalCase(name), {
        entry: spec.entry,
        functionName: `leads-${config.stage}-${name}`,
        description: spec.description,
        memorySize: spec.memoryMb,
        timeout: Duration.seconds(spec.timeoutSeconds),
      });
      this.secrets.grantRead(fn, ...(spec.secrets ?? []));
      functions.set(name, fn);
    }
    this.functions = functions;

    for (const route of ROUTES) {
      const fn = route.fn === undefined ? undefined : functions.get(route.fn);
      if (route.fn !== undefined && !fn) {
        throw new Error(`route ${route.method} ${route.path} names unknown function ${route.fn}`);
      }
      this.api.addRoute(route, fn);
    }

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'SecretsPrefix', {
      value: config.secretsPrefix,
      description: 'Secrets Manager names start with this (docs/deploy.md)',
    });
    new CfnOutput(this, 'SecretNames', {
      value: this.secrets.names.join(','),
      description: 'The secrets to fill in after the first deploy',
    });
  }
}
