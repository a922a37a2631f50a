/**
 * A lead as captured from any source, before it becomes a Prospect. Every source parser turns
 * its payload into LeadCaptures; `mapLeadToProspect` is the one mapping from a capture to the
 * seed's Prospect. Plain TypeScript: no AWS, no process.env.
 */
import type { BranchChoice } from './branch-answer.ts';
import type { Prospect } from './prospect.ts';

/**
 * The kind of input a platform declares for a question (Typeform's answer type, Elementor's field
 * type, Meta's and Google's standard questions): the field recogniser's first clue
 * (domain/recognise-field.ts). `text` is free text; a source that declares nothing leaves it out.
 */
export type AnswerType = 'text' | 'email' | 'phone' | 'date' | 'number' | 'choice';

/** One thing the person answered (or a hidden field the page filled in). */
export interface LeadAnswer {
  /**
   * The source's key for it: a field name, a question ref, a Google column_id, a Meta question key;
   * a nested JSON field as its path (`lead[email]`, `lead.email`).
   */
  key: string;
  /** A human label when the source gives one (Google column_name, Typeform title). */
  label?: string;
  /** The input type the platform declares for the question, when it declares one. */
  type?: AnswerType;
  value: string | readonly string[];
}

export interface LeadCapture {
  /** The source that captured it (`form`, `meta`...: functions/sources/registry.ts). */
  source: string;
  /**
   * What makes a redelivery recognisable: the platform's lead id (`meta:<leadgen_id>`), a client
   * Idempotency-Key (`key:<value>`), or a content hash (`hash:<sha256>`, deduplicated within a window).
   */
  dedupKey: string;
  /** True for the platforms' test leads (Google `is_test`, Meta's testing tool). */
  isTest: boolean;
  /** The platform's own lead id, when it has one (string: Meta ids exceed 2^53). */
  externalId?: string;
  /** The platform's form id, used to pick the profile's `forms.<id>` settings. */
  formId?: string;
  /** When the person submitted, ISO 8601, when the source says. */
  submittedAt?: string;
  answers: LeadAnswer[];
  /** UTM parameters, click ids, campaign/ad/page ids and names: kept in notes. */
  attribution: Record<string, string>;
  /**
   * How the platform writes the answers of its own date questions (answers whose `type` is
   * `date`): Meta's `date_of_birth` is month/day (`MDY`). Free-text answers never use it: they
   * follow the profile's `dateOrder` (day/month by default).
   */
  dateOrder?: 'DMY' | 'MDY';
  /** What must still be fetched before the lead can be mapped (the Meta Graph lookup). */
  pending?: { kind: string; leadgenId: string };
  /** For the `prospect` source: the Prospect exactly as the client sent it. */
  prospect?: Prospect;
  /**
   * The person's LGPD consent, when the profile maps a consent field (`consent` in its
   * settings; domain/personal-data.ts `withConsent`): what they were shown, its version, whether
   * they ticked it and when. The notes sent upstream say it.
   */
  consent?: ConsentRecord;
}

/** A consent as the lead keeps it. */
export interface ConsentRecord {
  /** The answer's key the profile names. */
  field: string;
  /** Ticked (any value but an empty or negative one), or not (missing, `no`, `false`...). */
  given: boolean;
  /** The consent text the page showed, as configured. */
  text: string;
  version: string;
  /** ISO 8601: when it was given (the lead's receipt, or the platform's submission time). */
  at?: string;
}

/** Result of mapping: the Prospect, what it still lacks, and what we noticed on the way. */
export interface MappedLead {
  prospect: Prospect;
  /** Required Prospect fields we could not fill: the lead is parked with these as its reason. */
  missing: string[];
  /** Values we could not use (an invalid CPF, an unreadable date); also written into notes. */
  warnings: string[];
  /**
   * Values we used that a person should check (an ambiguous date, a stand-in last name); also
   * written into notes.
   */
  notices: string[];
  /** Which branch the lead's answers chose, and why (when its account names branches). */
  branch?: BranchChoice;
}
