/**
 * The console's building blocks: elements built from text only (never HTML: what a lead holds
 * is what a person typed), a message line, a status badge, a labelled field, a menu, a copy
 * button and a box to paste from, and the confirmation asked before anything done in bulk.
 */
import type { BranchAnswer } from './page-data.ts';
import { LABELS } from './words.ts';

/** An attribute's value; a function (`onclick`...) is a listener; `text` the element's text. */
type Attribute = string | ((event: Event) => void) | undefined;
export type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Readonly<Record<string, Attribute>> = {},
  children: readonly Child[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined) continue;
    if (typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'text') node.textContent = value;
    else if (key === 'class') node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child) node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

export function clear<T extends Node>(node: T): T {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export const badge = (status: string) =>
  el('span', { class: `badge ${status}`, text: LABELS[status] ?? status });

export const message = (text: string, kind = '') =>
  el('div', { class: `msg${kind ? ` ${kind}` : ''}`, role: 'status', text });

/** Which branch a lead goes to and why (an answer that named no branch is a warning). */
export function branchLine(branch: BranchAnswer): HTMLElement {
  const line = message(branch.text, branch.warning ? 'warn' : '');
  line.className += ' branch';
  return line;
}

export const field = (label: string, input: HTMLElement) => el('label', {}, [label, input]);

/** A menu of `values` (shown by `labels`), `selected` chosen, `empty` a first blank choice. */
export function options(
  values: readonly string[],
  labels: Readonly<Record<string, string>> | null,
  selected: string,
  empty?: string,
): HTMLSelectElement {
  const select = el('select');
  if (empty) select.appendChild(el('option', { value: '', text: empty }));
  for (const v of values) {
    const option = el('option', { value: v, text: labels?.[v] ?? v });
    if (v === selected) option.selected = true;
    select.appendChild(option);
  }
  return select;
}

/** A button that copies `text` and says so; `target` is selected when the browser refuses. */
export function copyButton(
  text: string | (() => string),
  label = 'Copiar',
  target?: HTMLElement,
): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'plain copy', text: label });
  button.addEventListener('click', () => {
    const value = typeof text === 'function' ? text() : text;
    const done = () => {
      button.textContent = 'Copiado ✓';
      setTimeout(() => {
        button.textContent = label;
      }, 2500);
    };
    const select = () => {
      if (!target) return;
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = window.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      button.textContent = 'Selecionado: copie com o menu';
    };
    if (navigator.clipboard?.writeText) navigator.clipboard.writeText(value).then(done, select);
    else select();
  });
  return button;
}

/** A value to paste, in a box that wraps on a phone, with its copy button. */
export function pasteBox(value: string, label?: string): HTMLElement {
  const code = el('code', { class: 'paste', text: value });
  return el('div', { class: 'pastebox' }, [
    code,
    copyButton(() => code.textContent ?? '', label, code),
  ]);
}

/** Asks before something done to many leads at once, or that cannot be undone. */
export const confirmed = (question: string) => window.confirm(question);

/** The console's one view container. */
export function viewRoot(): HTMLElement {
  const view = document.getElementById('view');
  if (!view) throw new Error('the console page has no #view');
  return view;
}
