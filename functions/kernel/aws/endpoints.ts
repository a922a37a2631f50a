/**
 * Where DynamoDB, SQS and S3 are for a region, as the AWS SDK's endpoint rules resolve them,
 * without loading them: the region's partition (`amazonaws.com`, `amazonaws.com.cn` for cn-*,
 * GovCloud, the ISO partitions, the European Sovereign Cloud) and the FIPS and dual-stack
 * settings (`AWS_USE_FIPS_ENDPOINT`, `AWS_USE_DUALSTACK_ENDPOINT`, read as the SDK reads them:
 * "true" or "false", anything else left for the default, off; a `fips-<region>` or
 * `<region>-fips` region turns FIPS on, as in the SDK).
 *
 * The partitions are the SDK's (@aws-sdk/core's partitions table: the first whose region
 * pattern matches, `aws` for a region none matches); test/kernel/aws-endpoints.test.ts checks
 * each of them, and every service × FIPS × dual-stack combination, against the endpoint the
 * official clients resolve. Not covered: DynamoDB's account-based endpoints (used by the SDK only
 * when the credentials carry an account id, which Lambda's do not), `AWS_ENDPOINT_URL_*`, S3
 * Transfer Acceleration, access points and S3 Express.
 */

export interface Partition {
  name: string;
  dnsSuffix: string;
  dualStackDnsSuffix: string;
}

/** The SDK's partitions, in its order, with their region patterns. */
const PARTITIONS: ReadonlyArray<Partition & { regions: RegExp }> = [
  {
    name: 'aws',
    regions: /^(us|eu|ap|sa|ca|me|af|il|mx)-\w+-\d+$/,
    dnsSuffix: 'amazonaws.com',
    dualStackDnsSuffix: 'api.aws',
  },
  {
    name: 'aws-cn',
    regions: /^cn-\w+-\d+$/,
    dnsSuffix: 'amazonaws.com.cn',
    dualStackDnsSuffix: 'api.amazonwebservices.com.cn',
  },
  {
    name: 'aws-eusc',
    regions: /^eusc-(de)-\w+-\d+$/,
    dnsSuffix: 'amazonaws.eu',
    dualStackDnsSuffix: 'api.amazonwebservices.eu',
  },
  {
    name: 'aws-iso',
    regions: /^us-iso-\w+-\d+$/,
    dnsSuffix: 'c2s.ic.gov',
    dualStackDnsSuffix: 'api.aws.ic.gov',
  },
  {
    name: 'aws-iso-b',
    regions: /^us-isob-\w+-\d+$/,
    dnsSuffix: 'sc2s.sgov.gov',
    dualStackDnsSuffix: 'api.aws.scloud',
  },
  {
    name: 'aws-iso-e',
    regions: /^eu-isoe-\w+-\d+$/,
    dnsSuffix: 'cloud.adc-e.uk',
    dualStackDnsSuffix: 'api.cloud-aws.adc-e.uk',
  },
  {
    name: 'aws-iso-f',
    regions: /^us-isof-\w+-\d+$/,
    dnsSuffix: 'csp.hci.ic.gov',
    dualStackDnsSuffix: 'api.aws.hci.ic.gov',
  },
  {
    name: 'aws-us-gov',
    regions: /^us-gov-\w+-\d+$/,
    dnsSuffix: 'amazonaws.com',
    dualStackDnsSuffix: 'api.aws',
  },
];

/** The partition a region belongs to (`aws` for one no pattern knows, as in the SDK). */
export function partitionOf(region: string): Partition {
  const found = PARTITIONS.find((p) => p.regions.test(region)) ?? PARTITIONS[0];
  const { name, dnsSuffix, dualStackDnsSuffix } = found as Partition;
  return { name, dnsSuffix, dualStackDnsSuffix };
}

export interface EndpointSettings {
  /** The region requests are signed for (a FIPS pseudo-region's real one). */
  region: string;
  useFips: boolean;
  useDualStack: boolean;
  partition: Partition;
}

