/**
 * cdk-nag acknowledgements shared by the constructs. Each is written beside the grant it
 * explains; this only spells the finding ids the way cdk-nag does.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import { Alias, type IFunction, type Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';

/** A resolved ARN as cdk-nag writes it in a finding id (`<AWS::Partition>`, `<Bucket.Arn>`). */
export function nagResource(resolved: unknown): string {
  if (typeof resolved === 'string') return resolved;
  const node = resolved as {
    Ref?: string;
    'Fn::GetAtt'?: [string, string];
    'Fn::Join'?: [string, unknown[]];
  };
  if (node.Ref) return `<${node.Ref}>`;
  if (node['Fn::GetAtt']) return `<${node['Fn::GetAtt'].join('.')}>`;
  const join = node['Fn::Join'];
  if (join) return join[1].map(nagResource).join(join[0]);
  return JSON.stringify(resolved);
}

/**
 * Acknowledges AwsSolutions-IAM5 for exactly these wildcard resources in `fn`'s role policy,
 * with `reason`: any other wildcard still fails synth.
 */
export function acknowledgeWildcards(
  fn: LambdaFunction,
  arns: readonly string[],
  reason: string,
): void {
  const policy = fn.role?.node.tryFindChild('DefaultPolicy');
  if (!policy) return;
  const stack = Stack.of(fn);
  for (const arn of arns) {
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagResource(stack.resolve(arn))}]`,
      reason,
    });
  }
}

/**
 * The function a finding about `fn` is acknowledged on: invokers hold the `live` alias, while
 * cdk-nag checks the function resource (its parent), which an acknowledgement on the alias
 * would not reach.
 */
export function nagTarget(fn: IFunction): IFunction {
  return fn instanceof Alias ? fn.lambda : fn;
}
