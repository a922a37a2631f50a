/**
 * What the console page hands its script in `#page-data` (a `<script type="application/json">`:
 * data, not script), and the shapes of the admin routes' answers the script reads. Types only:
 * the console-page.ts side builds the block, and the routes' own types live with them
 * (admin.ts); these name just the fields the console shows.
 */
export interface PageData {
  profiles: string[];
  statuses: string[];
  /** The account's time zone: every time shown is on the gym's clock. */
  timeZone: string;
  /** The Prospect fields the academy's system requires (domain/prospect.ts). */
  required: string[];
  /** The hint shown to a lead with a phone and no e-mail. */
  placeholderHint: string;
}

export type Prospect = Record<string, unknown>;

export interface BranchChoice {
  idBranch: number | string;
  name: string;
}

export interface Contact {
  name?: string;
  email?: string;
  phone?: string;
}

export interface LeadSummary {
  leadId: string;
  status: string;
  profile: string;
  receivedAt: string;
  contact?: Contact;
  reason?: string;
  lastError?: string;
}

export interface BranchAnswer {
  text: string;
  warning?: boolean;
}

export interface SubmittedAnswer {
  key: string;
  label?: string;
  value: string | string[];
}

export interface LeadDetail extends LeadSummary {
  correctedAt?: string;
  correctedBy?: string;
  attempts?: number;
  tries?: number;
  /** The one attempt count a person reads ("Tentativas de entrega: 3 (2 falhas deste lead)"). */
  triesText?: string;
  messages?: string[];
  nextAttemptAt?: string;
  deliveredAt?: string;
  idProspect?: number | string;
  branch?: BranchAnswer;
  warnings?: string[];
  submitted?: {
    answers: SubmittedAnswer[];
    attribution?: Record<string, string>;
    prospect?: Prospect;
  };
  prospect?: Prospect;
  branchChoices?: BranchChoice[];
  correctable?: boolean;
  moveTo?: string[];
  profileGone?: boolean;
}

export interface KitSecret {
  key: string;
  what: string;
  where: string;
}

export interface Kit {
  profile: string;
  label: string;
  url: string;
  steps: string[];
  secrets: KitSecret[];
  curl?: string;
  htmlForm?: string;
  notes: string[];
}

export interface Revealed {
  url: string;
  secrets: { key: string; value: string | null; rotatable?: boolean }[];
  previous: { key: string; until: string }[];
}

export interface PreviewLead {
  pending?: boolean;
  note?: string;
  missing: string[];
  reason?: string;
  branch?: BranchAnswer;
  prospect: Prospect;
  warnings: string[];
  notices: string[];
}

export interface UpstreamHealth {
  circuit: { state: string; reason?: string; nextProbeAt?: string; lastSuccessAt?: string };
  backlog?: number;
}
