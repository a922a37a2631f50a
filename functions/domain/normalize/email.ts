/**
 * Email normalisation with a pragmatic syntax check (not RFC 5322: quoted local parts, comments
 * and IP-literal domains are refused; nobody fills a lead form with them).
 * Pure: no AWS, no process.env, never throws.
 */

export type EmailResult = { email: string } | { error: string };

const MAX_INPUT_LENGTH = 320;
/** Invisible characters that ride along with copy-paste (zero-width space/joiners, BOM). */
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF]/gu;
/** Local part: printable, no space, no characters that need quoting. */
const LOCAL_PART = /^[^\s@<>()[\]\\,;:"\p{Cc}]{1,64}$/u;
/** A domain label: letters (IDN allowed), digits, inner hyphens. */
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/**
 * Normalise an email address: strip invisible characters, trim, drop a `mailto:` prefix (and its
 * `?subject=...` query) or a `Name <address>` wrapper, lower-case everything (mailbox providers
 * treat the local part case-insensitively in practice, and dedup needs one spelling), then check:
 * exactly one `@`; a local part of 1–64 characters with no spaces or quoting characters, not
 * starting or ending with `.` and without `..`; a domain with at least one dot, labels of letters,
 * digits and inner hyphens, and a top-level domain of at least two letters; 254 characters at most.
 */
export function normalizeEmail(input: string): EmailResult {
  if (typeof input !== 'string') return { error: 'o e-mail não é texto' };
  if (input.length > MAX_INPUT_LENGTH) return { error: 'o e-mail é longo demais' };
  let text = input.replace(INVISIBLE, '').trim();
  const wrapped = /^[^<>]*<([^<>]*)>$/u.exec(text);
  if (wrapped) text = (wrapped[1] ?? '').trim();
  if (/^mailto:/iu.test(text)) text = (text.slice('mailto:'.length).split('?')[0] ?? '').trim();
  const email = text.toLowerCase();

  if (!email) return { error: 'o e-mail está vazio' };
  if (/\s/u.test(email)) return { error: 'o e-mail tem espaços' };
  const parts = email.split('@');
  if (parts.length !== 2) {
    return { error: parts.length < 2 ? "o e-mail não tem '@'" : "o e-mail tem mais de um '@'" };
  }
  const [local = '', domain = ''] = parts;
  if (
    !LOCAL_PART.test(local) ||
    local.startsWith('.') ||
    local.endsWith('.') ||
    local.includes('..')
  ) {
    return { error: "o e-mail tem uma parte inválida antes do '@'" };
  }
  const labels = domain.split('.');
  const tld = labels.at(-1) ?? '';
  if (labels.length < 2) return { error: 'o domínio do e-mail não tem ponto' };
  if (
    !labels.every((label) => DOMAIN_LABEL.test(label)) ||
    !/^(?:\p{L}{2,}|xn--[a-z0-9-]+)$/u.test(tld)
  ) {
    return { error: "o domínio do e-mail, depois do '@', não é válido" };
  }
  if (email.length > 254) return { error: 'o e-mail é longo demais' };
  return { email };
}
