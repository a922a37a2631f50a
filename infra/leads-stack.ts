/**
 * The leads gateway on AWS: the REST API, the configuration secrets, the lead ledger (DynamoDB)
 * and lead queue (SQS + DLQ), the debtors report (S3 store, refresh queue, refresher, schedule,
 * alarms), lead delivery (the forwarder on the lead queue; alarms, alarm topic, dashboard), and
 * one NodeFunction per entry of the function table, wired to its routes and given exactly the
 * grants its spec `needs`, and the Basic-auth authorizer in front of the routes marked
 * `auth: 'basic'`. Every function is invoked through its `live` alias; a release moves the
 * aliases, the intake's and the authorizer's by canary, and rolls back by itself on the rollback
 * alarms (Releases). Resource details live in the constructs.
 */
import { CfnOutput, type CfnResource, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { RecursiveLoop } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { accountRates, forwarderConcurrency } from '../functions/delivery/concurrency.ts';
import { ENV } from '../functions/kernel/env.ts';
import {
  BASIC_AUTH,
  FUNCTIONS,
  type FunctionNeed,
  type FunctionSpec,
  ROUTES,
} from '../functions/kernel/routes.ts';
import type { DeployConfig } from './config.ts';
import { ApiDomain } from './constructs/api-domain.ts';
import { ConfigStore } from './constructs/config-store.ts';
import { DebtorsReport } from './constructs/debtors-report.ts';
import { DeliveryObservability } from './constructs/delivery-observability.ts';
import { LeadForwarder } from './constructs/lead-forwarder.ts';
import { LeadQueue } from './constructs/lead-queue.ts';
import { LeadStore } from './constructs/lead-store.ts';
import { LeadsApi } from './constructs/leads-api.ts';
import { LeadsSecrets } from './constructs/leads-secrets.ts';
import { NodeFunction } from './constructs/node-function.ts';
import { PlatformAlarms } from './constructs/platform-alarms.ts';
import { Releases, ROLLBACK_ALARMS_CONTEXT } from './constructs/releases.ts';

export interface LeadsStackProps extends StackProps {
  config: DeployConfig;
}

/**
 * Functions that send to the queue they consume on purpose: Lambda's recursive loop detection
 * (which stops a chain after about 16 hops) is set to Allow for them, and here is why. Every
 * other function of the table is set to Terminate. (The report refresher is created by
 * DebtorsReport, with its own reason.)
 */
export const RECURSIVE_LOOPS: Readonly<Record<string, string>> = {
  forwarder:
    'The forwarder sends a lead that must wait (the upstream down, the pacer, a retry after an error) back to its own lead queue as a fresh delayed message, by design: a wait costs no receive. Those chains end with the lead (delivered, rejected, parked, or dead after maxAttempts or the delivery horizon, which the ledger enforces), not after a number of hops; Terminate would drop the message of a lead that waited through a long outage and leave it to the reconciler.',
};

/** The functions a release shifts by canary (Releases); the others move all at once. */
export const CANARY_FUNCTIONS = ['intake', 'authorizer'] as const;

/** `lead-intake` → `LeadIntake`: construct ids are PascalCase. */
function pascalCase(name: string): string {
  return name.replace(/(^|[-_])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}

export class LeadsStack extends Stack {
  readonly api: LeadsApi;
  /** The API under the deploy config's `customDomain`, when it names one. */
  readonly domain?: ApiDomain;
  /**
   * Where platforms and people reach the API, with a trailing slash: the custom domain's root
   * when there is one, else the stage's invoke URL.
   */
  readonly publicUrl: string;
  readonly secrets: LeadsSecrets;
  readonly configStore: ConfigStore;
  readonly store: LeadStore;
  readonly queue: LeadQueue;
  readonly report: DebtorsReport;
  readonly forwarder: LeadForwarder;
  /**
   * The forwarder's batches at once (the event source's MaximumConcurrency, and its reserved
   * concurrency with reserveConcurrency), derived from the configured accounts' total rate, and why.
   */
  readonly forwarderConcurrency: { concurrency: number; reason: string };
  readonly observability: DeliveryObservability;
  readonly alarms: PlatformAlarms;
  readonly releases: Releases;
  readonly functions: ReadonlyMap<string, NodeFunction>;

  constructor(scope: Construct, id: string, props: LeadsStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.forwarderConcurrency = forwarderConcurrency(accountRates(config.settings));

    // A fixed handful of secrets, whatever the number of profiles and accounts.
    this.secrets = new LeadsSecrets(this, 'Secrets', { prefix: config.secretsPrefix });
    this.api = new LeadsApi(this, 'Gateway', { stage: config.stage, ...config.api });
    if (config.customDomain) {
      this.domain = new ApiDomain(this, 'Domain', { ...config.customDomain, api: this.api.api });
    }
    this.publicUrl = this.domain ? `${this.domain.url}/` : this.api.url;
    this.store = new LeadStore(this, 'Ledger');
    // Visibility timeout = 6 × the forwarder's timeout (LeadForwarder checks they agree).
    this.queue = new LeadQueue(this, 'LeadQueue', {
      consumerTimeout: Duration.seconds(FUNCTIONS.forwarder.timeoutSeconds),
    });
    // The debtors report's store, refresh queue, refresher, schedule and alarms.
    this.report = new DebtorsReport(this, 'DebtorsReport', {
      stage: config.stage,
      refreshSeconds: config.settings.report.refreshSeconds,
      secrets: this.secrets,
      // One pacing budget for the account: the refresher paces on delivery's pacer item.
      ledger: this.store,
      reserveConcurrency: config.reserveConcurrency,
    });

    // Granted once their resources exist: the configuration store needs its validator
    // function (below), the alarm topic comes with the observability.
    const readers: NodeFunction[] = [];
    const publishers: NodeFunction[] = [];
    this.functions = this.createFunctions(config, this.grants(readers, publishers));
    // The settings reach it from `npm run deploy` / `config push`, never through the template.
    this.configStore = new ConfigStore(this, 'Config', {
      stage: config.stage,
      validator: this.fn('config-validator'),
    });
    for (const fn of [...readers, this.report.refresher]) this.configStore.grantRead(fn);
    this.addRoutes();
    // The set-up kit's URLs: the custom domain's, whichever host the console was opened on.
    if (this.domain) this.fn('admin').addEnvironment(ENV.publicUrl, this.domain.url);

    // Delivery: the forwarder consumes the lead queue; alarms and a dashboard watch it.
    this.forwarder = new LeadForwarder(this, 'Delivery', {
      fn: this.fn('forwarder'),
      queue: this.queue,
      reconciler: this.fn('reconciler'),
      maxConcurrency: this.forwarderConcurrency.concurrency,
      reserved: config.reserveConcurrency,
    });
    // Why this many, beside it in the template.
    (this.fn('forwarder').node.defaultChild as CfnResource).addMetadata(
      'ForwarderConcurrency',
      this.forwarderConcurrency.reason,
    );
    this.observability = this.observe(config, publishers);
    this.alarms = new PlatformAlarms(this, 'Alarms', {
      api: this.api.api,
      accessLogs: this.api.accessLogs,
      intake: this.fn('intake'),
      authorizer: this.fn('authorizer'),
      admin: this.fn('admin'),
      report: this.fn('report'),
      forwarder: this.fn('forwarder'),
      openapi: this.fn('openapi'),
      configValidator: this.fn('config-validator'),
      ...(config.api.waf && !config.api.webAclArn && { webAclName: `leads-${config.stage}` }),
      table: this.store.table,
      alarmAction: this.observability.alarmAction,
      dashboard: this.observability.dashboard,
    });
    this.releases = this.release(config);
    this.addOutputs(config);
  }

  /** Versions and aliases: the canary functions through CodeDeploy, the rest all at once. */
  private release(config: DeployConfig): Releases {
    const canary = Object.fromEntries(CANARY_FUNCTIONS.map((name) => [name, this.fn(name)]));
    const { alarms } = this.observability;
    return new Releases(this, 'Releases', {
      stage: config.stage,
      canary,
      first: [this.fn('forwarder')],
      rollbackAlarms: [
        this.alarms.alarms.intakeServerErrors,
        alarms.intakeErrors,
        this.alarms.alarms.authorizerErrors,
        alarms.forwarderErrors,
      ],
      deadLetterQueue: this.queue.deadLetterQueue,
      ignoreAlarms: this.node.tryGetContext(ROLLBACK_ALARMS_CONTEXT) === 'off',
    });
  }

  /**
   * What each need of a function spec grants: one grant (plus the variable naming the
   * resource), nothing else. `config:read` and `alerts:publish` only collect the function.
   */
  private grants(
    readers: NodeFunction[],
    publishers: NodeFunction[],
  ): Record<FunctionNeed, (fn: NodeFunction) => void> {
    return {
      'config:read': (fn) => readers.push(fn),
      'ledger:intake': (fn) => this.store.grantIntake(fn),
      'ledger:forwarder': (fn) => this.store.grantForwarder(fn),
      'ledger:admin': (fn) => this.store.grantAdmin(fn),
      'ledger:reconciler': (fn) => this.store.grantReconciler(fn),
      'ledger:watch': (fn) => this.store.grantWatch(fn),
      'alerts:publish': (fn) => publishers.push(fn),
      'queue:send': (fn) => this.queue.grantSend(fn),
      'queue:visibility': (fn) => this.queue.grantChangeVisibility(fn),
      'queue:redrive': (fn) => this.queue.grantRedrive(fn),
      'report:read': (fn) => this.report.grantRead(fn),
      'report:trigger': (fn) => this.report.grantTrigger(fn),
      'ledger:auth-throttle': (fn) => this.store.grantAuthThrottle(fn),
      'profiles:rotate': (fn) => this.secrets.grantRotateProfiles(fn),
    };
  }

  /** One NodeFunction per entry of the function table, with its secrets and its needs. */
  private createFunctions(
    config: DeployConfig,
    grants: Record<FunctionNeed, (fn: NodeFunction) => void>,
  ): ReadonlyMap<string, NodeFunction> {
    const functions = new Map<string, NodeFunction>();
    const { reservedConcurrency: _tableDefault, ...forwarder } = FUNCTIONS.forwarder;
    const specs: Record<string, FunctionSpec> = {
      ...FUNCTIONS,
      // Derived from the configured accounts' total rate (functions/delivery/concurrency.ts);
      // reserved only with reserveConcurrency, else the event source's MaximumConcurrency caps it.
      forwarder: {
        ...forwarder,
        ...(config.reserveConcurrency && {
          reservedConcurrency: this.forwarderConcurrency.concurrency,
        }),
      },
    };
    for (const [name, spec] of Object.entries(specs)) {
      const fn = new NodeFunction(this, pascalCase(name), {
        entry: spec.entry,
        functionName: `leads-${config.stage}-${name}`,
        description: spec.description,
        memorySize: spec.memoryMb,
        timeout: Duration.seconds(spec.timeoutSeconds),
        ...(spec.reservedConcurrency !== undefined && {
          reservedConcurrentExecutions: spec.reservedConcurrency,
        }),
        ...(RECURSIVE_LOOPS[name] !== undefined && {
          recursiveLoop: RecursiveLoop.ALLOW,
          recursiveLoopReason: RECURSIVE_LOOPS[name],
        }),
      });
      this.secrets.grantRead(fn, ...(spec.secrets ?? []));
      for (const need of spec.needs ?? []) grants[need](fn);
      functions.set(name, fn);
    }
    return functions;
  }

  /** The function of the table named `name`; the stack cannot be built without it. */
  private fn(name: string): NodeFunction {
    const found = this.functions.get(name);
    if (!found)
      throw new Error(`the stack needs the ${name} function (functions/kernel/routes.ts)`);
    return found;
  }

  /**
   * Every route to its function's `live` alias; the gateway checks Basic credentials on
   * `auth: 'basic'` ones (the authorizer's alias too).
   */
  private addRoutes(): void {
    this.api.useBasicAuthorizer(this.fn(BASIC_AUTH.authorizer).live);
    for (const route of ROUTES) {
      const fn = route.fn === undefined ? undefined : this.functions.get(route.fn);
      if (route.fn !== undefined && !fn) {
        throw new Error(`route ${route.method} ${route.path} names unknown function ${route.fn}`);
      }
      this.api.addRoute(route, fn?.live);
    }
  }

  /** Delivery's alarms, topic and dashboard; the debtors report's alarms notify the same topic. */
  private observe(config: DeployConfig, publishers: NodeFunction[]): DeliveryObservability {
    const observability = new DeliveryObservability(this, 'Observability', {
      stage: config.stage,
      queue: this.queue,
      forwarder: this.fn('forwarder'),
      reconciler: this.fn('reconciler'),
      intake: this.fn('intake'),
      watch: this.fn('watch'),
      publishers,
      consoleUrl: `${this.publicUrl}admin/`,
      api: this.api.api,
      ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
    });
    for (const alarm of Object.values(this.report.alarms)) {
      alarm.addAlarmAction(observability.alarmAction);
      alarm.addOkAction(observability.alarmAction);
    }
    return observability;
  }

  /** The custom domain's URL and, without a hosted zone, the CNAME to add by hand. */
  private addDomainOutputs(domain: ApiDomain): void {
    new CfnOutput(this, 'CustomDomainUrl', {
      value: `${domain.url}/`,
      description:
        'The API under the custom domain: the webhook URLs given to the platforms (they survive a recreation of the stack)',
    });
    new CfnOutput(this, 'CustomDomainTarget', {
      value: domain.regionalDomainName,
      description: domain.record
        ? 'API Gateway host behind the custom domain (the stack keeps its Route 53 alias record)'
        : 'Create a CNAME record of the custom domain pointing to this host, at your DNS provider (docs/deploy.md, "A domain of your own")',
    });
  }

  /** What an operator needs after a deploy: URLs, names, the secrets to fill in. */
  private addOutputs(config: DeployConfig): void {
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the API' });
    // One pattern, not an output per profile: profiles change without a deploy (and a stack
    // has at most 200 outputs). GET /admin/setup gives each profile's exact URL and kit.
    new CfnOutput(this, 'LeadUrlPattern', {
      value: `${this.publicUrl}leads/{profile}`,
      description:
        'Where each profile receives leads (replace {profile}); GET /admin/setup lists every profile with its set-up kit',
    });
    new CfnOutput(this, 'ConsoleUrl', {
      value: `${this.publicUrl}admin/`,
      description: 'The operator console (Basic credentials of a client with the admin role)',
    });
    if (this.domain) this.addDomainOutputs(this.domain);
    new CfnOutput(this, 'SecretsPrefix', {
      value: config.secretsPrefix,
      description: 'Secrets Manager names start with this (docs/deploy.md)',
    });
    new CfnOutput(this, 'SecretNames', {
      value: this.secrets.names.join(','),
      description: 'The secrets to fill in after the first deploy',
    });
    new CfnOutput(this, 'LedgerTableName', {
      value: this.store.table.tableName,
      description: 'DynamoDB table of the lead ledger (retained when the stack is deleted)',
    });
    new CfnOutput(this, 'LeadQueueUrl', {
      value: this.queue.queue.queueUrl,
      description: 'SQS queue of leads waiting for delivery',
    });
    new CfnOutput(this, 'LeadDeadLetterQueueUrl', {
      value: this.queue.deadLetterQueue.queueUrl,
      description: 'Dead-letter queue: lead messages that exhausted their receives (redrive)',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.observability.topic.topicArn,
      description: 'SNS topic of every alarm: subscribe to it (docs/deploy.md, Alarms)',
    });
    new CfnOutput(this, 'ReportBucketName', {
      value: this.report.bucket.bucketName,
      description: 'S3 bucket of the debtors report (debtors/current.json, status.json; retained)',
    });
    new CfnOutput(this, 'ReportRefreshQueueUrl', {
      value: this.report.queue.queueUrl,
      description: 'SQS queue of debtors report refresh requests (docs/report.md)',
    });
  }
}
