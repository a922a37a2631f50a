import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DescribeTableCommand, DynamoDBClient, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { alarmEmailReminder } from '../../scripts/cdk.ts';
import { LEDGER_TABLE_OUTPUT, protectLedgerTable } from '../../scripts/stack-protection.ts';

const cloudFormation = mockClient(CloudFormationClient);
const dynamo = mockClient(DynamoDBClient);
const clients = { cloudFormation: new CloudFormationClient({}), dynamo: new DynamoDBClient({}) };

describe("after a deploy: the ledger table's deletion protection (scripts/stack-protection.ts)", () => {
  beforeEach(() => {
    cloudFormation.reset();
    dynamo.reset();
    cloudFormation.on(DescribeStacksCommand, { StackName: 'leads-prod' }).resolves({
      Stacks: [
        {
          StackName: 'leads-prod',
          StackStatus: 'CREATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [{ OutputKey: LEDGER_TABLE_OUTPUT, OutputValue: 'leads-prod-ledger-abc' }],
        },
      ],
    });
  });

  it('switches it on for the table the stack names, when it is off (after the first create)', async () => {
    dynamo.on(DescribeTableCommand).resolves({ Table: { DeletionProtectionEnabled: false } });

    const result = await protectLedgerTable('leads-prod', clients);

    expect(dynamo.commandCalls(UpdateTableCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: 'leads-prod-ledger-abc', DeletionProtectionEnabled: true },
    ]);
    expect(result).toMatchObject({ table: 'leads-prod-ledger-abc', changed: true });
    expect(result.line).toContain('proteção contra exclusão ligada');
  });

  it('changes nothing when it is on already (every later deploy)', async () => {
    dynamo.on(DescribeTableCommand).resolves({ Table: { DeletionProtectionEnabled: true } });

    const result = await protectLedgerTable('leads-prod', clients);

    expect(dynamo.commandCalls(UpdateTableCommand)).toEqual([]);
    expect(result.changed).toBe(false);
  });

  it('says which output is missing instead of guessing a table', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({ Stacks: [] });

    await expect(protectLedgerTable('leads-prod', clients)).rejects.toThrow(LEDGER_TABLE_OUTPUT);
    expect(dynamo.commandCalls(UpdateTableCommand)).toEqual([]);
  });
});

describe("the deploy's last words on the alarm e-mail", () => {
  it('asks to confirm the subscription, naming the address', () => {
    const lines = alarmEmailReminder('alarmes@example.com').join('\n');
    expect(lines).toContain('confirme a assinatura');
    expect(lines).toContain('alarmes@example.com');
  });

  it('points at the AlarmTopicArn output when nobody is e-mailed', () => {
    expect(alarmEmailReminder(undefined).join('\n')).toContain('AlarmTopicArn');
  });
});
