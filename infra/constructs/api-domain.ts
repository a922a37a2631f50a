/**
 * The API under a domain of the gym chain's own (`customDomain` in the deploy config), so that
 * the webhook URLs pasted into the ad platforms survive the stack's recreation (a new stack gets
 * a new `execute-api` host; the custom domain stays).
 *
 * - An API Gateway REGIONAL domain name with the TLS 1.2 security policy, mapped at its root to
 *   the stage: `https://<name>/leads/<profile>` (no stage in the path).
 * - The certificate: `certificateArn` (an ACM certificate of the stack's Region covering the
 *   name), else one the stack requests, validated through DNS in `hostedZoneId`.
 * - With `hostedZoneId`: the Route 53 alias record (A) of the name to the domain. Without it,
 *   the operator adds a CNAME of the name to `regionalDomainName` (the stack's
 *   `CustomDomainTarget` output; docs/deploy.md, "A domain of your own").
 */
import {
  BasePathMapping,
  DomainName,
  EndpointType,
  type RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import {
  Certificate,
  CertificateValidation,
  type ICertificate,
} from 'aws-cdk-lib/aws-certificatemanager';
import { ARecord, HostedZone, type IHostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';

/** The deploy config's `customDomain` (infra/config.ts). */
export interface CustomDomainConfig {
  /** The host name, `leads.academia.com.br`. */
  name: string;
  /** An ACM certificate in the stack's Region covering `name`. */
  certificateArn?: string;
  /** The Route 53 hosted zone holding `name`: the alias record (and the certificate's DNS validation). */
  hostedZoneId?: string;
}

export interface ApiDomainProps extends CustomDomainConfig {
  /** The API whose stage the domain serves. */
  api: RestApi;
}

export class ApiDomain extends Construct {
  readonly domain: DomainName;
  /** The public base URL, `https://<name>` (no trailing slash, no stage). */
  readonly url: string;
  /** What a CNAME of the name points to: API Gateway's regional host of the domain. */
  readonly regionalDomainName: string;
  /** The alias record, when the hosted zone is given. */
  readonly record?: ARecord;

  constructor(scope: Construct, id: string, props: ApiDomainProps) {
    super(scope, id);
    const zone =
      props.hostedZoneId === undefined
        ? undefined
        : HostedZone.fromHostedZoneId(this, 'Zone', props.hostedZoneId);
    this.domain = new DomainName(this, 'Domain', {
      domainName: props.name,
      certificate: this.certificate(props, zone),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    // The stage at the root: the domain's URLs carry no stage name.
    new BasePathMapping(this, 'Mapping', {
      domainName: this.domain,
      restApi: props.api,
      stage: props.api.deploymentStage,
    });
    this.url = `https://${props.name}`;
    this.regionalDomainName = this.domain.domainNameAliasDomainName;
    if (zone) {
      this.record = new ARecord(this, 'Alias', {
        zone,
        // Fully qualified: the zone is known by its id only.
        recordName: `${props.name}.`,
        target: RecordTarget.fromAlias(new ApiGatewayDomain(this.domain)),
      });
    }
  }

  private certificate(props: CustomDomainConfig, zone: IHostedZone | undefined): ICertificate {
    if (props.certificateArn !== undefined) {
      return Certificate.fromCertificateArn(this, 'Certificate', props.certificateArn);
    }
    if (!zone) {
      throw new Error('customDomain: give certificateArn, or hostedZoneId for a DNS-validated one');
    }
    return new Certificate(this, 'Certificate', {
      domainName: props.name,
      validation: CertificateValidation.fromDns(zone),
    });
  }
}
