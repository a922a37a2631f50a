/**
 * "Cobrar" in the dashboard's list (dashboard-list.ts renders it; it opens without a script):
 * one panel open at a time, the message shown (read from the WhatsApp link: the page carries it
 * once), and the copy buttons, which put the link or the message on the clipboard (by hand
 * where the Clipboard API is missing) and say so in Portuguese.
 */

const COPIED = {
  link: 'Link copiado: cole onde quiser enviar.',
  message: 'Mensagem copiada: cole onde quiser enviar.',
  failed: 'Não foi possível copiar sozinho: selecione o texto e copie.',
};

function messageOf(panel: Element): string {
  const whatsapp = panel.querySelector<HTMLAnchorElement>('a.whatsapp');
  return whatsapp ? (new URL(whatsapp.href).searchParams.get('text') ?? '') : '';
}

function copyByHand(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  document.body.removeChild(area);
  return ok;
}

function copy(text: string, done: (ok: boolean) => void): void {
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(
      () => done(true),
      () => done(copyByHand(text)),
    );
  } else done(copyByHand(text));
}

function onToggle(table: HTMLElement, event: Event): void {
  const toggled = event.target;
  if (!(toggled instanceof HTMLDetailsElement)) return;
  const entry = toggled.closest('tbody');
  if (!entry) return;
  entry.classList.toggle('charging', toggled.open);
  if (!toggled.open) return;
  const preview = entry.querySelector<HTMLElement>('.charge-message');
  const panel = preview?.closest('.charge-panel');
  if (preview && panel && preview.hidden) {
    preview.textContent = messageOf(panel);
    preview.hidden = false;
  }
  for (const other of table.querySelectorAll<HTMLDetailsElement>('details.charge[open]')) {
    if (other !== toggled) other.open = false;
  }
}

function onClick(event: Event): void {
  const target = event.target;
  if (!(target instanceof Element)) return;
  const button = target.closest('button[data-copy]');
  const panel = button?.closest('.charge-panel');
  if (!button || !panel) return;
  const what = button.getAttribute('data-copy') === 'link' ? 'link' : 'message';
  const field = panel.querySelector<HTMLInputElement | HTMLTextAreaElement>('.charge-link');
  const text = what === 'link' ? (field?.value ?? '') : messageOf(panel);
  const said = panel.querySelector('.copied');
  copy(text, (ok) => {
    if (said) said.textContent = ok ? COPIED[what] : COPIED.failed;
    if (!ok && field) {
      field.focus();
      field.select();
    }
  });
}

/** Wires "Cobrar" in the list `table`. */
export function wireCharge(table: HTMLElement): void {
  table.addEventListener('toggle', (event) => onToggle(table, event), true);
  table.addEventListener('click', onClick);
}
