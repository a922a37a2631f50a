/**
 * AWS Control Tower's proactive controls (the cfn-guard rules AWS publishes, shipped in
 * `@cdklabs/cdk-validator-cfnguard`): the ones this stack accepts, each with its reason, and
 * the helper that acknowledges them on the narrowest construct. test/infra/control-tower.test.ts
 * runs every rule over the synthesized `prod` template; a finding without an acknowledgement
 * fails `npm test`.
 *
 * The rules are named by the rule name the plugin reports (`s3_bucket_logging_enabled_check`),
 * with the control's id in the comment.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/** The accepted controls and why (the reason is what an auditor reads). */
export const ACCEPTED_CONTROLS = {
  /** CT.CLOUDWATCH.PR.2 (log retention of at least a year). */
  logRetention: {
    id: 'cloudwatch_log_group_retention_period_check',
    reason:
      'Logs are kept 30 days on purpose: they hold request metadata (addresses, profile names, lead ids) that LGPD asks us to keep no longer than needed to operate; the leads themselves are in the ledger with their own retention (docs/privacy.md).',
  },
  /** CT.CLOUDWATCH.PR.5 (log groups encrypted with a KMS key). */
  logKms: {
    id: 'cloudwatch_log_group_encrypted_check',
    reason:
      'No lead content and no secret is ever logged (the house Logger redacts personal data): CloudWatch Logs encrypts every log group at rest already, and a customer managed key would add a key policy per log group and a monthly cost without protecting anything more.',
  },
  /** CT.LAMBDA.PR.3 (functions in a VPC). */
  noVpc: {
    id: 'lambda_inside_vpc_check',
    reason:
      'The functions call only public AWS endpoints and the upstream API over TLS, and no resource of the stack lives in a VPC: a VPC would add NAT gateways (about 35 USD a month each) and cold-start latency without a private resource to reach.',
  },
  /** CT.CLOUDWATCH.PR.1 (an alarm with an action). */
  rollbackOnlyAlarm: {
    id: 'cloudwatch_alarm_action_check',
    reason:
      "This alarm only tells CodeDeploy to roll a release back; the operators' DeadLetterAlarm watches the same queue and e-mails them, so an action here would send each incident twice.",
  },
  /** CT.S3.PR.3 (object lock) on a cache. */
  noObjectLock: {
    id: 's3_bucket_object_lock_enabled_check',
    reason:
      'The objects are a cache refreshed every 15 minutes from the upstream (and access logs that expire): locking them would keep personal data past its use, against LGPD, and block the refresh that replaces them.',
  },
  /** CT.S3.PR.4 (event notifications). */
  noEventNotifications: {
    id: 's3_event_notifications_enabled_check',
    reason:
      'Nothing reacts to these objects: the refresher writes them and records its outcome in a status object, and its alarms watch the refresh itself; notifications would go to a topic nobody reads.',
  },
} as const;

/** A control acknowledged on a construct: the rule name and why. */
export interface AcceptedControl {
  readonly id: string;
  readonly reason: string;
}

/** The policy-validation plugin's name, which CDK prefixes to its rule names. */
export const CONTROL_TOWER_PLUGIN = 'cdk-validator-cfnguard';

/** Acknowledges `controls` on `scope` (each with its written reason). */
export function acknowledgeControls(scope: IConstruct, ...controls: AcceptedControl[]): void {
  Validations.of(scope).acknowledge(
    ...controls.map(({ id, reason }) => ({ id: `${CONTROL_TOWER_PLUGIN}::${id}`, reason })),
  );
}
