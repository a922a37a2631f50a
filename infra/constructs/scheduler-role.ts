/**
 * The role EventBridge Scheduler assumes to run one of the stack's schedules, and the async
 * invoke settings of a function a schedule invokes.
 *
 * The role trusts scheduler.amazonaws.com only on behalf of this account's schedules of the
 * `default` group (`aws:SourceAccount`, `aws:SourceArn`: the confused-deputy guard, as the
 * Scheduler documentation writes it), so no other account's schedule can have Scheduler
 * assume it. The target grants (lambda:InvokeFunction on one alias, sqs:SendMessage on one
 * queue) are added by the schedule's target.
 *
 * A schedule invokes Lambda asynchronously: Scheduler's own retry policy (`retryAttempts`,
 * `maxEventAge` on the target) only covers handing the event to Lambda; what happens when the
 * function then fails is Lambda's async retry policy, set here on the alias the schedule
 * invokes (EventInvokeConfig), so that it is the one the cdk-nag reasons describe rather than
 * Lambda's default (2 retries over up to 6 hours).
 */
import { type Duration, Stack, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/** A role Scheduler may assume only for this account's schedules of the default group. */
export function schedulerRole(scope: Construct, id: string, description: string): Role {
  const stack = Stack.of(scope);
  return new Role(scope, id, {
    description,
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: {
        StringEquals: {
          'aws:SourceAccount': stack.account,
          'aws:SourceArn': stack.formatArn({
            service: 'scheduler',
            resource: 'schedule-group',
            resourceName: 'default',
          }),
        },
      },
    }),
  });
}

/**
 * What Lambda does when a scheduled invocation of `alias` fails: retry `retryAttempts` times
 * (0 to 2) while the event is younger than `maxEventAge` (60 s to 6 h), then drop it; `dropped`
 * says why a dropped event needs no failure destination (cdk-nag's acknowledgement).
 */
export function scheduledInvokeSettings(
  alias: Alias,
  settings: { retryAttempts: number; maxEventAge: Duration; dropped: string },
): void {
  const { dropped, ...invoke } = settings;
  alias.configureAsyncInvoke(invoke);
  const config = alias.node.findChild('EventInvokeConfig');
  Validations.of(config).acknowledge({
    id: 'Serverless-LambdaAsyncFailureDestination',
    reason: dropped,
  });
}