export interface EndpointOptions {
  /** @default AWS_USE_FIPS_ENDPOINT, else false */
  useFipsEndpoint?: boolean;
  /** @default AWS_USE_DUALSTACK_ENDPOINT, else false */
  useDualstackEndpoint?: boolean;
}

/** "true" or "false"; anything else is passed over, as the SDK's provider chain passes it over
 * (to the shared config file, which Lambda does not have, then the default). */
function booleanFromEnv(name: string): boolean | undefined {
  const value = process.env[name];
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

const HOST_LABEL = /^(?!-)[a-zA-Z0-9-]{1,63}(?<!-)$/;

/** The region, FIPS and dual-stack settings of a client, as the SDK resolves them. */
export function endpointSettings(region: string, options: EndpointOptions = {}): EndpointSettings {
  const fipsRegion = region.startsWith('fips-') || region.endsWith('-fips');
  const real = !fipsRegion
    ? region
    : ['fips-aws-global', 'aws-fips'].includes(region)
      ? 'us-east-1'
      : region.replace(/fips-(dkr-|prod-)?|-fips/, '');
  if (!HOST_LABEL.test(real)) {
    throw new Error(`Region not accepted: region="${real}" is not a valid hostname component.`);
  }
  return {
    region: real,
    useFips:
      fipsRegion || (options.useFipsEndpoint ?? booleanFromEnv('AWS_USE_FIPS_ENDPOINT') ?? false),
    useDualStack:
      options.useDualstackEndpoint ?? booleanFromEnv('AWS_USE_DUALSTACK_ENDPOINT') ?? false,
    partition: partitionOf(real),
  };
}

/**
 * DynamoDB's or SQS's endpoint: `https://<service>[-fips].<region>.<suffix>`, the dual-stack
 * suffix when dual-stack; GovCloud's plain endpoints are FIPS already (no `-fips` there unless
 * dual-stack); DynamoDB's `local` region is DynamoDB Local on localhost:8000.
 */
export function serviceEndpoint(service: 'dynamodb' | 'sqs', s: EndpointSettings): string {
  if (service === 'dynamodb' && s.region === 'local') {
    if (s.useFips)
      throw new Error('Invalid Configuration: FIPS and local endpoint are not supported');
    if (s.useDualStack) {
      throw new Error('Invalid Configuration: Dualstack and local endpoint are not supported');
    }
    return 'http://localhost:8000';
  }
  const suffix = s.useDualStack ? s.partition.dualStackDnsSuffix : s.partition.dnsSuffix;
  const fips = s.useFips && (s.useDualStack || s.partition.name !== 'aws-us-gov') ? '-fips' : '';
  return `https://${service}${fips}.${s.region}.${suffix}`;
}

/** Whether S3 can take a bucket in its host name over HTTPS (isVirtualHostableS3Bucket). */
export function isVirtualHostableBucket(bucket: string): boolean {
  return (
    HOST_LABEL.test(bucket) &&
    bucket.length >= 3 &&
    bucket.length <= 63 &&
    bucket === bucket.toLowerCase()
  );
}

/** S3's regional host, without a bucket. */
export function s3Host(s: EndpointSettings): string {
  if (s.useFips && s.partition.name === 'aws-cn') {
    throw new Error('Partition does not support FIPS');
  }
  const fips = s.useFips ? '-fips' : '';
  const dualStack = s.useDualStack ? '.dualstack' : '';
  return `s3${fips}${dualStack}.${s.region}.${s.partition.dnsSuffix}`;
}

/**
 * Where an S3 bucket's objects are: `https://<bucket>.s3[-fips][.dualstack].<region>.<suffix>`
 * (virtual-hosted), or that host without the bucket and the bucket first in the path for a name
 * that cannot be a host label (dots, capitals). S3 keeps the partition's plain suffix for
 * dual-stack; China has no S3 FIPS endpoints.
 */
export function s3Endpoint(
  bucket: string,
  s: EndpointSettings,
): { origin: string; pathStyle: boolean } {
  const host = s3Host(s);
  return isVirtualHostableBucket(bucket)
    ? { origin: `https://${bucket}.${host}`, pathStyle: false }
    : { origin: `https://${host}`, pathStyle: true };
}
